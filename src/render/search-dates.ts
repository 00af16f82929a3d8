/**
 * How a search answer shows the dates its query named (issue 13, "time in the query"; search/dates/time-query.ts reads
 * them, search/dates/time-boost.ts ranks by them): one text line for people, and the `dates` array of the JSON answer
 * (`recall search --json` and the MCP `search` tool).
 */
import { isoLocalDate } from "../search/dates/calendar.ts";
import type { UnderstoodDate } from "../search/dates/time-boost.ts";
import { isoTime } from "./format.ts";

/**
 * The JSON form of the understood dates, in query order: `text` (the words), `label` (what they were read as),
 * `since` and `until` (ISO-8601 UTC instants of the range's first and last millisecond, both inclusive like
 * `--since`/`--until`; the range is in the local time zone, so local midnight shows as e.g. `…T22:00:00.000Z` east
 * of UTC; null for an open end), and `applied` (false when no candidate fell in or near the range, so the ranking
 * ignored it).
 * Example: `[{"text": "in July 2022", "label": "July 2022", "since": "2022-07-01T00:00:00.000Z",
 *   "until": "2022-07-31T23:59:59.999Z", "applied": true}]`.
 */
export function datesJson(dates: readonly UnderstoodDate[]) {
  return dates.map((date) => ({
    text: date.text,
    label: date.label,
    since: date.since === null ? null : isoTime(date.since),
    until: date.until === null ? null : isoTime(date.until),
    applied: date.applied,
  }));
}

/**
 * One line naming the understood dates with their local calendar days, or undefined when the query named none.
 * Examples: `dates understood: "in July 2022" → 2022-07-01 … 2022-07-31`;
 *   `dates understood: "before Christmas" → … 2025-12-23; "in June" → 2026-06-01 … 2026-06-30 (no result then, not used)`.
 */
export function datesUnderstoodLine(dates: readonly UnderstoodDate[]): string | undefined {
  if (dates.length === 0) return undefined;
  const day = (at: number | null) => (at === null ? "" : isoLocalDate(at));
  const parts = dates.map(
    (date) =>
      `"${date.text}" → ${`${day(date.since)} … ${day(date.until)}`.trim()}${date.applied ? "" : " (no result then, not used)"}`,
  );
  return `dates understood: ${parts.join("; ")}`;
}
