/**
 * The SQLite schema of the index and its migrations, and opening the database (bun:sqlite, WAL).
 * Tables: `meta` (schema version, last index time, embedding fingerprint), `containers` (stats
 * fingerprints per source file/db), `sessions`, `turns`, `documents` (one session document and one
 * document per turn, with hashes of their text) with `documents_fts` (contentless FTS5, porter +
 * unicode61; the text itself is rebuilt from turns by documents.ts), `chunks` (the embedding units cut from documents; a chunk id is its vector row id; `next_chunks` the same for a model being swapped in),
 * `documents_cjk` (trigram side index of unsegmented-script tokens, issue 13, index/write/cjk.ts),
 * `turn_outputs` (capped, compressed tool outputs for level 3 when the source is gone), `summaries` (what `recall
 * summarize` made or failed to make per session, issue 41), `eval_labels` (the labelled queries `recall eval` found,
 * issue 43) and `forgotten`
 * (tombstones of sessions deleted on purpose), `watched_paths` (folders the last whole scan read, for the freshness
 * check), `rejected_files` and `session_skips` (what could not be kept, by reason: index/write/not-kept.ts).
 * Sessions are never dropped by an index run: a vanished source
 * marks them `source_status = 'deleted'` (DESIGN.md "The archive").
 * SQLite is the source of truth: vector files can always be rebuilt from it (DESIGN.md "Store").
 */
import { Database } from "bun:sqlite";
import { scopeCountsMigration } from "./store/scope-counts.ts";
import { existsSync } from "node:fs";
import { dirname } from "node:path";
import { IndexError } from "../errors.ts";
import { backfillUnsegmented } from "./write/cjk.ts";
import { buildKeywordPostings, keywordPostingsSchema } from "./postings/keyword-postings.ts";
import { derivedTitleOf } from "./write/derived-title.ts";
import { loadDocumentTexts } from "./write/documents.ts";
import { damagedIndexError, guardAgainstDamage, isSqliteDamage } from "./store/damage.ts";
import { assertNotAFile, createPrivateFile } from "../home/paths.ts";

/** Schema version this code writes. Migrations bring older databases up to it. */
export const schemaVersion = 25;

/**
 * The keyword index's tokenizer (FTS5 `porter unicode61 remove_diacritics 2`): letter and digit runs, case-folded,
 * diacritics removed, stemmed by Porter. The team archive tokenizes with the same one (team-archive/keyword-tokens.ts).
 */
export const keywordTokenizer = "porter unicode61 remove_diacritics 2";

/** FTS5's `hashsize` for `documents_fts` (schema v18): bytes of new terms held in memory before they are written. */
const ftsPendingBytes = 8 * 1024 * 1024;

/**
 * Migrations in order; `migrations[n]` upgrades version n to n+1. Version 0 is an empty database.
 * Never edit a released migration: append a new one. A step is SQL, or a function run in the same transaction
 * (for a step that needs code, such as rebuilding text from turns).
 */
