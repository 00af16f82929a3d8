/**
 * Level 3 from the team archive (issue 30): a pushed session's turns as the archive holds them (the redacted prompt
 * and answer, and each tool call's stored summary: name, input, file, error flag; outputs are never pushed).
 */
import type { StoredToolCall } from "../index/write/writer.ts";
import { SessionLookupError, TurnNotFoundError } from "../errors.ts";
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
  /** The session, its abstract whole (issue 41: a listing cuts each part to 600 characters, level 3 does not). */
  session: ArchiveSessionSummary;
  turns: ArchiveTurn[];
}

/**
 * Read session `target` from the archive: its archive id (digits, as search prints it), or the tool's session id or
 * a unique prefix of it (8+ characters), among the rows the role may see; turns `from`…`to` (inclusive; `to`
 * undefined = to the end).
 * @throws SessionLookupError SESSION_NOT_FOUND, or SESSION_AMBIGUOUS (the id was pushed from several machines or
 *         teams: give the archive id) with the candidates; TurnNotFoundError when `from` is past the last turn
 */
export async function readArchiveSession(
  connection: ArchiveConnection,
  target: string,
  from = 1,
  to?: number,
): Promise<ArchiveSession> {
  const matches = await matchingSessions(connection, target);
  const exact = matches.filter((row) => row.id === target || row.session_id === target);
  const chosen = exact.length === 1 ? exact : matches;
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
  // as local show (search/reading/turn-range.ts): a session without turns shows its header for turn 1; a later turn is an error
  if (from > Math.max(1, row.turn_count))
    throw new TurnNotFoundError(
      `session ${row.session_id} has ${row.turn_count} turn${row.turn_count === 1 ? "" : "s"}; turn ${from} does not exist`,
      `its turns are 1-${row.turn_count}`,
    );
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
    session: toArchiveSummary(row, true),
    turns: turns.map((turn) => ({ ...turn, timestamp: Number(turn.timestamp) })),
  };
}

/**
 * The tool's session id that `target` names in the archive (`search --archive --session`): an archive id, a session
 * id, or a unique prefix of one (8+ characters). Copies pushed from several machines share the id, so they count once.
 * @throws SessionLookupError SESSION_NOT_FOUND, or SESSION_AMBIGUOUS (a prefix of several session ids)
 */
export async function resolveArchiveSessionId(connection: ArchiveConnection, target: string): Promise<string> {
  const matches = await matchingSessions(connection, target);
  const ids = [...new Set(matches.map((row) => row.session_id))];
  if (ids.length > 1 && !ids.includes(target))
    throw new SessionLookupError(
      "SESSION_AMBIGUOUS",
      `${target} matches ${ids.length > 20 ? "more than 20" : ids.length} sessions in the archive`,
      ids.slice(0, 20),
      "give more characters of the id",
    );
  return ids.includes(target) ? target : ids[0]!;
}

/**
 * Rows the role may see whose session id is `target` or starts with it (8+ characters), at most 21, newest first; when
 * none does and `target` is digits, the row with that archive id (a session id may start with digits too: it wins).
 * @throws SessionLookupError SESSION_NOT_FOUND
 */
async function matchingSessions(connection: ArchiveConnection, target: string): Promise<ArchiveSessionRow[]> {
  let rows = await connection.query<ArchiveSessionRow>(
    `SELECT ${archiveSessionColumns} FROM recall.sessions s
     WHERE s.session_id = $1 OR (length($1) >= 8 AND substr(s.session_id, 1, length($1)) = $1)
     ORDER BY (s.session_id = $1) DESC, s.ended_at DESC LIMIT 21`,
    [target],
  );
  if (rows.length === 0 && /^[0-9]{1,18}$/.test(target))
    rows = await connection.query<ArchiveSessionRow>(
      `SELECT ${archiveSessionColumns} FROM recall.sessions s WHERE s.id = $1::bigint`,
      [target],
    );
  if (rows.length === 0)
    throw new SessionLookupError(
      "SESSION_NOT_FOUND",
      `no session in the archive matches ${target}`,
      [],
      "find it with recall search --archive or recall sessions --archive",
    );
  return rows;
}
