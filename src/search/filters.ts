/**
 * Search filters shared by both levels and both legs, and their SQL. Filters apply inside the
 * candidate query, before any top-k cut, so a filtered search never comes back short.
 * Dates: ISO (`2026-03-01`, `2026-03-01T10:00`) or relative to now (`12h`, `7d`, `2w`, `3m` months,
 * `1y`); `--until` with a bare date means the end of that day (UTC).
 */
import { UsageError } from "../errors.ts";
import { sourceIds, type SourceId } from "../parsers/types.ts";

/** Filters of a search; all optional. Times are epoch ms UTC. */
export interface SearchFilters {
  /** Case-insensitive substring of the project path or short name. */
  project?: string;
  source?: SourceId;
  since?: number;
  until?: number;
  /** Exact git branch. */
  branch?: string;
  /** Restrict to one session (level 2); the tool's own id, full. */
  sessionId?: string;
  /** Include sub-agent sessions (down-ranked); default false. */
  includeSubagents?: boolean;
  /** Only sessions whose last activity is strictly before this time (`recall forget --before`). */
  endedBefore?: number;
  /** Only sessions whose source is in this state ("deleted": the index holds the only copy); default both. */
  sourceStatus?: "present" | "deleted";
}

const unitMs: Record<string, number> = { h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000, m: 30 * 86_400_000, y: 365 * 86_400_000 };

/**
 * Parse a `--since`/`--until` value to epoch ms.
 * Examples: `7d` → now − 7 days; `2026-03-01` → 2026-03-01T00:00Z (or T23:59:59.999Z when `endOfDay`).
 * @throws UsageError for anything else
 */
/** True when `text` (YYYY-MM-DD) names the day `startMs` falls on: Date.parse rolls 2026-02-30 over to March 2. */
function isCalendarDate(text: string, startMs: number): boolean {
  return !Number.isNaN(startMs) && new Date(startMs).toISOString().slice(0, 10) === text;
}

export function parseDateFilter(value: string, now: number = Date.now(), endOfDay = false): number {
  const relative = /^(\d+)\s*([hdwmy])$/i.exec(value.trim());
  if (relative) return now - Number(relative[1]) * unitMs[relative[2]!.toLowerCase()]!;
  const text = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const start = Date.parse(`${text}T00:00:00Z`);
    if (!Number.isNaN(start) && isCalendarDate(text, start)) return endOfDay ? start + 86_400_000 - 1 : start;
  } else if (/^\d{4}-\d{2}-\d{2}T/.test(text)) {
    const parsed = Date.parse(text);
    // Checked on the date alone: an offset such as +02:00 may move the instant to another UTC day.
    if (!Number.isNaN(parsed) && isCalendarDate(text.slice(0, 10), Date.parse(`${text.slice(0, 10)}T00:00:00Z`))) return parsed;
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) throw new UsageError(`"${value}" is not a date in the calendar`, "use an existing day, like 2026-02-28");
  throw new UsageError(`cannot read the date "${value}"`, "use an ISO date like 2026-03-01 or a relative age like 7d, 2w, 3m");
}

/** Validate a `--source` value. @throws UsageError when it is not a known source */
export function parseSource(value: string): SourceId {
  if ((sourceIds as readonly string[]).includes(value)) return value as SourceId;
  throw new UsageError(`unknown source "${value}"`, `use one of: ${sourceIds.join(", ")}`);
}

/** A SQL fragment (ANDed conditions on the `s` sessions alias, and `t` turns alias at level 2) and its parameters. */
export interface FilterSql {
  where: string;
  params: Array<string | number>;
}

/**
 * Build the WHERE conditions for the filters.
 * @param turnTime column holding the time to compare at level 2 (`t.timestamp`), or undefined at level 1
 *        (then a session matches a date range when it overlaps it)
 */
export function filterSql(filters: SearchFilters, turnTime?: string): FilterSql {
  const conditions: string[] = [];
  const params: Array<string | number> = [];
  if (filters.project) {
    conditions.push("(instr(lower(s.project_path), ?) > 0 OR instr(lower(s.project_name), ?) > 0)");
    const needle = filters.project.toLowerCase();
    params.push(needle, needle);
  }
  if (filters.source) {
    conditions.push("s.source = ?");
    params.push(filters.source);
  }
  if (filters.branch) {
    conditions.push("s.git_branch = ?");
    params.push(filters.branch);
  }
  if (filters.sessionId) {
    conditions.push("s.session_id = ?");
    params.push(filters.sessionId);
  }
  if (filters.since !== undefined) {
    conditions.push(turnTime ? `${turnTime} >= ?` : "s.ended_at >= ?");
    params.push(filters.since);
  }
  if (filters.until !== undefined) {
    conditions.push(turnTime ? `${turnTime} <= ?` : "s.started_at <= ?");
    params.push(filters.until);
  }
  if (filters.endedBefore !== undefined) {
    conditions.push("s.ended_at < ?");
    params.push(filters.endedBefore);
  }
  if (filters.sourceStatus) {
    conditions.push("s.source_status = ?");
    params.push(filters.sourceStatus);
  }
  if (!filters.includeSubagents && !filters.sessionId) conditions.push("s.is_subagent = 0");
  return { where: conditions.length > 0 ? conditions.join(" AND ") : "1", params };
}