const migrations: Array<string | ((db: Database) => void)> = [
  `
  CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
  CREATE TABLE containers (
    path TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    size_bytes INTEGER NOT NULL
  );
  CREATE TABLE sessions (
    id INTEGER PRIMARY KEY,
    source TEXT NOT NULL,
    session_id TEXT NOT NULL,
    unit_key TEXT NOT NULL UNIQUE,
    container_path TEXT NOT NULL,
    change_key TEXT NOT NULL,
    unit_locator TEXT,
    project_path TEXT NOT NULL,
    project_name TEXT NOT NULL,
    git_branch TEXT,
    started_at INTEGER NOT NULL,
    ended_at INTEGER NOT NULL,
    title TEXT,
    turn_count INTEGER NOT NULL,
    parent_session_id TEXT,
    is_subagent INTEGER NOT NULL,
    location TEXT NOT NULL,
    files TEXT NOT NULL,
    resume_state TEXT,
    skipped_lines INTEGER NOT NULL DEFAULT 0,
    UNIQUE (source, session_id)
  );
  CREATE INDEX sessions_container ON sessions(container_path);
  CREATE INDEX sessions_session_id ON sessions(session_id);
  CREATE INDEX sessions_ended ON sessions(ended_at);
  -- Covers every filter column, so scope counts and filtered joins never read the wide rows
  -- (files, resume state): 35 ms -> a few ms for the searched-scope count at 25k sessions.
  CREATE INDEX sessions_filters ON sessions(is_subagent, source, project_path, project_name, git_branch, started_at, ended_at, session_id);
  CREATE TABLE turns (
    session_rowid INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    number INTEGER NOT NULL,
    timestamp INTEGER NOT NULL,
    prompt TEXT NOT NULL,
    response TEXT NOT NULL,
    tools TEXT NOT NULL,
    files TEXT NOT NULL,
    PRIMARY KEY (session_rowid, number)
  ) WITHOUT ROWID;
  CREATE TABLE documents (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_rowid INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    level TEXT NOT NULL CHECK (level IN ('session', 'turn')),
    turn_number INTEGER NOT NULL, -- 0 for the session document
    text_hash TEXT NOT NULL,      -- hash of the searched columns: unchanged text keeps its id and FTS row
    embed_hash TEXT NOT NULL      -- hash of the embedded text: unchanged text keeps its chunks and vectors
  );
  CREATE UNIQUE INDEX documents_session ON documents(session_rowid, level, turn_number);
  -- Contentless: the text lives once, in turns/sessions, and documents.ts rebuilds it when needed
  -- (measured: half the write time of an external-content table that stores the text again).
  CREATE VIRTUAL TABLE documents_fts USING fts5(
    heading, body, extra,
    content = '', contentless_delete = 1,
    tokenize = '${keywordTokenizer}'
  );
  CREATE TRIGGER documents_ad AFTER DELETE ON documents BEGIN
    DELETE FROM documents_fts WHERE rowid = old.id;
  END;
  CREATE TABLE chunks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    chunk_index INTEGER NOT NULL,
    text TEXT NOT NULL,
    status INTEGER NOT NULL DEFAULT 0,
    UNIQUE (document_id, chunk_index)
  );
  CREATE INDEX chunks_status ON chunks(status);
  `,
  // v2 (issue 9, the archive): a session whose source vanished stays, marked `deleted`; tool outputs are kept
  // (capped, gzip) for level 3 once the source is gone; `forget` leaves a tombstone so an index run does not
  // re-add what the user deleted on purpose.
  `
  ALTER TABLE sessions ADD COLUMN source_status TEXT NOT NULL DEFAULT 'present' CHECK (source_status IN ('present', 'deleted'));
  ALTER TABLE sessions ADD COLUMN last_seen_at INTEGER NOT NULL DEFAULT 0; -- epoch ms of the last run that saw the source
  UPDATE sessions SET last_seen_at = coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'last_indexed_at'), 0);
  CREATE INDEX sessions_deleted ON sessions(source) WHERE source_status = 'deleted';
  CREATE TABLE turn_outputs (
    session_rowid INTEGER NOT NULL,
    number INTEGER NOT NULL,
    outputs BLOB NOT NULL, -- gzip of a JSON array aligned with turns.tools: each call's capped output, or null
    PRIMARY KEY (session_rowid, number),
    FOREIGN KEY (session_rowid, number) REFERENCES turns(session_rowid, number) ON DELETE CASCADE
  );
  CREATE TABLE forgotten (
    source TEXT NOT NULL,
    session_id TEXT NOT NULL,
    project_path TEXT NOT NULL,
    project_name TEXT NOT NULL,
    ended_at INTEGER NOT NULL,
    forgotten_at INTEGER NOT NULL,
    PRIMARY KEY (source, session_id)
  );
  -- Indexes written before v2 hold no tool outputs: re-parse every session once (unchanged text keeps its
  -- documents, chunks and vectors, so nothing is re-embedded).
  UPDATE sessions SET change_key = '', resume_state = NULL;
  DELETE FROM containers;
  DELETE FROM meta WHERE key LIKE 'containers_digest:%';
  `,
  // v3 (issue 13, unsegmented scripts): a trigram side index of the CJK/kana/Hangul/Thai/... runs of each document
  // (index/write/cjk.ts), filled here from the stored turns, so archived sessions whose source is gone get it too.
  (db) => {
    db.exec(`
      CREATE VIRTUAL TABLE IF NOT EXISTS documents_cjk USING fts5(text, tokenize = 'trigram');
      CREATE TRIGGER IF NOT EXISTS documents_ad_cjk AFTER DELETE ON documents BEGIN
        DELETE FROM documents_cjk WHERE rowid = old.id;
      END;
      DELETE FROM documents_cjk;`); // IF NOT EXISTS: a test may turn a newer index back into an older version
    backfillUnsegmented(db);
  },
  // v4 (issue 11): sessions known only from a prompt-history file (history.jsonl, logs.json) are marked; Claude Code's
  // random slugs (`cuddly-floating-comet`) are no longer titles (the first prompt is shown instead), so those sessions
  // lose the slug now and are re-parsed once where their source is still there (their session document drops it).
  (db) => {
    // The column may exist already when a test turned a newer index back into an older version.
    const columns = db.query<{ name: string }, []>("PRAGMA table_info(sessions)").all();
    if (!columns.some((column) => column.name === "prompt_only"))
      db.exec("ALTER TABLE sessions ADD COLUMN prompt_only INTEGER NOT NULL DEFAULT 0");
    db.exec(`
  CREATE TEMP TABLE slug_titled AS SELECT id, container_path FROM sessions
    WHERE source = 'claude-code' AND title GLOB '[a-z]*-[a-z]*-[a-z]*' AND title NOT GLOB '*[^a-z-]*';
  UPDATE sessions SET title = NULL, change_key = '', resume_state = NULL WHERE id IN (SELECT id FROM slug_titled);
  DELETE FROM containers WHERE path IN (SELECT container_path FROM slug_titled);
  DELETE FROM meta WHERE key = 'containers_digest:claude-code' AND EXISTS (SELECT 1 FROM slug_titled);
  DROP TABLE slug_titled;`);
  },
  // v5 (issue 14, the freshness check): containers keep their file's mtime, so a check re-stats only recent ones, and
  // `watched_paths` holds the folders (and probed side files) each tree walk read, so a check that finds them all
  // unchanged knows no file was added, removed or renamed without walking (index/plan/freshness.ts). Both fill on the next
  // whole scan; digests change format (an order-independent sum), so every source is scanned whole once.
  (db) => {
    const columns = db.query<{ name: string }, []>("PRAGMA table_info(containers)").all();
    if (!columns.some((column) => column.name === "mtime_ms"))
      db.exec("ALTER TABLE containers ADD COLUMN mtime_ms REAL");
    db.exec(`
  CREATE INDEX IF NOT EXISTS containers_recent ON containers(source, mtime_ms);
  CREATE TABLE IF NOT EXISTS watched_paths (
    path TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    owner TEXT -- the container whose session owns this folder (checked while it is recent), NULL = always checked
  );
  CREATE INDEX IF NOT EXISTS watched_paths_owner ON watched_paths(source, owner);
  DELETE FROM meta WHERE key LIKE 'containers_digest:%';`);
  },
  // v6 (issue 12, the embedding pipeline): a change of embedding model builds the new chunks and vectors beside the
  // old ones (`next_chunks`, `vectors-next/`) and swaps them in when complete (index/vectors/generations.ts), so an interrupted
  // re-embed never leaves an index without vectors. Session documents now embed only their title (the prompts are
  // embedded once, in the turn documents): their old chunks go, and a title-less session document gets one
  // `skipped` chunk, like every document with nothing to embed.
  `
  CREATE TABLE IF NOT EXISTS next_chunks (
    id INTEGER PRIMARY KEY,
    document_id INTEGER NOT NULL REFERENCES documents(id) ON DELETE CASCADE,
    chunk_index INTEGER NOT NULL,
    text TEXT NOT NULL,
    status INTEGER NOT NULL DEFAULT 0,
    UNIQUE (document_id, chunk_index)
  );
  CREATE INDEX IF NOT EXISTS next_chunks_status ON next_chunks(status);
  DELETE FROM chunks WHERE document_id IN (SELECT id FROM documents WHERE level = 'session');
  UPDATE documents SET embed_hash = '' WHERE level = 'session';
  `,
  // v7 (issue 26, say what was not kept): files a parser rejected whole, and per session the records it could not
  // place, by reason (index/write/not-kept.ts). Neither was recorded before: every container is listed again by the
  // next run (units whose change key did not move are not re-parsed), and sessions that skipped records are
  // re-parsed once to learn why.
  `
  CREATE TABLE IF NOT EXISTS rejected_files (
    path TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    reason TEXT NOT NULL,
    seen_at INTEGER NOT NULL -- epoch ms of the run that listed the file
  );
  CREATE TABLE IF NOT EXISTS session_skips (
    session_rowid INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    reason TEXT NOT NULL,
    count INTEGER NOT NULL,
    first_place TEXT NOT NULL,
    PRIMARY KEY (session_rowid, reason)
  ) WITHOUT ROWID;
  UPDATE sessions SET change_key = '', resume_state = NULL WHERE skipped_lines > 0;
  DELETE FROM containers;
  DELETE FROM meta WHERE key LIKE 'containers_digest:%';
  `,
  // v8 (issue 26): the title shown for an untitled session is its first prompt as typed, without the wrapper blocks
  // IDE extensions inject (write/derived-title.ts); stored when the session is written instead of cut from the first
  // prompt by every listing. Filled here from the stored turns, so archived sessions get it too.
  (db) => {
    const columns = db.query<{ name: string }, []>("PRAGMA table_info(sessions)").all();
    if (!columns.some((column) => column.name === "derived_title"))
      db.exec("ALTER TABLE sessions ADD COLUMN derived_title TEXT");
    const prompts = db.query<{ prompt: string }, [number]>(
      "SELECT prompt FROM turns WHERE session_rowid = ? AND number > 0 ORDER BY number",
    );
    const update = db.query("UPDATE sessions SET derived_title = ? WHERE id = ?");
    for (const { id } of db.query<{ id: number }, []>("SELECT id FROM sessions").all()) {
      update.run(derivedTitleOf(prompts.all(id).map((row) => row.prompt)), id);
    }
  },
  // v9 (issue 26): a tombstone keeps its session's parent, so `recall forget --undo <parent>` also lets the next index
  // add the sub-agent sessions forgotten with it (archive/forget.ts). Older tombstones have none: nothing to fill from.
  (db) => {
    const columns = db.query<{ name: string }, []>("PRAGMA table_info(forgotten)").all();
    if (!columns.some((column) => column.name === "parent_session_id"))
      db.exec("ALTER TABLE forgotten ADD COLUMN parent_session_id TEXT");
  },
  // v10 (issue 27): how many pieces the embedding endpoint needed per chunk. A remote model's window is known only
  // approximately (bytes per token), so a chunk the endpoint refuses as too long is split and embedded as the mean of
  // its parts; `status` says how many were, so no chunk is cut unseen. 1 = embedded whole (every older chunk).
  (db) => {
    for (const table of ["chunks", "next_chunks"]) {
      const columns = db.query<{ name: string }, []>(`PRAGMA table_info(${table})`).all();
      if (!columns.some((column) => column.name === "parts"))
        db.exec(`ALTER TABLE ${table} ADD COLUMN parts INTEGER NOT NULL DEFAULT 1`);
    }
  },
  // v11 (issue 37): redaction finds more (command lines, cookies, PGPASSWORD, ~50 vendor token shapes, paths and
  // branches), and a prompt, reply or tool line is indexed up to 200,000 characters. An index written before holds
  // what the new rules find: every session is re-parsed once where its source is still there, and the stored copies
  // of the others are redacted again by the next run (index/write/stored-redaction.ts), which then purges the old text.
  // Containers are kept with no fingerprint, not deleted: every one reads as changed, and one whose file is gone by
  // the next run still reads as vanished, so its sessions are marked deleted (a deleted row would hide that).
  // `turns.prompt_chars` holds the length of a prompt longer than the searchable part (NULL otherwise), so a level-2
  // result need not read a 50 MB prompt a second time to say how much of it was cut.
  (db) => {
    const columns = db.query<{ name: string }, []>("PRAGMA table_info(turns)").all();
    if (!columns.some((column) => column.name === "prompt_chars"))
      db.exec("ALTER TABLE turns ADD COLUMN prompt_chars INTEGER");
    db.exec(`
  UPDATE sessions SET change_key = '', resume_state = NULL;
  UPDATE containers SET fingerprint = '';
  DELETE FROM meta WHERE key LIKE 'containers_digest:%';
  INSERT OR REPLACE INTO meta(key, value) SELECT 'redact_stored_sessions', '1' WHERE EXISTS (SELECT 1 FROM sessions);`);
  },
  // v12 (issue 38 item 14, usage analytics): per turn the main model that answered, the token counts and the cost the
  // agent recorded (NULL = not recorded, never 0), and `usage`, the JSON array of `ModelUsage` per model
  // (parsers/types.ts). The parsers that now fill them (Claude Code, Codex, OpenCode, Gemini CLI) raised their
  // `Parser.version`, so the next run re-parses every session of theirs whose source is still there
  // (index/write/indexer.ts); sessions whose source is gone keep NULL.
  (db) => {
    const columns = db.query<{ name: string }, []>("PRAGMA table_info(turns)").all();
    for (const [name, type] of usageColumns)
      if (!columns.some((column) => column.name === name)) db.exec(`ALTER TABLE turns ADD COLUMN ${name} ${type}`);
  },
  // v13 (issue 41): a session's abstract (`sessions.abstract`, the JSON array of `AbstractPart`s the agent wrote,
  // parsers/types.ts) and the summaries `recall summarize` made (`summaries`, one row per session: the last summary,
  // the hash of the prompt it was made from, and the reason the last attempt failed, if it did). Both are searched in
  // a fourth FTS column, `abstract`: FTS5 cannot add a column, so the keyword table is rebuilt from the rows it derives
  // from (documents.ts `loadDocumentTexts`; every abstract is empty until the parsers that now fill it, which raised
  // their `Parser.version`, re-parse their sessions on the next run).
  (db) => {
    const columns = db.query<{ name: string }, []>("PRAGMA table_info(sessions)").all();
    if (!columns.some((column) => column.name === "abstract")) db.exec("ALTER TABLE sessions ADD COLUMN abstract TEXT");
    db.exec(`
  CREATE TABLE IF NOT EXISTS summaries (
    session_rowid INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    text TEXT,                  -- the last summary made, NULL until one was
    content_hash TEXT,          -- hash of the prompt the summary was made from (summarize/prompt.ts): a grown session differs
    backend TEXT,               -- local | openai | anthropic, and the model, of the summary
    model TEXT,
    made_at INTEGER,            -- epoch ms
    failure TEXT,               -- reason the last attempt failed (refused, too_large, ...), NULL after a success
    failure_hash TEXT,          -- hash of the prompt that failed: the same prompt is not sent again unless asked
    failure_message TEXT
  );
  DROP TRIGGER IF EXISTS documents_ad;
  DROP TABLE IF EXISTS documents_fts;
  CREATE VIRTUAL TABLE documents_fts USING fts5(
    heading, body, extra, abstract,
    content = '', contentless_delete = 1,
    tokenize = '${keywordTokenizer}'
  );
  CREATE TRIGGER documents_ad AFTER DELETE ON documents BEGIN
    DELETE FROM documents_fts WHERE rowid = old.id;
  END;`);
    const insert = db.query("INSERT INTO documents_fts(rowid, heading, body, extra, abstract) VALUES (?, ?, ?, ?, ?)");
    const ids = db.query<{ id: number }, []>("SELECT id FROM documents ORDER BY id").all();
    for (let start = 0; start < ids.length; start += 500) {
      const texts = loadDocumentTexts(
        db,
        ids.slice(start, start + 500).map((row) => row.id),
      );
      for (const [id, text] of texts) insert.run(id, text.heading, text.body, text.extra, text.abstract);
    }
  },
  // v14 (issue 43): the labelled queries `recall eval` found in this history (evaluate/labels.ts), one row per
  // label and session it names, removed with the session (`forget`, the cascade).
  `
  CREATE TABLE IF NOT EXISTS eval_labels (
    label INTEGER NOT NULL,       -- the label's number in the last run that found it (several rows: several sessions)
    kind TEXT NOT NULL,           -- commit | title
    query TEXT NOT NULL,
    session_rowid INTEGER NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
    turns TEXT NOT NULL,          -- JSON array of the turn numbers a level-2 hit may be
    withheld TEXT NOT NULL,       -- JSON of what the query was taken from (evaluate/labels.ts LabelSource)
    PRIMARY KEY (label, session_rowid)
  );
  CREATE INDEX IF NOT EXISTS eval_labels_session ON eval_labels(session_rowid);
  `,
  // v15 (issue 42): the project folders of the sessions, which the check before every search reads
  // (plan/known-projects.ts), found by a skip scan of this index: 0.7 ms at 20,000 sessions instead of 9 ms for a
  // scan of every session.
  "CREATE INDEX IF NOT EXISTS sessions_project ON sessions(project_path, source);",
  // v16 (issue 42): the counts a cold search reads instead of counting rows, kept by triggers (store/scope-counts.ts).
  scopeCountsMigration(),
  // v17 (issue 42): the parsers' resume states in a table of their own. A Claude Code state holds the last turn's
  // records (11 KB a session on the generated 20k corpus, 276 MB in all): inside the session row it pushed the columns
  // after it (source_status, prompt_only) onto overflow pages, so a plan that reads every session of a source (each
  // whole scan) read them all: 350–1,600 ms at 20k sessions, against 100–170 ms without them.
  (db) => {
    db.exec(`
  CREATE TABLE IF NOT EXISTS resume_states (
    session_rowid INTEGER PRIMARY KEY REFERENCES sessions(id) ON DELETE CASCADE,
    state TEXT NOT NULL -- JSON of the parse's ResumeState (parsers/types.ts), read when the session's file grew
  );`);
    const columns = db.query<{ name: string }, []>("PRAGMA table_info(sessions)").all();
    if (!columns.some((column) => column.name === "resume_state")) return;
    db.exec(`
  INSERT INTO resume_states(session_rowid, state) SELECT id, resume_state FROM sessions WHERE resume_state IS NOT NULL;
  ALTER TABLE sessions DROP COLUMN resume_state;`);
  },
  // v18 (issue 42): FTS5 keeps up to 8 MB of new terms in memory before it writes them out as a segment (its default is
  // 1 MB): fewer, larger segments, so less merging. A first index of the generated 20k corpus took 69.6 and 72.2 s
  // instead of 78.7 and 74.8 s (alternating runs, 2-core EPYC, 2026-11-29).
  `INSERT INTO documents_fts(documents_fts, rank) VALUES ('hashsize', ${ftsPendingBytes});`,
  // v19 (issue 42): listings (`recall sessions`, the MCP recent tool, the picker's and the web view's lists) read the
  // sessions newest first (search/listing/sessions.ts listSessions): in this order, with every filter's column beside it,
  // a page is read from the front of the index and the rest is never touched, and counting them reads only the index.
  // At 20k sessions a first page took 32–36 ms (every session sorted) and its count 31–33 ms; now 0.1 ms and 2 ms.
  `CREATE INDEX IF NOT EXISTS sessions_listing
     ON sessions(is_subagent, ended_at DESC, session_id, turn_count, source, project_path, project_name, git_branch, started_at);`,
  // v20 (issue 42): resume states are written as zstd of their JSON (index/store/resume-state.ts), a quarter to a third
  // of their size; the JSON text of older rows is still read, and replaced when their session is next parsed. Nothing
  // to migrate: the version keeps an older recall, which reads only JSON, from opening this index.
  "SELECT 1;",
  // v21 (issue 42): the keyword index's own posting lists beside FTS5 (postings/keyword-postings.ts), built here for the
  // documents already indexed, from their rows, so that search ranks the best k without bm25() scoring every match.
  (db) => {
    db.exec(keywordPostingsSchema);
    buildKeywordPostings(db);
  },
  // v22 (issue 42): a search keeps the sessions of its ranked window that pass the filters (search/ranking/lexical.ts
  // `windowSessionsSql`); with the default ones (no sub-agents) this index answers alone, ~0.3 MB at 20k sessions,
  // instead of one wide session row a page: 693 sessions took 2.4–2.8 ms, now 0.5 ms (20k sessions, 2-core Xeon).
  "CREATE INDEX IF NOT EXISTS sessions_subagent_by_id ON sessions(id, is_subagent);",
  // v23 (issue 42): a search reads its ranked window's documents (~800) by id for their session, turn and level
  // (search/ranking/lexical.ts `windowDocumentsSql`); this narrow index answers alone, ~2.7 MB at 20k sessions, where
  // the wide document rows (two hashes each) spread the same reads over twice the pages.
  "CREATE INDEX IF NOT EXISTS documents_window ON documents(id, session_rowid, turn_number, level);",
  // v24 (issue 42): a level-2 search with dates keeps a turn by its own time (search/listing/filters.ts), which the
  // search read from the turn's wide row (prompt, reply, tools: a page or more each); this narrow index answers it
  // alone (INDEXED BY in search/ranking/lexical.ts and vector.ts), ~1.5 MB at 20k sessions and 70 ms to build there.
  // The vector leg's 4,017 chunks of the newest 2% of sessions: 26 ms through the turn rows, 8 ms through the index
  // (the sqlite3 shell, warm, 2-core Xeon).
  "CREATE INDEX IF NOT EXISTS turns_time ON turns(session_rowid, number, timestamp);",
  // v25 (issue 42): the vector leg looks up the owners of a store's best chunks by id (search/ranking/vector.ts
  // `chunkOwners`: ~400 a search); this narrow index answers each from a few bytes where the chunk's row holds its text.
  "CREATE INDEX IF NOT EXISTS chunks_owner ON chunks(id, document_id, status);",
];

