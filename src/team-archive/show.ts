/**
 * Level 3 from the team archive (issue 30): a pushed session's turns as the archive holds them (the redacted prompt
 * and answer, and each tool call's stored summary: name, input, file, error flag; outputs are never pushed).
 */
import type { StoredToolCall } from "../index/write/writer.ts";
import { SessionLookupError } from "../errors.ts";
import type { ArchiveConnection } from "./connection.ts";
import {
  type ArchiveSessionRow,
  type ArchiveSessionSummary,
  archiveSessionColumns,
  toArchiveSummary,
} from "./sessions.ts";

/** One archived turn. */
export interface ArchiveTurn {
  number: number;
  timestamp: number;
  prompt: string;
  response: string;
  tools: StoredToolCall[];
  files: string[];
}

/** An archived session with the turns asked for. */
export interface ArchiveSession {
  session: ArchiveSessionSummary;
  turns: ArchiveTurn[];
}

/**
 * Read session `target` from the archive: its archive id (digits, as search prints it), or the tool's session id or
 * a unique prefix of it (8+ characters), among the rows the role may see; turns `from`…`to` (inclusive; `to`
 * undefined = to the end).
 * @throws SessionLookupError SESSION_NOT_FOUND, or SESSION_AMBIGUOUS (the id was pushed from several machines or
 *         teams: give the archive id) with the candidates
 */
export async function readArchiveSession(
  connection: ArchiveConnection,
  target: string,
  from = 1,
  to?: number,
): Promise<ArchiveSession> {
  const rows = await connection.query<ArchiveSessionRow>(
    `SELECT ${archiveSessionColumns} FROM recall.sessions s
     WHERE ($1 ~ '^[0-9]+$' AND s.id = $1::bigint) OR s.session_id = $1
        OR (length($1) >= 8 AND substr(s.session_id, 1, length($1)) = $1)
     ORDER BY (s.id::text = $1) DESC, (s.session_id = $1) DESC, s.ended_at DESC LIMIT 21`,
    [target],
  );
  const exact = rows.filter((row) => row.id === target || row.session_id === target);
  const chosen = exact.length === 1 ? exact : rows;
  if (chosen.length === 0)
    throw new SessionLookupError(
      "SESSION_NOT_FOUND",
      `no session in the archive matches ${target}`,
      [],
      "find it with recall search --archive",
    );
  if (chosen.length > 1)
    throw new SessionLookupError(
      "SESSION_AMBIGUOUS",
      `${target} matches ${chosen.length > 20 ? "more than 20" : chosen.length} sessions in the archive`,
      chosen
        .slice(0, 20)
        .map((row) => `${row.id}  ${row.session_id}  ${row.project_name}  by ${row.pushed_by}@${row.machine}`),
      "give the archive id (the first column)",
    );
  const row = chosen[0]!;
  const turns = await connection.query<{
    number: number;
    timestamp: string;
    prompt: string;
    response: string;
    tools: StoredToolCall[];
    files: string[];
  }>(
    "SELECT number, timestamp, prompt, response, tools, files FROM recall.turns WHERE session = $1 AND number >= $2 AND ($3::integer IS NULL OR number <= $3) ORDER BY number",
    [row.id, from, to ?? null],
  );
  return {
    session: toArchiveSummary(row),
    turns: turns.map((turn) => ({ ...turn, timestamp: Number(turn.timestamp) })),
  };
}
