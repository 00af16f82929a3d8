/**
 * "What was I doing around then" (issue 10, the MCP `timeline` tool): the turns just before and just after
 * an anchor, across sessions and projects, in time order. The anchor is a turn (`<session>:<turn>`) or a
 * time (the same date forms as `--since`: ISO or an age like `3d`).
 * Only sessions that can hold the nearest turns are read: those running at the anchor time plus the `n`
 * that ended last before it (or started first after it), each by the turns' primary key; the turns table
 * has no time index, and a scan of it would cost ~100 ms at 20k sessions.
 */
import type { Database } from "bun:sqlite";
import { TurnNotFoundError, UsageError } from "../../errors.ts";
import { filterSql, parseDateFilter, type SearchFilters } from "../listing/filters.ts";
import { findSession, type SessionSummary } from "../listing/sessions.ts";

/** A resolved anchor: a time (epoch ms UTC), and the turn it came from when it was one. */
export interface TimelineAnchor {
  at: number;
  session: SessionSummary | undefined;
  turn: number | undefined;
}

/** One turn of a timeline. Times in epoch ms UTC (0 when the source recorded none). */
export interface TimelineEntry {
  sessionId: string;
  source: SessionSummary["source"];
  project: string;
  projectPath: string;
  title: string | null;
  turn: number;
  totalTurns: number;
  timestamp: number;
  /** The whole human prompt of the turn. */
  prompt: string;
  /** True for the anchor turn itself. */
  isAnchor: boolean;
}

/** A timeline: `before` ends with the anchor turn (when the anchor is a turn); both lists oldest first. */
export interface Timeline {
  anchor: TimelineAnchor;
  before: TimelineEntry[];
  after: TimelineEntry[];
}

/** Options of {@link readTimeline}. */
export interface TimelineOptions {
  /** Turns wanted before the anchor (the anchor turn not counted); default 5. */
  before?: number;
  /** Turns wanted after the anchor; default 5. */
  after?: number;
  /** Project / source / sub-agent filters (dates are ignored: the anchor sets the time). */
  filters?: SearchFilters;
}

const looksLikeTime = (text: string) => /^\d{4}-\d{2}-\d{2}/.test(text) || /^\d+\s*[hdwmy]$/i.test(text);

/**
 * Resolve an anchor.
 * Examples: `2c5941bd:7` → turn 7 of that session, at its time; `2c5941bd` → its turn 1;
 *   `2026-03-01T10:00Z` → that time; `3d` → three days before `now`.
 * @throws UsageError for text that is neither, or turn 0; TurnNotFoundError for a turn the session does not have;
 *         SessionLookupError (findSession) for an unknown or ambiguous session
 */
export function resolveTimelineAnchor(db: Database, text: string, now = Date.now()): TimelineAnchor {
  const trimmed = text.trim();
  if (looksLikeTime(trimmed)) return { at: parseDateFilter(trimmed, now), session: undefined, turn: undefined };
  const match = /^([^:\s]+)(?::(\d+))?$/.exec(trimmed);
  if (!match)
    throw new UsageError(
      `cannot read the anchor "${text}"`,
      "give <session>:<turn> (e.g. 2c5941bd:7) or a time (2026-03-01T10:00, 3d)",
    );
  const session = findSession(db, match[1]!);
  const turn = match[2] === undefined ? 1 : Number(match[2]);
  if (turn < 1) throw new UsageError(`turn must be a whole number of at least 1, got ${turn}`);
  if (turn > Math.max(session.turns, 1))
    throw new TurnNotFoundError(
      `session ${session.sessionId} has ${session.turns === 1 ? "1 turn" : `${session.turns} turns`}; turn ${turn} does not exist`,
    );
  const row = db
    .query<{ timestamp: number }, [number, number]>(
      "SELECT timestamp FROM turns WHERE session_rowid = ? AND number = ?",
    )
    .get(session.rowid, turn);
  return { at: row && row.timestamp > 0 ? row.timestamp : session.startedAt, session, turn };
}

interface EntryRow {
  session_rowid: number;
  session_id: string;
  source: SessionSummary["source"];
  project_name: string;
  project_path: string;
  title: string | null;
  number: number;
  turn_count: number;
  timestamp: number;
  prompt: string;
}

