/**
 * Search filters shared by both levels and both legs, and their SQL. Filters apply inside the
 * candidate query, before any top-k cut, so a filtered search never comes back short.
 * Dates: ISO (`2026-03-01`, `2026-03-01T10:00`), relative to now (`12h`, `7d`, `2w`, `3m` months, `1y`), or the
 * words a query's dates are read from (time-query.ts: `yesterday`, `last week`, `3 days ago`, `march`); a day is a
 * day in the local time zone, and `--until` with one means the end of that day.
 */
import { UsageError } from "../../errors.ts";
import { sourceIds, type SourceId } from "../../parsers/types.ts";
import { readDateWords } from "../dates/time-query.ts";

/** Filters of a search; all optional. Times are epoch ms UTC. */
export interface SearchFilters {
  /**
   * Case-insensitive substring of the project path or short name; {@link noProjectLabel} (any case, spaces trimmed)
   * selects the sessions without a project path instead.
   */
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
  /**
   * Only sessions whose last activity is strictly before this time (`recall forget --before`); a session with no date
   * (ended_at 0: its source recorded no time) is before no date, so it is left out (issue 38).
   */
  endedBefore?: number;
  /** Only sessions whose source is in this state ("deleted": the index holds the only copy); default both. */
  sourceStatus?: "present" | "deleted";
  /**
   * true: only sessions with at least one turn; false: only sessions without any (a Claude Code file holding only
   * `summary` or `file-history-snapshot` lines, an empty file; formats.md §1.1); default both.
   */
  hasTurns?: boolean;
}

const unitMs: Record<string, number> = {
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
  m: 30 * 86_400_000,
  y: 365 * 86_400_000,
};

/**
 * Local midnight of a `YYYY-MM-DD` day (process TZ), or NaN when the day is not in the calendar (2026-02-30:
 * the Date constructor rolls it over to March 2, which the round trip catches).
 */
function localMidnight(text: string): number {
  const [year, month, day] = text.split("-").map(Number) as [number, number, number];
  const date = new Date(year, month - 1, day);
  return date.getFullYear() === year && date.getMonth() === month - 1 && date.getDate() === day
    ? date.getTime()
    : Number.NaN;
}

/** The forms a `--since`/`--until`/`--before` value may take, for the error that refuses one (and the help). */
export const dateForms =
  "a date (2026-03-01, 2026-03-01T10:00), an age (12h, 7d, 2w, 3m, 1y) or words (today, yesterday, monday, last week, 3 days ago, march, 2025, christmas)";

/** True when {@link parseDateFilter} reads `value` without the date words (no chrono needed: arguments.ts). */
export function isNumericDate(value: string): boolean {
  return /^(\d+)\s*([hdwmy])$/i.test(value.trim()) || /^\d{4}-\d{2}-\d{2}/.test(value.trim());
}

/**
 * Parse a `--since`/`--until` value to epoch ms. Dates are read in the local time zone, as text output prints them.
 * Words are read as the query parser reads them (time-query.ts `readDateWords`; chrono's words only once its
 * `loadDateReader` has resolved, which front ends await: arguments.ts `loadDateWords`): the start of the day, week,
 * month, ... they name, or its last ms when `endOfDay`.
 * Examples: `7d` → now − 7 days; `2026-03-01` → local midnight starting that day (or the last ms of that local day
 * when `endOfDay`); `2026-03-01T10:00` → 10:00 local; `2026-03-01T10:00Z` / `…+02:00` → that instant;
 * `yesterday` → local midnight starting yesterday (or its last ms); `last week` → Monday 00:00 of last week.
 * @throws UsageError for a day not in the calendar, or anything else (naming the accepted forms)
 */
export function parseDateFilter(value: string, now: number = Date.now(), endOfDay = false): number {
  const relative = /^(\d+)\s*([hdwmy])$/i.exec(value.trim());
  if (relative) return now - Number(relative[1]) * unitMs[relative[2]!.toLowerCase()]!;
  const text = value.trim();
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) {
    const start = localMidnight(text);
    if (!Number.isNaN(start)) {
      if (!endOfDay) return start;
      const next = new Date(start);
      next.setDate(next.getDate() + 1); // 23 or 25 hours on a daylight-saving day
      return next.getTime() - 1;
    }
  } else if (/^\d{4}-\d{2}-\d{2}T/.test(text)) {
    const parsed = Date.parse(text);
    // Checked on the date alone: an offset such as +02:00 may move the instant to another day.
    if (!Number.isNaN(parsed) && !Number.isNaN(localMidnight(text.slice(0, 10)))) return parsed;
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(text))
    throw new UsageError(`"${value}" is not a date in the calendar`, "use an existing day, like 2026-02-28");
  const words = readDateWords(text, endOfDay ? "until" : "since", now);
  const at = endOfDay ? words?.until : words?.since;
  if (at !== undefined && at !== null) return at;
  throw new UsageError(`cannot read the date "${value}"`, `use ${dateForms}`);
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
 * The label of sessions whose source recorded no project folder (Cursor chats without a workspace folder, Gemini CLI
 * chats of an unknown hash folder, prompt histories): what `recall sessions` prints in the project column, what
 * `recall status` names their row, and a `--project` value every command accepts (issue 37).
 */