/** The usage columns of `turns` (schema v12) and their SQLite types. */
const usageColumns = [
  ["model", "TEXT"],
  ["input_tokens", "INTEGER"],
  ["output_tokens", "INTEGER"],
  ["cache_read_tokens", "INTEGER"],
  ["cache_write_tokens", "INTEGER"],
  ["cost_usd", "REAL"],
  ["usage", "TEXT"],
] as const;

/** Values of `sessions.source_status`: the source still holds the session, or it is gone and the index holds the only copy. */
export type SourceStatus = "present" | "deleted";

/**
 * Chunk status values stored in `chunks.status` (and `next_chunks.status`): `pending` (to embed), `embedded` (its
 * vector row exists), `failed` (retried next run), `skipped` (nothing to embed: an empty document's one chunk) and
 * `rejected` (the model or endpoint refused it for good, e.g. too large even when split; tried again only with
 * another model). Only pending and failed chunks make an index run load the model.
 */
export const chunkStatus = { pending: 0, embedded: 1, failed: 2, skipped: 3, rejected: 4 } as const;

/** Options of {@link openIndex}. */
export interface OpenIndexOptions {
  /** Open without write access (search during an index run); default false. */
  readonly?: boolean;
  /** Create and migrate when missing; default true unless readonly. */
  create?: boolean;
  /** busy_timeout in ms for lock waits; default 5000. */
  busyTimeoutMs?: number;
  /** SQLite's page cache of this connection in KiB (`PRAGMA cache_size = -N`); default SQLite's 2,000 KiB. */
  pageCacheKibibytes?: number;
}

