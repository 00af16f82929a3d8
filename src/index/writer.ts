/**
 * Writes one parsed session into the index inside the caller's transaction. Rows are updated in
 * place where they did not change, so a resumed parse (an appended Claude file) touches only the
 * turns from `fromTurn` on, and unchanged documents keep their ids (and so their chunks and
 * vectors): an append of one turn re-embeds one turn document and the session document only.
 * Each written turn also stores its tool outputs, capped and compressed (archive.ts), for level 3 once the
 * source is gone; a written session is `present`, seen at the run's time.
 */
import type { Database } from "bun:sqlite";
import type { ParseResult, SourceUnit, Turn } from "../parsers/index.ts";
import { encodeTurnOutputs } from "./archive.ts";
import { writeUnsegmented } from "./cjk.ts";
import { buildSessionDocument, buildTurnDocument, hashDocument, type DocumentText } from "./documents.ts";

/** The tools column of `turns`: compact calls without outputs (JSON array). */
export type StoredToolCall = Pick<Turn["toolCalls"][number], "name" | "input" | "isError" | "filePath" | "linesAdded" | "linesRemoved">;

const storedCalls = (turn: Turn): StoredToolCall[] =>
  turn.toolCalls.map(({ name, input, isError, filePath, linesAdded, linesRemoved }) => ({
    name,
    input,
    isError,
    ...(filePath === undefined ? {} : { filePath }),
    ...(linesAdded === undefined ? {} : { linesAdded }),
    ...(linesRemoved === undefined ? {} : { linesRemoved }),
  }));

/** Id of the indexed session row for a unit (by unit key or by source + session id), or undefined. */
export function findSessionRow(db: Database, unit: Pick<SourceUnit, "key" | "source" | "sessionId">): { id: number; unit_key: string } | undefined {
  return (
    db.query<{ id: number; unit_key: string }, [string]>("SELECT id, unit_key FROM sessions WHERE unit_key = ?").get(unit.key) ??
    db.query<{ id: number; unit_key: string }, [string, string]>("SELECT id, unit_key FROM sessions WHERE source = ? AND session_id = ?").get(unit.source, unit.sessionId) ??
    undefined
  );
}

/** Delete one session and everything derived from it (turns, tool outputs, documents, FTS rows, chunks cascade). */
export function deleteSessionRow(db: Database, rowid: number): void {
  db.query("DELETE FROM sessions WHERE id = ?").run(rowid);
}

/**
 * Insert or update the session of `result` and its turns from `result.fromTurn` on; the session is marked
 * `present` and seen at `seenAt` (epoch ms).
 * @returns the session's rowid
 */
export function writeParsedSession(db: Database, unit: SourceUnit, result: ParseResult, seenAt: number = Date.now()): number {
  const existing = findSessionRow(db, unit);
  const fromTurn = existing ? result.fromTurn : 1;
  const rowid = upsertSessionRow(db, unit, result, existing?.id, seenAt);
  // Deleting turns cascades to their turn_outputs rows.
  db.query("DELETE FROM turns WHERE session_rowid = ? AND number >= ?").run(rowid, fromTurn);
  const insertTurn = db.query(
    "INSERT INTO turns(session_rowid, number, timestamp, prompt, response, tools, files) VALUES (?, ?, ?, ?, ?, ?, ?)",
  );
  const insertOutputs = db.query("INSERT INTO turn_outputs(session_rowid, number, outputs) VALUES (?, ?, ?)");
  for (const turn of result.turns) {
    if (turn.number < fromTurn) continue;
    insertTurn.run(rowid, turn.number, turn.timestamp, turn.prompt, turn.response, JSON.stringify(storedCalls(turn)), JSON.stringify(turn.files));
    const outputs = encodeTurnOutputs(turn);
    if (outputs) insertOutputs.run(rowid, turn.number, outputs);
    upsertDocument(db, rowid, "turn", turn.number, buildTurnDocument(turn), existing === undefined);
  }
  db.query("DELETE FROM documents WHERE session_rowid = ? AND level = 'turn' AND turn_number > ?").run(rowid, result.session.turnCount);
  refreshSessionDocument(db, rowid, result, existing === undefined);
  return rowid;
}