export const noProjectLabel = "(no project)";

/**
 * SQLite's default limit on a LIKE pattern, in bytes (SQLITE_MAX_LIKE_PATTERN_LENGTH, https://sqlite.org/limits.html):
 * a longer pattern fails with "LIKE or GLOB pattern too complex".
 */
const likePatternLimitBytes = 50_000;

/**
 * The `--project` condition: the project's path or name contains the text, ASCII letters in either case. SQLite's
 * `lower()` and its LIKE both fold ASCII letters only, so `instr(lower(x), needle) > 0` and `x LIKE '%needle%'` (the
 * needle's `%`, `_` and `\` escaped) keep the same sessions; LIKE does it without making a lower-case copy of every
 * value: 2.6 ms against 4.0 ms for the documents of one project among 20k sessions (bun:sqlite, warm, 2-core Xeon).
 * A needle whose pattern would pass SQLite's LIKE limit keeps the `instr` form.
 */
function projectContains(project: string): { sql: string; params: string[] } {
  const needle = project.toLowerCase();
  const pattern = `%${needle.replace(/[\\%_]/g, "\\$&")}%`;
  if (Buffer.byteLength(pattern) > likePatternLimitBytes)
    return {
      sql: "(instr(lower(s.project_path), ?) > 0 OR instr(lower(s.project_name), ?) > 0)",
      params: [needle, needle],
    };
  return {
    sql: "(s.project_path LIKE ? ESCAPE '\\' OR s.project_name LIKE ? ESCAPE '\\')",
    params: [pattern, pattern],
  };
}

/**
 * The join that gives a level-2 statement its turns' times for {@link filterSql}'s `t.timestamp` (`d` the turn's
 * document, `s` its session), from the narrow index `turns_time` (schema v24), not from the wide turn rows; CROSS JOIN
 * keeps SQLite from reading the turns before the session's own conditions dropped their documents.
 */
export const turnTimeJoin =
  "CROSS JOIN turns t INDEXED BY turns_time ON t.session_rowid = d.session_rowid AND t.number = d.turn_number";

/**
 * Build the WHERE conditions for the filters.
 * @param turnTime column holding the time to compare at level 2 (`t.timestamp`), or undefined at level 1
 *        (then a session matches a date range when it overlaps it). At level 2 a turn passes a date filter by its own
 *        time, and a turn without one (0) passes none; the session must overlap the range too, which every turn that
 *        passes does (the writer makes a session's range cover its turns' times, index/write/writer.ts) and which lets
 *        SQLite drop a session's documents before it reads their turns: a window of 800 documents at 20k sessions
 *        read 800 wide turn rows, 24–38 ms, to keep 11.
 */
export function filterSql(filters: SearchFilters, turnTime?: string): FilterSql {
  const conditions: string[] = [];
  const params: Array<string | number> = [];
  if (filters.project?.trim().toLowerCase() === noProjectLabel) conditions.push("s.project_path = ''");
  else if (filters.project) {
    const contains = projectContains(filters.project);
    conditions.push(contains.sql);
    params.push(...contains.params);
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
    conditions.push("s.ended_at >= ?");
    params.push(filters.since);
  }
  if (filters.until !== undefined) {
    conditions.push("s.started_at <= ?");
    params.push(filters.until);
  }
  if (turnTime && (filters.since !== undefined || filters.until !== undefined)) {
    conditions.push(`${turnTime} > 0`);
    if (filters.since !== undefined) {
      conditions.push(`${turnTime} >= ?`);
      params.push(filters.since);
    }
    if (filters.until !== undefined) {
      conditions.push(`${turnTime} <= ?`);
      params.push(filters.until);
    }
  }
  if (filters.endedBefore !== undefined) {
    conditions.push("s.ended_at > 0 AND s.ended_at < ?");
    params.push(filters.endedBefore);
  }
  if (filters.sourceStatus) {
    conditions.push("s.source_status = ?");
    params.push(filters.sourceStatus);
  }
  if (filters.hasTurns !== undefined) conditions.push(filters.hasTurns ? "s.turn_count > 0" : "s.turn_count = 0");
  if (!filters.includeSubagents && !filters.sessionId) conditions.push("s.is_subagent = 0");
  return { where: conditions.length > 0 ? conditions.join(" AND ") : "1", params };
}
