/**
 * Calendar periods in the user's local time zone, for the dates a query names (time-query.ts): the day, week,
 * weekend, month, season or year around an instant, and their labels. Weeks start on Monday (ISO 8601);
 * seasons are the northern meteorological ones (spring = March–May, summer = June–August, autumn = September–
 * November, winter = December to February, named by the year it starts in). Pure functions, no I/O; every time
 * is epoch ms, every period half-open [start, end).
 */

/** A stretch of time: [start, end) in epoch ms, and how to name it ("July 2023", "week of 16 Nov 2026"). */
export interface Period {
  start: number;
  end: number;
  label: string;
}

/** Units a named date can stand for; `hour` is ±1 hour around a time ("2 hours ago"). */
export type CalendarUnit = "hour" | "day" | "weekend" | "week" | "month" | "year";

/** English month names, January first (labels are English whatever the locale, like the rest of the output). */
export const monthNames = [
  "January",
  "February",
  "March",
  "April",
  "May",
  "June",
  "July",
  "August",
  "September",
  "October",
  "November",
  "December",
] as const;

const hourMs = 3_600_000;

/** Local midnight starting the given day (`monthIndex` 0–11; days past the month's end roll over, as `Date` does). */
export const localDay = (year: number, monthIndex: number, day: number): number =>
  new Date(year, monthIndex, day).getTime();

/** The local midnight at or before `at`. */
export function startOfDay(at: number): number {
  const date = new Date(at);
  return localDay(date.getFullYear(), date.getMonth(), date.getDate());
}

/** `at` moved by whole calendar days (local midnights stay midnights across daylight-saving changes). */
export function addDays(at: number, days: number): number {
  const date = new Date(at);
  date.setDate(date.getDate() + days);
  return date.getTime();
}

/** `at` moved by whole years (29 February becomes 1 March in a common year). */
export function addYears(at: number, years: number): number {
  const date = new Date(at);
  date.setFullYear(date.getFullYear() + years);
  return date.getTime();
}

/** Day label: `8 May 2023`. */
export function dayLabel(at: number): string {
  const date = new Date(at);
  return `${date.getDate()} ${monthNames[date.getMonth()]!.slice(0, 3)} ${date.getFullYear()}`;
}

/** Local calendar date as ISO `2023-05-08` (what text output prints for a range's ends). */
export function isoLocalDate(at: number): string {
  const date = new Date(at);
  return `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")}`;
}

/**
 * The period of `unit` that holds `at`.
 * Examples (local time): day of 2023-05-08T15:00 → [2023-05-08, 2023-05-09) "8 May 2023";
 *   week of Sun 2026-11-22 → [Mon 2026-11-16, Mon 2026-11-23) "week of 16 Nov 2026";
 *   weekend of Mon 2026-11-23 → the one just before: [Sat 2026-11-21, Mon 2026-11-23) "weekend of 21 Nov 2026";
 *   month → "July 2023"; year → "2023"; hour of 14:20 → [13:20, 15:20) "around 14:20 on 23 Nov 2026".
 */
export function periodOf(unit: CalendarUnit, at: number): Period {
  const date = new Date(at);
  const year = date.getFullYear();
  const month = date.getMonth();
  switch (unit) {
    case "hour": {
      const time = `${String(date.getHours()).padStart(2, "0")}:${String(date.getMinutes()).padStart(2, "0")}`;
      return { start: at - hourMs, end: at + hourMs, label: `around ${time} on ${dayLabel(at)}` };
    }
    case "day": {
      const start = startOfDay(at);
      return { start, end: addDays(start, 1), label: dayLabel(start) };
    }
    case "week": {
      const start = addDays(startOfDay(at), -((date.getDay() + 6) % 7));
      return { start, end: addDays(start, 7), label: `week of ${dayLabel(start)}` };
    }
    case "weekend": {
      // Saturday and Sunday; from Monday to Friday, the weekend just past.
      const start = addDays(startOfDay(at), -((date.getDay() + 1) % 7));
      return { start, end: addDays(start, 2), label: `weekend of ${dayLabel(start)}` };
    }
    case "month":
      return {
        start: localDay(year, month, 1),
        end: localDay(year, month + 1, 1),
        label: `${monthNames[month]} ${year}`,
      };
    case "year":
      return { start: localDay(year, 0, 1), end: localDay(year + 1, 0, 1), label: String(year) };
    default:
      return unit satisfies never;
  }
}

/** Seasons by name, with the month (0-based) each starts in; `fall` is `autumn`. */
export const seasonStartMonth = { spring: 2, summer: 5, autumn: 8, fall: 8, winter: 11 } as const;
export type SeasonName = keyof typeof seasonStartMonth;

/** A season of a year: three months from its start month; winter 2023 is December 2023 – February 2024. */
export function seasonPeriod(season: SeasonName, year: number): Period {
  const month = seasonStartMonth[season];
  const name = season === "fall" ? "autumn" : season;
  return { start: localDay(year, month, 1), end: localDay(year, month + 3, 1), label: `${name} ${year}` };
}

/**
 * The smallest period holding both (for "from May to July 2023", "two weeks before 11 Aug 2023").
 * Example: 1 May 2023 … 5 May 2023 → [2023-05-01, 2023-05-06) "1 May 2023 – 5 May 2023".
 */
export function spanOf(first: Period, last: Period): Period {
  const start = Math.min(first.start, last.start);
  const end = Math.max(first.end, last.end);
  return { start, end, label: `${dayLabel(start)} – ${dayLabel(end - 1)}` };
}
