/**
 * Writes parsed sessions into the index, in two steps. {@link prepareSession} turns a redacted parse result into
 * the values of its rows (JSON columns, the compressed tool outputs, document texts with their hashes and
 * side-index text); it runs on the parse workers (parse-pipeline.ts), so the writing thread runs little but SQL.
 * {@link writePreparedSessions} writes a batch of them inside the caller's transaction. Rows are updated in
 * place where they did not change, so a resumed parse (an appended Claude file) touches only the
 * turns from `fromTurn` on, and unchanged documents keep their ids (and so their chunks and
 * vectors): an append of one turn re-embeds one turn document and the session document only.
 * Each written turn also stores its tool outputs, capped and compressed (archive.ts), for level 3 once the
 * source is gone; a written session is `present`, seen at the run's time.
 */
import type { Database } from "bun:sqlite";
import {
  isRewound,
  mainModel,
  type ModelUsage,
  plusCount,
  type ParseResult,
  type Session,
  type SkipReport,
  type SourceUnit,
  type Turn,
} from "../../parsers/index.ts";
import { redactUnitLocator } from "../../redact/index.ts";
import { encodeTurnOutputs } from "../store/archive.ts";
import { unsegmentedDocumentText, writeUnsegmented } from "./cjk.ts";
import {
  buildSessionDocument,
  buildTurnDocument,
  hashDocument,
  searchableChars,
  storedAbstract,
  type DocumentText,
} from "./documents.ts";
import { derivedTitleOf } from "./derived-title.ts";
import { replaceSessionSkips } from "./not-kept.ts";
import { encodeResumeState } from "../store/resume-state.ts";
import { type PackedDocumentTerms, packedDocumentTerms } from "../postings/document-terms.ts";
import { KeywordSegmentWriter, retireKeywordDocument } from "../postings/keyword-postings.ts";

/** The tools column of `turns`: compact calls without outputs (JSON array). */
export type StoredToolCall = Pick<
  Turn["toolCalls"][number],
  "name" | "input" | "isError" | "filePath" | "linesAdded" | "linesRemoved" | "subagentSessionId"
>;

const storedCalls = (turn: Turn): StoredToolCall[] =>
  turn.toolCalls.map(({ name, input, isError, filePath, linesAdded, linesRemoved, subagentSessionId }) => ({
    name,
    input,
    isError,
    ...(filePath === undefined ? {} : { filePath }),
    ...(linesAdded === undefined ? {} : { linesAdded }),
    ...(linesRemoved === undefined ? {} : { linesRemoved }),
    ...(subagentSessionId === undefined ? {} : { subagentSessionId }),
  }));

/** A document as the writer stores it: the four FTS columns, the hashes of `documents`, the `documents_cjk` text. */
export interface PreparedDocument {
  heading: string;
  body: string;
  extra: string;
  abstract: string;
  /** documents.ts {@link hashDocument} of the searched columns and of the embedded text. */
  textHash: string;
  embedHash: string;
  /** cjk.ts `unsegmentedDocumentText`: the side-index text, "" when the document has none. */
  unsegmented: string;
  /** The searched columns' BM25 inputs, for the keyword posting lists (index/postings/keyword-postings.ts). */
  terms: PackedDocumentTerms;
}

/** Everything the writer needs of a document, computed from its text. */
export function prepareDocument(text: DocumentText): PreparedDocument {
  return {
    heading: text.heading,
    body: text.body,
    extra: text.extra,
    abstract: text.abstract,
    ...hashDocument(text),
    unsegmented: unsegmentedDocumentText(text),
    terms: packedDocumentTerms(text),
  };
}

/** One turn, as the values of its `turns`, `turn_outputs` and `documents` rows. */
export interface PreparedTurn {
  number: number;
  /** Epoch ms UTC. */
  timestamp: number;
  prompt: string;
  response: string;
  /** `turns.tools`: JSON array of {@link StoredToolCall}. */
  tools: string;
  /** `turns.files`: JSON array of paths. */
  files: string;
  /** `turn_outputs.outputs` (archive.ts `encodeTurnOutputs`); absent when no call has an output. */
  outputs?: Uint8Array;
  document: PreparedDocument;
  /** The usage columns (schema v12): see {@link usageRow}; all null when the source recorded none. */
  usage: UsageRow;
}