const entryColumns =
  "t.session_rowid, s.session_id, s.source, s.project_name, s.project_path, s.title, t.number, s.turn_count, t.timestamp, t.prompt";

const toEntry = (row: EntryRow, anchor: TimelineAnchor): TimelineEntry => ({
  sessionId: row.session_id,
  source: row.source,
  project: row.project_name,
  projectPath: row.project_path,
  title: row.title,
  turn: row.number,
  totalTurns: row.turn_count,
  timestamp: row.timestamp,
  prompt: row.prompt,
  isAnchor: anchor.session?.rowid === row.session_rowid && anchor.turn === row.number,
});

/** Session rowids that can hold the nearest turns on one side of `at`. */
function candidateSessions(
  db: Database,
  filters: SearchFilters,
  at: number,
  side: "before" | "after",
  n: number,
): number[] {
  const filter = filterSql({ ...filters, since: undefined, until: undefined });
  const running = db
    .query<{ id: number }, Array<string | number>>(
      `SELECT s.id FROM sessions s WHERE ${filter.where} AND s.started_at <= ? AND s.ended_at >= ? ORDER BY s.ended_at DESC LIMIT 200`,
    )
    .all(...filter.params, at, at);
  const nearest =
    side === "before"
      ? db
          .query<{ id: number }, Array<string | number>>(
            `SELECT s.id FROM sessions s WHERE ${filter.where} AND s.ended_at < ? ORDER BY s.ended_at DESC LIMIT ?`,
          )
          .all(...filter.params, at, n)
      : db
          .query<{ id: number }, Array<string | number>>(
            `SELECT s.id FROM sessions s WHERE ${filter.where} AND s.started_at > ? ORDER BY s.started_at ASC LIMIT ?`,
          )
          .all(...filter.params, at, n);
  return [...new Set([...running, ...nearest].map((row) => row.id))];
}

function nearestTurns(
  db: Database,
  anchor: TimelineAnchor,
  filters: SearchFilters,
  side: "before" | "after",
  n: number,
): TimelineEntry[] {
  if (n === 0) return [];
  const ids = candidateSessions(db, filters, anchor.at, side, n);
  if (ids.length === 0) return [];
  const isAnchorRow = anchor.session ? "NOT (t.session_rowid = ? AND t.number = ?)" : "1";
  const anchorParams = anchor.session ? [anchor.session.rowid, anchor.turn!] : [];
  const [comparison, order] = side === "before" ? ["<=", "DESC"] : [">", "ASC"];
  const rows = db
    .query<EntryRow, number[]>(
      `SELECT ${entryColumns} FROM turns t JOIN sessions s ON s.id = t.session_rowid
       WHERE t.session_rowid IN (${ids.map(() => "?").join(",")}) AND t.timestamp > 0 AND t.timestamp ${comparison} ? AND ${isAnchorRow}
       ORDER BY t.timestamp ${order}, t.session_rowid, t.number ${order} LIMIT ?`,
    )
    .all(...ids, anchor.at, ...anchorParams, n);
  const entries = rows.map((row) => toEntry(row, anchor));
  return side === "before" ? entries.reverse() : entries;
}

/**
 * The turns around an anchor, across projects (unless filtered), oldest first on each side.
 * A turn anchor appears as the last entry of `before`, marked `isAnchor`; turns without a recorded time are
 * left out (they have no place on a timeline).
 */
export function readTimeline(db: Database, anchor: TimelineAnchor, options: TimelineOptions = {}): Timeline {
  const filters = options.filters ?? {};
  const before = nearestTurns(db, anchor, filters, "before", options.before ?? 5);
  if (anchor.session && anchor.turn !== undefined) {
    const row = db
      .query<EntryRow, [number, number]>(
        `SELECT ${entryColumns} FROM turns t JOIN sessions s ON s.id = t.session_rowid WHERE t.session_rowid = ? AND t.number = ?`,
      )
      .get(anchor.session.rowid, anchor.turn);
    if (row) before.push(toEntry(row, anchor));
  }
  return { anchor, before, after: nearestTurns(db, anchor, filters, "after", options.after ?? 5) };
}
