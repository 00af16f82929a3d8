/**
 * Everything an index holds, as comparable lines, for tests that assert two indexes are equal (an
 * incremental run against a clean `--full` run, a crashed run against a clean one). Row ids, which
 * legitimately differ between runs, are replaced by session ids; columns that record when a run
 * happened (`last_seen_at`, `indexed_at`, `*_seen_at`) are left out. Every table present is read with
 * `SELECT *`, so a column added later is compared without touching this helper. Blobs are hashed.
 */
import { readTermPostings, staleDocuments, totalsInStep } from "../../src/index/postings/keyword-postings.ts";
import { keywordTokens } from "../../src/index/tokens/keyword-tokens.ts";
import { Database } from "bun:sqlite";
import { databasePath } from "../../src/index/index.ts";

/** Options of {@link dumpIndex}. */
export interface DumpOptions {
  /** Words whose FTS answers are compared too (what the index answers, not only its size). */
  words?: string[];
  /** More column names to leave out. */
  ignoreColumns?: string[];
}

/** Columns that differ between two runs over the same files by design. */
const runTimeColumn = /^(id|last_seen_at|indexed_at|.*_seen_at)$/;

function cleanRow(row: Record<string, unknown>, ignore: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) {
    if (ignore.has(key) || runTimeColumn.test(key) || key === "session_rowid" || key === "document_id") continue;
    out[key] = value instanceof Uint8Array ? `blob:${Bun.hash(value).toString(16)}` : value;
  }
  return out;
}

function hasTable(db: Database, name: string): boolean {
  return db.query("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== null;
}

/**
 * Dump the index under `recallHome` (opened read-only; also runs the FTS integrity check).
 * @returns one JSON line per row, grouped by table, each group in a stable order
 */
export function dumpIndex(recallHome: string, options: DumpOptions = {}): string[] {
  const ignore = new Set(options.ignoreColumns ?? []);
  const db = new Database(databasePath(recallHome));
  try {
    const lines: string[] = [];
    const add = (table: string, rows: unknown[]) => {
      for (const row of rows)
        lines.push(`${table} ${JSON.stringify(cleanRow(row as Record<string, unknown>, ignore))}`);
    };
    add("session", db.query("SELECT * FROM sessions ORDER BY source, session_id").all());
    add(
      "turn",
      db
        .query(
          "SELECT s.source AS s_source, s.session_id AS s_session, t.* FROM turns t JOIN sessions s ON s.id = t.session_rowid ORDER BY 1, 2, t.number",
        )
        .all(),
    );
    if (hasTable(db, "turn_outputs")) {
      add(
        "output",
        db
          .query(
            "SELECT s.source AS s_source, s.session_id AS s_session, o.* FROM turn_outputs o JOIN sessions s ON s.id = o.session_rowid ORDER BY 1, 2, o.number",
          )
          .all(),
      );
    }
    add(
      "document",
      db
        .query(
          "SELECT s.source AS s_source, s.session_id AS s_session, d.* FROM documents d JOIN sessions s ON s.id = d.session_rowid ORDER BY 1, 2, d.level, d.turn_number",
        )
        .all(),
    );
    add(
      "chunk",
      db
        .query(
          `SELECT s.source AS s_source, s.session_id AS s_session, d.level AS d_level, d.turn_number AS d_turn, c.* FROM chunks c
       JOIN documents d ON d.id = c.document_id JOIN sessions s ON s.id = d.session_rowid ORDER BY 1, 2, 3, 4, c.chunk_index`,
        )
        .all(),
    );
    // mtime_ms is when the freshness check re-stats a container (a prompt history carries its scan time): not content
    add("container", db.query("SELECT path, source, fingerprint, size_bytes FROM containers ORDER BY path").all());
    add("meta", db.query("SELECT key, value FROM meta WHERE key LIKE 'containers_digest:%' ORDER BY key").all());
    add("fts", [db.query("SELECT count(*) AS rows FROM documents_fts").get()]);
    for (const word of options.words ?? []) {
      add(
        `match:${word}`,
        db
          .query(
            `SELECT s.session_id, d.level, d.turn_number FROM documents_fts f JOIN documents d ON d.id = f.rowid
         JOIN sessions s ON s.id = d.session_rowid WHERE documents_fts MATCH ? ORDER BY 1, 2, 3`,
          )
          .all(`"${word}"`),
      );
    }
    // the keyword posting lists (issue 42): the same documents and counts as FTS5, and each word's live postings
    add("keyword postings match FTS5", [totalsInStep(db) !== undefined]);
    const stale = staleDocuments(db);
    const documentOf = db.query<{ key: string }, [number]>(
      "SELECT s.session_id || ' ' || d.level || ' ' || d.turn_number AS key FROM documents d JOIN sessions s ON s.id = d.session_rowid WHERE d.id = ?",
    );
    for (const word of options.words ?? []) {
      const list = readTermPostings(db, keywordTokens(word)[0] ?? word, stale);
      const postings = [...list.positions].map(
        (id, i) => `${documentOf.get(id)?.key} f=${list.frequencies[i]} length=${list.lengths[i]}`,
      );
      add(`postings:${word}`, postings.sort());
    }
    db.exec("INSERT INTO documents_fts(documents_fts) VALUES ('integrity-check')");
    return lines;
  } finally {
    db.close();
  }
}

/** Row counts of the tables that hold session text, for tests that assert a run kept or dropped nothing. */
export interface TextRowCounts {
  sessions: number;
  turns: number;
  /** Rows of `turn_outputs` (archived tool outputs); 0 when the table does not exist. */
  outputs: number;
  documents: number;
  chunks: number;
  /** Rows of the FTS5 table `documents_fts`. */
  fts: number;
}

/** Count the rows of every text-bearing table of the index under `recallHome` (opened read-only). */
export function countTextRows(recallHome: string): TextRowCounts {
  const db = new Database(databasePath(recallHome), { readonly: true });
  try {
    const count = (table: string) =>
      hasTable(db, table) ? (db.query(`SELECT count(*) AS n FROM ${table}`).get() as { n: number }).n : 0;
    return {
      sessions: count("sessions"),
      turns: count("turns"),
      outputs: count("turn_outputs"),
      documents: count("documents"),
      chunks: count("chunks"),
      fts: count("documents_fts"),
    };
  } finally {
    db.close();
  }
}