/**
 * The usage columns of one turn (schema v12): `model` the main model (parsers/usage.ts `mainModel`), the token counts
 * and recorded cost in USD summed over its models (null when no model recorded that count), `usage` the JSON of
 * `Turn.usage` (`ModelUsage[]`). All null when the turn has no usage.
 */
export interface UsageRow {
  model: string | null;
  inputTokens: number | null;
  outputTokens: number | null;
  cacheReadTokens: number | null;
  cacheWriteTokens: number | null;
  costUsd: number | null;
  usage: string | null;
}

/** The {@link UsageRow} of a turn's usage list (absent or empty: every column null). */
export function usageRow(usage: readonly ModelUsage[] | undefined): UsageRow {
  const sum = (key: "input" | "output" | "cacheRead" | "cacheWrite" | "costUsd") =>
    (usage ?? []).reduce<number | null>((total, entry) => plusCount(total, entry[key]), null);
  return {
    model: mainModel(usage ?? []),
    inputTokens: sum("input"),
    outputTokens: sum("output"),
    cacheReadTokens: sum("cacheRead"),
    cacheWriteTokens: sum("cacheWrite"),
    costUsd: sum("costUsd"),
    usage: usage && usage.length > 0 ? JSON.stringify(usage) : null,
  };
}

/** A parse result as the values of its rows (see {@link prepareSession}). */
export interface PreparedSession {
  session: Session;
  /** As in `ParseResult`: turns from this number on are replaced (a full parse: 1). */
  fromTurn: number;
  turns: PreparedTurn[];
  /** `resume_states.state`: the parse's resume state as store/resume-state.ts encodes it, or null (no row). */
  resume: Uint8Array | null;
  /**
   * The session document, `sessions.files` (JSON array, unique paths in first-touch order) and
   * `sessions.derived_title` (derived-title.ts) when `turns` are every turn of the session (`fromTurn` 1), else
   * undefined. The writer uses them for a session new to the index and otherwise builds them from the stored turns.
   */
  whole?: { document: PreparedDocument; files: string; derivedTitle: string | null };
  /** As in `ParseResult`. */
  bytesRead: number;
  skipped: SkipReport;
}

/**
 * The row values of a redacted parse result: JSON columns, compressed tool outputs, prepared documents.
 * Pure (no database), so the parse workers run it; `result.turns` are in turn order, as every parser returns them.
 */
export function prepareSession(result: ParseResult): PreparedSession {
  const turns = result.turns.map((turn): PreparedTurn => {
    const prepared: PreparedTurn = {
      number: turn.number,
      timestamp: turn.timestamp,
      prompt: turn.prompt,
      response: turn.response,
      tools: JSON.stringify(storedCalls(turn)),
      files: JSON.stringify(turn.files),
      document: prepareDocument(buildTurnDocument(turn)),
      usage: usageRow(turn.usage),
    };
    const outputs = encodeTurnOutputs(turn);
    if (outputs) prepared.outputs = outputs;
    return prepared;
  });
  const prepared: PreparedSession = {
    session: coveringTurnTimes(result.session, result.turns),
    fromTurn: result.fromTurn,
    turns,
    resume: result.resume ? encodeResumeState(result.resume) : null,
    bytesRead: result.bytesRead,
    skipped: result.skipped,
  };
  if (result.fromTurn === 1) {
    // The session document describes the main conversation: rewound turns (issue 26) have their own documents only.
    const main = result.turns.filter((turn) => !isRewound(turn));
    const files = [...new Set(main.flatMap((turn) => turn.files))];
    const prompts = main.map((turn) => turn.prompt);
    prepared.whole = {
      document: prepareDocument(buildSessionDocument(result.session, prompts, files)),
      files: JSON.stringify(files),
      derivedTitle: derivedTitleOf(prompts),
    };
  }
  return prepared;
}

/**
 * The session with `startedAt`…`endedAt` widened to cover its turns' times (those above 0, epoch ms): a filtered
 * keyword search keeps a turn by its own time only among the sessions whose range overlaps the filter
 * (search/ranking/document-mask.ts), and a level-1 `--since` compares `ended_at`. A parser's own range is kept when it
 * already covers them (every fixture and corpus session did); a resumed parse widens it by its new turns.
 */