/**
 * The page cache, in KiB, of a connection that answers one command and exits (a one-shot search): SQLite reads each
 * page of a search once or twice, so a cache that keeps 64 pages and reuses their buffers loses little, while each page
 * a 2 MB cache adds is memory the process touches for the first time, a page fault of ~4.5 µs on the 2-core VM the
 * bench runs on. A cold keyword search at 20k sessions took ~550 fewer page faults of its ~4,500 (the binary,
 * `/usr/bin/time`, 2026-11-30). Long-lived readers get {@link longLivedPageCacheKibibytes}.
 */
export const oneShotPageCacheKibibytes = 256;

/**
 * The page cache, in KiB, of a connection that answers one search after another (`recall pick`, `recall ui`, `recall
 * mcp` watching, and their match worker): the pages of the next search are mostly in it. SQLite's default 2,000 KiB
 * holds less than one keyword search reads at 20k sessions: typing "docker network" into the picker's search (14
 * queries, 5 rounds) read ~790 pages a query from the file in every round with it, none after the first round with
 * 16 MiB (strace, pread64), and a query 250 ms after the last (as a person types) took 36–40 ms against 54–65 ms
 * (system time 8–12 against 27–31 ms; the same queries, alternating, 2026-11-30). The cache only grows as pages are
 * read; 8 MiB was between the two, 32 and 64 MiB no better.
 */