function upsertSessionRow(db: Database, unit: SourceUnit, result: ParseResult, existingId: number | undefined, seenAt: number): number {
  const s = result.session;
  const values = [
    s.source, s.id, unit.key, unit.containerPath, unit.changeKey, unit.locator ? JSON.stringify(unit.locator) : null, s.projectPath, s.projectName, s.gitBranch,
    s.startedAt, s.endedAt, s.title, s.turnCount, s.parentSessionId, s.isSubagent ? 1 : 0, s.location,
    result.resume ? JSON.stringify(result.resume) : null, result.skipped.count, seenAt, s.promptOnly ? 1 : 0,
  ] as const;
  if (existingId === undefined) {
    const row = db
      .query<{ id: number }, typeof values extends readonly (infer T)[] ? T[] : never>(
        `INSERT INTO sessions(source, session_id, unit_key, container_path, change_key, unit_locator, project_path, project_name, git_branch,
           started_at, ended_at, title, turn_count, parent_session_id, is_subagent, location, files, resume_state, skipped_lines,
           last_seen_at, prompt_only, source_status)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '[]', ?, ?, ?, ?, 'present') RETURNING id`,
      )
      .get(...values);
    return row!.id;
  }
  db.query(
    `UPDATE sessions SET source = ?, session_id = ?, unit_key = ?, container_path = ?, change_key = ?, unit_locator = ?, project_path = ?,
       project_name = ?, git_branch = ?, started_at = ?, ended_at = ?, title = ?, turn_count = ?, parent_session_id = ?,
       is_subagent = ?, location = ?, resume_state = ?, skipped_lines = ?, last_seen_at = ?, prompt_only = ?, source_status = 'present'
       WHERE id = ?`,
  ).run(...values, existingId);
  return existingId;
}

/**
 * Insert a document, or replace its FTS row in place when its text changed (keeping its id, so its
 * chunks and vectors survive when only the searched columns changed, not the embedded text).
 */
function upsertDocument(db: Database, rowid: number, level: "session" | "turn", turnNumber: number, text: DocumentText, isNewSession = false): void {
  const { textHash, embedHash } = hashDocument(text);
  // A session inserted in this transaction has no documents yet: skip the lookup.
  const current = isNewSession ? null : db
    .query<{ id: number; text_hash: string; embed_hash: string }, [number, string, number]>(
      "SELECT id, text_hash, embed_hash FROM documents WHERE session_rowid = ? AND level = ? AND turn_number = ?",
    )
    .get(rowid, level, turnNumber);
  const insertFts = db.query("INSERT INTO documents_fts(rowid, heading, body, extra) VALUES (?, ?, ?, ?)");
  if (!current) {
    const row = db
      .query<{ id: number }, [number, string, number, string, string]>(
        "INSERT INTO documents(session_rowid, level, turn_number, text_hash, embed_hash) VALUES (?, ?, ?, ?, ?) RETURNING id",
      )
      .get(rowid, level, turnNumber, textHash, embedHash)!;
    insertFts.run(row.id, text.heading, text.body, text.extra);
    writeUnsegmented(db, row.id, text, true); // issue 13: trigram side index of CJK/Thai/... tokens (cjk.ts)
    return;
  }
  if (current.text_hash === textHash && current.embed_hash === embedHash) return;
  db.query("UPDATE documents SET text_hash = ?, embed_hash = ? WHERE id = ?").run(textHash, embedHash, current.id);
  if (current.text_hash !== textHash) {
    db.query("DELETE FROM documents_fts WHERE rowid = ?").run(current.id);
    insertFts.run(current.id, text.heading, text.body, text.extra);
    writeUnsegmented(db, current.id, text); // issue 13: replaces the side-index row (cjk.ts)
  }
  // Its chunks (and so their vectors) are stale once the embedded text changed; the embedding phase re-chunks it.
  if (current.embed_hash !== embedHash) db.query("DELETE FROM chunks WHERE document_id = ?").run(current.id);
}

/** Rebuild the session document and the session's file list from all of its stored turns. */
function refreshSessionDocument(db: Database, rowid: number, result: ParseResult, isNewSession: boolean): void {
  const rows = db.query<{ prompt: string; files: string }, [number]>("SELECT prompt, files FROM turns WHERE session_rowid = ? ORDER BY number").all(rowid);
  const files = new Set<string>();
  for (const row of rows) for (const file of JSON.parse(row.files) as string[]) files.add(file);
  const fileList = [...files];
  db.query("UPDATE sessions SET files = ? WHERE id = ?").run(JSON.stringify(fileList), rowid);
  upsertDocument(db, rowid, "session", 0, buildSessionDocument(result.session, rows.map((row) => row.prompt), fileList), isNewSession);
}