function coveringTurnTimes(session: Session, turns: ParseResult["turns"]): Session {
  let first = session.startedAt > 0 ? session.startedAt : Number.POSITIVE_INFINITY;
  let last = session.endedAt;
  for (const turn of turns)
    if (turn.timestamp > 0) {
      if (turn.timestamp < first) first = turn.timestamp;
      if (turn.timestamp > last) last = turn.timestamp;
    }
  const startedAt = Number.isFinite(first) ? first : session.startedAt;
  return startedAt === session.startedAt && last === session.endedAt
    ? session
    : { ...session, startedAt, endedAt: last };
}

/** Id of the indexed session row for a unit (by unit key or by source + session id), or undefined. */
function findSessionRow(
  db: Database,
  unit: Pick<SourceUnit, "key" | "source" | "sessionId">,
): { id: number; unit_key: string } | undefined {
  return (
    db
      .query<{ id: number; unit_key: string }, [string]>("SELECT id, unit_key FROM sessions WHERE unit_key = ?")
      .get(unit.key) ??
    db
      .query<{ id: number; unit_key: string }, [string, string]>(
        "SELECT id, unit_key FROM sessions WHERE source = ? AND session_id = ?",
      )
      .get(unit.source, unit.sessionId) ??
    undefined
  );
}

/** One session to write: the unit it came from and its prepared parse result. */
export interface SessionToWrite {
  unit: SourceUnit;
  result: PreparedSession;
}

/** Inserts one row of `documents_fts`; parameters: id, heading, body, extra, abstract. */
const insertFtsSql = "INSERT INTO documents_fts(rowid, heading, body, extra, abstract) VALUES (?, ?, ?, ?, ?)";

/**
 * Rows of the FTS5 tables (`documents_fts`, `documents_cjk`) waiting to be inserted at the end of a batch. Any
 * statement that opens a statement journal (a RETURNING clause, a trigger, a foreign-key cascade) makes SQLite call
 * the savepoint method of every FTS5 table written in the transaction, and FTS5 then flushes its pending terms to
 * disk as a new segment. Interleaved with the other rows, that was one small segment per document plus the merges
 * they force: writing the 25,292 sessions of the generated 20k corpus in one thread took 42.2 s (10.5 s of it in
 * document inserts and deletes that each flushed the FTS5 table) against 32.2 s with the FTS rows written last
 * (2026-11-23, 2-core Xeon, same parse results, back to back). test/index/write/writer.test.ts checks the one segment.
 */
class PendingFtsRows {
  private rows: Array<{ id: number; document: PreparedDocument }> = [];

  add(id: number, document: PreparedDocument): void {
    this.rows.push({ id, document });
  }

  /** Insert every pending row (documents new in this transaction: nothing to delete first), in the order added. */
  flush(db: Database): void {
    if (this.rows.length === 0) return;
    const insertFts = db.query(insertFtsSql);
    for (const { id, document } of this.rows) {
      insertFts.run(id, document.heading, document.body, document.extra, document.abstract);
      writeUnsegmented(db, id, document.unsegmented, true); // issue 13: trigram side index of CJK/Thai/... tokens (cjk.ts)
    }
    this.rows = [];
  }
}

/**
 * Write a batch of prepared sessions inside the caller's transaction, each marked `present` and seen at `seenAt`
 * (epoch ms): a new session is inserted; one already indexed (same unit key, or same source and session id) gets
 * its session row updated and its turns from `fromTurn` on replaced. The FTS rows of new sessions are inserted
 * last, in one run (see PendingFtsRows); a session already in the index first flushes what is pending, so its
 * deletes and replacements see every row written before it, exactly as when each session is written in turn.
 * @param keywords the index run's keyword posting lists writer, which writes a segment once it holds enough documents
 *        (keyword-postings.ts); without one, the batch's documents are written as a segment of their own
 */
export function writePreparedSessions(
  db: Database,
  sessions: readonly SessionToWrite[],
  seenAt: number,
  keywords?: KeywordSegmentWriter,
): void {
  const pending = new PendingFtsRows();
  const writer = keywords ?? new KeywordSegmentWriter();
  for (const { unit, result } of sessions) writeSession(db, unit, result, seenAt, pending, writer);
  pending.flush(db);
  if (keywords) keywords.flushWhenFull(db);
  else writer.flush(db);
}