export const longLivedPageCacheKibibytes = 16 * 1024;

/**
 * Open (and create/migrate) the index database.
 * WAL journal, foreign keys on, synchronous NORMAL (durable across process crashes, which is what a
 * `kill -9` test checks; an OS crash may lose the last transaction, never corrupt the file).
 * A new file is created 0600 before SQLite opens it, whatever the umask (its -wal and -shm take its mode).
 * Damage (SQLITE_CORRUPT / SQLITE_NOTADB) is checked at open by reading the schema, and any later query that
 * meets it throws the same IndexError (damage.ts), never a raw SQLite error. A read-only open of an index an older
 * recall wrote migrates it first, through a read-write connection of its own.
 * @throws IndexError INDEX_MISSING when the file is absent and `create` is false (HOME_UNUSABLE when a file
 *         stands where its folder should be),
 *         INDEX_CORRUPT when it is damaged, not a recall database or was written by a newer recall,
 *         HOME_UNUSABLE when it cannot be opened for another reason (permissions), INDEX_MISSING "needs an upgrade"
 *         for a read-only open of an older index that cannot be opened for writing, or of a file still being created
 */
export function openIndex(path: string, options: OpenIndexOptions = {}): Database {
  const readonly = options.readonly ?? false;
  const create = options.create ?? !readonly;
  if (!existsSync(path)) {
    if (!create) {
      assertNotAFile(dirname(path));
      throw new IndexError("INDEX_MISSING", `no index at ${path}`, { hint: "run `recall index` first" });
    }
    try {
      createPrivateFile(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw cannotOpen(path, error); // EEXIST: another process made it
    }
  }
  let db: Database | undefined;
  try {
    db = readonly ? new Database(path, { readonly: true }) : new Database(path, { create: true, readwrite: true });
    db.exec(`PRAGMA busy_timeout = ${options.busyTimeoutMs ?? 5000}`);
    if (!readonly) {
      db.exec("PRAGMA journal_mode = WAL");
      db.exec("PRAGMA synchronous = NORMAL");
    }
    db.exec("PRAGMA foreign_keys = ON");
    if (options.pageCacheKibibytes !== undefined) db.exec(`PRAGMA cache_size = ${-options.pageCacheKibibytes}`);
    db.query("SELECT count(*) FROM sqlite_schema").get(); // reads page 1 and the schema: a bad header fails here
  } catch (error) {
    db?.close();
    throw isSqliteDamage(error) ? damagedIndexError(path, error) : cannotOpen(path, error);
  }
  guardAgainstDamage(db, path);
  if (readonly && isOlderIndex(db)) {
    db.close();
    upgradeForReader(path, options.busyTimeoutMs);
    return openIndex(path, options);
  }
  migrate(db, path, readonly);
  return db;
}

/** True when `db` holds an index an older recall wrote (schema 1 up to this one's; 0 is a file still being created). */
function isOlderIndex(db: Database): boolean {
  let version: number;
  try {
    version = readVersion(db);
  } catch {
    return false; // not a recall database: migrate() says so
  }
  return version > 0 && version < schemaVersion;
}

/**
 * Migrate an index that a read-only open found at an older schema, through a read-write connection of its own, so the
 * first read-only command after an upgrade of recall (`recall status`, `recall sessions`) answers instead of failing
 * until `recall index` ran.
 * @throws IndexError INDEX_MISSING "needs an upgrade" when the file cannot be opened for writing (another user's index,
 *         a read-only file system); what openIndex throws otherwise
 */
function upgradeForReader(path: string, busyTimeoutMs: number | undefined): void {
  let writer: Database;
  try {
    writer = openIndex(path, { create: false, busyTimeoutMs });
  } catch (error) {
    if (error instanceof IndexError && error.code === "HOME_UNUSABLE")
      throw new IndexError("INDEX_MISSING", `the index at ${path} needs an upgrade`, {
        hint: "run `recall index` as the user who owns it",
        cause: error,
      });
    throw error;
  }
  writer.close();
}

function cannotOpen(path: string, error: unknown): IndexError {
  return new IndexError("HOME_UNUSABLE", `cannot open the index at ${path}: ${(error as Error).message}`, {
    hint: "check that you own the file and its folder and can read and write them",
    cause: error,
  });
}

/** Current schema version stored in the database (0 for an empty one). */
function readVersion(db: Database): number {
  const row = db.query<{ user_version: number }, []>("PRAGMA user_version").get();
  return row?.user_version ?? 0;
}

function migrate(db: Database, path: string, readonly: boolean): void {
  let version: number;
  try {
    version = readVersion(db);
  } catch (error) {
    db.close();
    throw new IndexError("INDEX_CORRUPT", `the index at ${path} is not a recall database`, {
      hint: "delete it and run `recall index --full`",
      cause: error,
    });
  }
  if (version > schemaVersion) {
    db.close();
    throw new IndexError("INDEX_CORRUPT", `the index at ${path} was written by a newer recall (schema ${version})`, {
      hint: "upgrade recall, or delete the index and run `recall index --full`",
    });
  }
  if (version === schemaVersion) return;
  if (readonly) {
    db.close();
    throw new IndexError("INDEX_MISSING", `the index at ${path} needs an upgrade`, { hint: "run `recall index`" });
  }
  db.transaction(() => {
    for (let step = version; step < schemaVersion; step++) {
      const migration = migrations[step]!;
      if (typeof migration === "string") db.exec(migration);
      else migration(db);
    }
    db.exec(`PRAGMA user_version = ${schemaVersion}`);
  }).immediate();
}

/** Every `meta` row of a connection, read at once by {@link withMetaSnapshot} while its `read` runs. */
const metaSnapshots = new WeakMap<Database, Map<string, string>>();

/**
 * Runs `read` with every `meta` value of `db` read in one statement: {@link readMeta} answers from them. Meant for a
 * read transaction that reads many keys (the freshness check reads ~4 per agent: a cold search read 93 one statement
 * each, 0.6–1.0 ms in the binary, against ~0.1 ms for the ~100 rows at once). Call it inside the transaction, so the
 * values are that transaction's. For reading: {@link writeMeta} inside it keeps the values current, any other write to
 * `meta` would not be seen. Nested calls share the outer snapshot.
 */
export function withMetaSnapshot<T>(db: Database, read: () => T): T {
  if (metaSnapshots.has(db)) return read();
  const rows = db.query<[string, string], []>("SELECT key, value FROM meta").values() as Array<[string, string]>;
  metaSnapshots.set(db, new Map(rows));
  try {
    return read();
  } finally {
    metaSnapshots.delete(db);
  }
}

/** Read a `meta` value, or undefined. */
export function readMeta(db: Database, key: string): string | undefined {
  const snapshot = metaSnapshots.get(db);
  if (snapshot) return snapshot.get(key);
  return db.query<{ value: string }, [string]>("SELECT value FROM meta WHERE key = ?").get(key)?.value;
}

/** Write a `meta` value (inside the caller's transaction when there is one). */
export function writeMeta(db: Database, key: string, value: string): void {
  db.query("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(
    key,
    value,
  );
  metaSnapshots.get(db)?.set(key, value);
}