function writeSession(
  db: Database,
  unit: SourceUnit,
  prepared: PreparedSession,
  seenAt: number,
  pending: PendingFtsRows,
  keywords: KeywordSegmentWriter,
): void {
  const existing = findSessionRow(db, unit);
  if (existing) pending.flush(db);
  const isNew = existing === undefined;
  const whole = isNew ? prepared.whole : undefined;
  const fromTurn = isNew ? 1 : prepared.fromTurn;
  const rowid = upsertSessionRow(db, unit, prepared, existing?.id, seenAt, whole);
  storeResumeState(db, rowid, prepared.resume, isNew);
  replaceSessionSkips(db, rowid, prepared.skipped);
  // A full parse (from turn 1) also returns the rewound turns (negative numbers, issue 26) and replaces them; a resumed
  // one never holds any and leaves them as they are.
  const replacesRewound = fromTurn === 1;
  // Deleting turns cascades to their turn_outputs rows; a new session has none.
  if (!isNew)
    db.query(
      `DELETE FROM turns WHERE session_rowid = ? AND (number >= ?${replacesRewound ? " OR number < 0" : ""})`,
    ).run(rowid, fromTurn);
  const insertTurn = db.query(
    `INSERT INTO turns(session_rowid, number, timestamp, prompt, response, tools, files, prompt_chars, model, input_tokens,
      output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, usage) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const insertOutputs = db.query("INSERT INTO turn_outputs(session_rowid, number, outputs) VALUES (?, ?, ?)");
  const newSessionFts = isNew ? pending : undefined;
  let rewoundCount = 0;
  for (const turn of prepared.turns) {
    if (turn.number < 0) {
      if (!replacesRewound) continue;
      rewoundCount++;
    } else if (turn.number < fromTurn) continue;
    // A prompt longer than its searchable part keeps its length, so level 2 never reads it whole to count it (issue 37).
    const promptChars = turn.prompt.length > searchableChars ? turn.prompt.length : null;
    const { usage } = turn;
    insertTurn.run(
      rowid,
      turn.number,
      turn.timestamp,
      turn.prompt,
      turn.response,
      turn.tools,
      turn.files,
      promptChars,
      usage.model,
      usage.inputTokens,
      usage.outputTokens,
      usage.cacheReadTokens,
      usage.cacheWriteTokens,
      usage.costUsd,
      usage.usage,
    );
    if (turn.outputs) insertOutputs.run(rowid, turn.number, turn.outputs);
    upsertDocument(db, rowid, "turn", turn.number, turn.document, keywords, newSessionFts);
  }
  if (!isNew)
    db.query(
      `DELETE FROM documents WHERE session_rowid = ? AND level = 'turn' AND (turn_number > ?${replacesRewound ? " OR turn_number < ?" : ""})`,
    ).run(rowid, prepared.session.turnCount, ...(replacesRewound ? [-rewoundCount] : []));
  if (whole) upsertDocument(db, rowid, "session", 0, whole.document, keywords, newSessionFts);
  else refreshSessionDocument(db, rowid, prepared.session, keywords, newSessionFts);
}

/**
 * Insert or update the session row; `whole` gives `files` and `derived_title` of an insert (an update leaves them to
 * refreshSessionDocument).
 */
function upsertSessionRow(
  db: Database,
  unit: SourceUnit,
  prepared: PreparedSession,
  existingId: number | undefined,
  seenAt: number,
  whole: PreparedSession["whole"],
): number {
  const s = prepared.session;
  const values = [
    s.source,
    s.id,
    unit.key,
    unit.containerPath,
    unit.changeKey,
    unit.locator ? JSON.stringify(redactUnitLocator(unit.locator)) : null, // Codex titles, working folders (issue 37)
    s.projectPath,
    s.projectName,
    s.gitBranch,
    s.startedAt,
    s.endedAt,
    s.title,
    s.abstract && s.abstract.length > 0 ? JSON.stringify(s.abstract) : null,
    s.turnCount,
    s.parentSessionId,
    s.isSubagent ? 1 : 0,
    s.location,
    prepared.skipped.count,
    seenAt,
    s.promptOnly ? 1 : 0,
  ] as const;
  if (existingId === undefined) {
    // No RETURNING clause: it would open a statement journal (see PendingFtsRows).
    const inserted = db
      .query<never, Array<(typeof values)[number]>>(
        `INSERT INTO sessions(source, session_id, unit_key, container_path, change_key, unit_locator, project_path, project_name, git_branch,
           started_at, ended_at, title, abstract, turn_count, parent_session_id, is_subagent, location,
           skipped_lines, last_seen_at, prompt_only, files, derived_title, source_status)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'present')`,
      )
      .run(...values, whole?.files ?? "[]", whole?.derivedTitle ?? null);
    return Number(inserted.lastInsertRowid);
  }
  db.query(
    `UPDATE sessions SET source = ?, session_id = ?, unit_key = ?, container_path = ?, change_key = ?, unit_locator = ?, project_path = ?,
       project_name = ?, git_branch = ?, started_at = ?, ended_at = ?, title = ?, abstract = ?, turn_count = ?, parent_session_id = ?,
       is_subagent = ?, location = ?, skipped_lines = ?, last_seen_at = ?, prompt_only = ?, source_status = 'present'
       WHERE id = ?`,
  ).run(...values, existingId);
  return existingId;
}

/**
 * Store a session's resume state (`resume_states`, its own table so that the session rows stay narrow; schema v17),
 * or remove it when the parse gave none. A new session has no row to replace: a plain insert, which opens no
 * statement journal (see PendingFtsRows).
 */
function storeResumeState(db: Database, rowid: number, resume: Uint8Array | null, isNew: boolean): void {
  if (isNew) {
    if (resume !== null) db.query("INSERT INTO resume_states(session_rowid, state) VALUES (?, ?)").run(rowid, resume);
    return;
  }
  if (resume === null) db.query("DELETE FROM resume_states WHERE session_rowid = ?").run(rowid);
  else
    db.query(
      "INSERT INTO resume_states(session_rowid, state) VALUES (?1, ?2) ON CONFLICT DO UPDATE SET state = excluded.state",
    ).run(rowid, resume);
}

/**
 * Insert a document, or replace its FTS row in place when its text changed (keeping its id, so its
 * chunks and vectors survive when only the searched columns changed, not the embedded text).
 * @param keywords gets every document whose FTS row is written, for the keyword posting lists
 * @param newSessionFts given for a session inserted in this transaction (it has no documents yet): the new
 *        document's FTS rows go there instead of being inserted now
 */
function upsertDocument(
  db: Database,
  rowid: number,
  level: "session" | "turn",
  turnNumber: number,
  document: PreparedDocument,
  keywords: KeywordSegmentWriter,
  newSessionFts?: PendingFtsRows,
): void {
  const { textHash, embedHash } = document;
  const current = newSessionFts
    ? null
    : db
        .query<{ id: number; text_hash: string; embed_hash: string }, [number, string, number]>(
          "SELECT id, text_hash, embed_hash FROM documents WHERE session_rowid = ? AND level = ? AND turn_number = ?",
        )
        .get(rowid, level, turnNumber);
  const insertFts = db.query(insertFtsSql);
  if (!current) {
    const id = Number(
      db
        .query<never, [number, string, number, string, string]>(
          "INSERT INTO documents(session_rowid, level, turn_number, text_hash, embed_hash) VALUES (?, ?, ?, ?, ?)",
        )
        .run(rowid, level, turnNumber, textHash, embedHash).lastInsertRowid,
    );
    keywords.add(id, document.terms);
    if (newSessionFts) newSessionFts.add(id, document);
    else {
      insertFts.run(id, document.heading, document.body, document.extra, document.abstract);
      writeUnsegmented(db, id, document.unsegmented, true); // issue 13: trigram side index of CJK/Thai/... tokens (cjk.ts)
    }
    return;
  }
  if (current.text_hash === textHash && current.embed_hash === embedHash) return;
  db.query("UPDATE documents SET text_hash = ?, embed_hash = ? WHERE id = ?").run(textHash, embedHash, current.id);
  if (current.text_hash !== textHash) {
    retireKeywordDocument(db, current.id);
    keywords.add(current.id, document.terms);
    db.query("DELETE FROM documents_fts WHERE rowid = ?").run(current.id);
    insertFts.run(current.id, document.heading, document.body, document.extra, document.abstract);
    writeUnsegmented(db, current.id, document.unsegmented); // issue 13: replaces the side-index row (cjk.ts)
  }
  // Its chunks (and so their vectors) are stale once the embedded text changed; the embedding phase re-chunks it.
  if (current.embed_hash !== embedHash) {
    db.query("DELETE FROM chunks WHERE document_id = ?").run(current.id);
    db.query("DELETE FROM next_chunks WHERE document_id = ?").run(current.id); // a model being swapped in (index/vectors/generations.ts)
  }
}

/**
 * Rebuild the session document of an indexed session from its stored row, turns and summary (issue 41: after `recall
 * summarize` stored a new summary), inside the caller's transaction. When its searched text changed, its FTS row is
 * replaced; when its embedded text changed, its chunks go and the next index run embeds it again.
 * @param rowid sessions.id; a rowid with no session row does nothing
 */
export function refreshStoredSessionDocument(db: Database, rowid: number): void {
  const row = db
    .query<{ title: string | null; project_name: string; abstract: string | null }, [number]>(
      "SELECT title, project_name, abstract FROM sessions WHERE id = ?",
    )
    .get(rowid);
  if (!row) return;
  const session = { title: row.title, projectName: row.project_name, abstract: storedAbstract(row.abstract) };
  const keywords = new KeywordSegmentWriter();
  refreshSessionDocument(db, rowid, session, keywords, undefined);
  keywords.flush(db);
}

/**
 * Rebuild the document of one stored turn from its `turns` row (issue 43: `recall eval` withholds a commit command's
 * text from its turn inside a transaction it rolls back), inside the caller's transaction: its FTS row is replaced when
 * the searched text changed, its chunks go when the embedded text did.
 * @param rowid sessions.id; a turn with no row does nothing
 * @param turn the turn's number (1-based, as `turns.number`)
 */
export function refreshStoredTurnDocument(db: Database, rowid: number, turn: number): void {
  const row = db
    .query<{ prompt: string; response: string; tools: string; files: string }, [number, number]>(
      "SELECT prompt, response, tools, files FROM turns WHERE session_rowid = ? AND number = ?",
    )
    .get(rowid, turn);
  if (!row) return;
  const document = buildTurnDocument({
    prompt: row.prompt,
    response: row.response,
    toolCalls: JSON.parse(row.tools) as StoredToolCall[],
    files: JSON.parse(row.files) as string[],
  });
  const keywords = new KeywordSegmentWriter();
  upsertDocument(db, rowid, "turn", turn, prepareDocument(document), keywords);
  keywords.flush(db);
}

/** Rebuild the session document and the session's file list from all of its stored turns and its summary. */
function refreshSessionDocument(
  db: Database,
  rowid: number,
  session: Pick<Session, "title" | "projectName" | "abstract">,
  keywords: KeywordSegmentWriter,
  newSessionFts: PendingFtsRows | undefined,
): void {
  const rows = db
    .query<{ prompt: string; files: string }, [number]>(
      "SELECT prompt, files FROM turns WHERE session_rowid = ? AND number > 0 ORDER BY number",
    )
    .all(rowid);
  const files = new Set<string>();
  for (const row of rows) for (const file of JSON.parse(row.files) as string[]) files.add(file);
  const fileList = [...files];
  const derivedTitle = derivedTitleOf(rows.map((row) => row.prompt));
  const summary =
    db.query<{ text: string | null }, [number]>("SELECT text FROM summaries WHERE session_rowid = ?").get(rowid)
      ?.text ?? null;
  db.query("UPDATE sessions SET files = ?, derived_title = ? WHERE id = ?").run(
    JSON.stringify(fileList),
    derivedTitle,
    rowid,
  );
  upsertDocument(
    db,
    rowid,
    "session",
    0,
    prepareDocument(
      buildSessionDocument(
        session,
        rows.map((row) => row.prompt),
        fileList,
        summary,
      ),
    ),
    keywords,
    newSessionFts,
  );
}
