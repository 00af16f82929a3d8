/**
 * The calendar words chrono-node does not read (time-query.ts uses both): holidays, seasons, a year on its own
 * after a preposition, parts of a year, spans of years, and "this week" (chrono 2.10.3 reads it as the Sunday
 * before). Also the cheap pre-check that decides whether a query may name a date at all, so a keyword search
 * without one never loads chrono (~10–20 ms of start-up). Pure functions of the text and `now`; local time.
 */
import { localDay, periodOf, seasonPeriod, type Period, type SeasonName } from "./calendar.ts";

/** A date found in the text: [index, end) character offsets and the period it names. */
export interface NamedPeriod {
  index: number;
  end: number;
  period: Period;
  /** For a date said without its year ("Christmas", "in June"): the same date in earlier years, latest first. */
  earlier?: Period[];
}

/** How many earlier years a year-less date offers (time-boost.ts tries them when the latest one holds nothing). */
export const earlierYears = 10;

/**
 * Whether `text` may name a date: a month or weekday name, a relative word (today, ago, week, …), a holiday or
 * season, a 4-digit year 1900–2099, or a numeric date. False means parseTimeQuery can skip chrono entirely;
 * true only means "worth parsing" (`may`, `march`, `fall`, `port 2022` pass and then yield nothing).
 *   `"docker network timeout"` → false;  `"what broke last week"` → true;  `"port 2022"` → true
 */
export function mightNameDate(text: string): boolean {
  return dateWordPattern.test(text);
}

const dateWordPattern = new RegExp(
  [
    String.raw`\b(?:january|february|march|april|may|june|july|august|september|october|november|december|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\b`,
    String.raw`\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b`,
    String.raw`\b(?:weekends?|today|tonight|yesterday|tomorrow|ago|days?|weeks?|months?|years?|morning|afternoon|evening|night)\b`,
    String.raw`\b(?:christmas|xmas|new\s+year|easter|thanksgiving|halloween|valentine|spring|summer|autumn|fall|winter)`,
    String.raw`\b(?:19|20)\d\d\b`,
    String.raw`\b\d{1,4}[/.-]\d{1,2}[/.-]\d{1,4}\b`,
  ].join("|"),
  "i",
);

/** Years read on their own: 1970 up to the current year (a later one cannot hold any session yet). */
const firstYear = 1970;
const yearPattern = String.raw`((?:19|20)\d\d)(?![\d.:/-]?\d)(?![\p{L}_])`;
const yearOf = (match: string | undefined, now: number): number | undefined => {
  const year = Number(match);
  return year >= firstYear && year <= new Date(now).getFullYear() ? year : undefined;
};

/** Holidays: the period each covers in a year (Christmas is 24–26 December, Easter Good Friday to Easter Monday). */
const holidays: Array<{ pattern: string; name: string; occurrence: (year: number) => Period }> = [
  { pattern: String.raw`christmas\s+eve`, name: "Christmas Eve", occurrence: (y) => days(y, 11, 24, 1) },
  { pattern: String.raw`christmas\s+day`, name: "Christmas Day", occurrence: (y) => days(y, 11, 25, 1) },
  { pattern: "christmas|xmas", name: "Christmas", occurrence: (y) => days(y, 11, 24, 3) },
  { pattern: String.raw`new\s+year(?:['’]?s)?\s+eve`, name: "New Year's Eve", occurrence: (y) => days(y, 11, 31, 1) },
  { pattern: String.raw`new\s+year(?:['’]?s)?\s+day`, name: "New Year's Day", occurrence: (y) => days(y, 0, 1, 1) },
  { pattern: String.raw`new\s+year(?:['’]?s)?`, name: "New Year", occurrence: (y) => days(y - 1, 11, 31, 2) },
  { pattern: "easter", name: "Easter", occurrence: (y) => easterWeekend(y) },
  {
    pattern: "thanksgiving",
    name: "Thanksgiving",
    occurrence: (y) => days(y, 10, 22 + ((4 - new Date(y, 10, 1).getDay() + 7) % 7), 1),
  },
  { pattern: "halloween", name: "Halloween", occurrence: (y) => days(y, 9, 31, 1) },
  { pattern: String.raw`valentine['’]?s(?:\s+day)?`, name: "Valentine's Day", occurrence: (y) => days(y, 1, 14, 1) },
];

const days = (year: number, monthIndex: number, day: number, count: number): Period => ({
  start: localDay(year, monthIndex, day),
  end: localDay(year, monthIndex, day + count),
  label: "",
});

/** Good Friday to Easter Monday of a year (Gregorian Easter, the anonymous "Meeus/Jones/Butcher" algorithm). */
export function easterWeekend(year: number): Period {
  const a = year % 19;
  const b = Math.floor(year / 100);
  const c = year % 100;
  const h = (19 * a + b - Math.floor(b / 4) - Math.floor((b - Math.floor((b + 8) / 25) + 1) / 3) + 15) % 30;
  const l = (32 + 2 * (b % 4) + 2 * Math.floor(c / 4) - h - (c % 4)) % 7;
  const m = Math.floor((a + 11 * h + 22 * l) / 451);
  const month = Math.floor((h + l - 7 * m + 114) / 31) - 1;
  const sunday = ((h + l - 7 * m + 114) % 31) + 1;
  return days(year, month, sunday - 2, 4);
}

/**
 * The occurrence a year-less holiday or season means: the latest one that has begun by `now` ("last": the
 * latest one that has ended), and the {@link earlierYears} before it. Christmas said in November 2026 is
 * Christmas 2025, then 2024, ….
 */
function latestOccurrence(
  occurrence: (year: number) => Period,
  now: number,
  completed: boolean,
): { period: Period; earlier: Period[] } {
  const year = new Date(now).getFullYear();
  let chosen = year - 1;
  for (let y = year + 1; y > year - 3; y--) {
    const period = occurrence(y);
    if (completed ? period.end <= now : period.start <= now) {
      chosen = y;
      break;
    }
  }
  return {
    period: occurrence(chosen),
    earlier: Array.from({ length: earlierYears }, (_, k) => occurrence(chosen - k - 1)),
  };
}

const named = (period: Period, label: string): Period => ({ ...period, label });

/** "last summer", "this Christmas" mean the latest one only: no earlier years to fall back on. */
const countedFromNow = (before: string): boolean => /\b(?:last|this)\s+$/i.test(before);

/** Length of a "last", "this", "early", … (and "the") just before a holiday or season, which belongs to its words. */
const modifierBefore = (before: string): number =>
  /\b(?:last|this|past|early|late|mid)(?:\s+the)?[\s-]+$/i.exec(before)?.[0].length ?? 0;

/** Words before a season that make it a date ("in the summer", "last winter"), not a framework ("Spring Boot"). */
const seasonContext =
  /\b(?:in|during|over|through|throughout|last|this|past|early|late|mid|since|before|after|until)(?:\s+the)?[\s-]+$/i;

/** Prepositions after which a lone year is a date ("in 2023", "since 2024"); a bare "2024 migration" is a word. */
const yearPrepositions = String.raw`\b(?:in|during|since|before|after|until|till|throughout|of|from|around)\s+(?:the\s+year\s+)?`;

/**
 * Parts of a year: early = January–April, mid = May–August, late / end of = September–December, beginning /
 * start of = January–March.
 */
const yearParts: Record<string, [number, number]> = {
  early: [0, 4],
  beginning: [0, 3],
  start: [0, 3],
  mid: [4, 8],
  middle: [4, 8],
  late: [8, 12],
  end: [8, 12],
};

/**
 * Find the calendar words chrono does not read, in text order, each with the period it names.
 * Examples (now = Mon 23 Nov 2026, local time):
 *   `"before Christmas"` → [6, 16) 24–26 Dec 2025 "Christmas 2025";  `"in 2023"` → [3, 7) the year 2023;
 *   `"summer of 2021"` → June–August 2021;  `"early 2024"` → January–April 2024;  `"this week"` → 16–22 Nov 2026;
 *   `"from 2019 to 2021"` → 2019–2021;  `"2024 migration"`, `"ES2022"`, `"Spring Boot"`, `"next Christmas"` → nothing.
 */
export function findCalendarWords(text: string, now: number): NamedPeriod[] {
  const found: NamedPeriod[] = [];
  const add = (index: number, end: number, period: Period, earlier?: Period[]) => {
    if (period.start <= now && !found.some((other) => index < other.end && other.index < end))
      found.push({ index, end, period, ...(earlier ? { earlier } : {}) });
  };
  for (const match of text.matchAll(
    new RegExp(
      String.raw`\b(?:from|between)\s+${yearPattern}\s*(?:to|and|until|till|through|-|–)\s*${yearPattern}`,
      "giu",
    ),
  )) {
    const [first, last] = [yearOf(match[1], now), yearOf(match[2], now)];
    if (first !== undefined && last !== undefined && first <= last)
      add(match.index, match.index + match[0].length, {
        ...periodOf("year", localDay(first, 0, 1)),
        end: localDay(last + 1, 0, 1),
        label: `${first}–${last}`,
      });
  }
  for (const match of text.matchAll(
    new RegExp(
      String.raw`\b(early|mid|middle\s+of|late|end\s+of|beginning\s+of|start\s+of)[\s-]+${yearPattern}`,
      "giu",
    ),
  )) {
    const year = yearOf(match[2], now);
    const [from, to] = yearParts[match[1]!.split(/\s+/)[0]!.toLowerCase()]!;
    if (year !== undefined)
      add(match.index, match.index + match[0].length, {
        start: localDay(year, from, 1),
        end: localDay(year, to, 1),
        label: `${match[1]!.toLowerCase()} ${year}`,
      });
  }
  for (const holiday of holidays) {
    for (const match of text.matchAll(
      new RegExp(String.raw`\b(?:${holiday.pattern})\b(?:,?\s+(?:of\s+)?${yearPattern})?`, "giu"),
    )) {
      const before = text.slice(0, match.index);
      if (/\bnext\s+$/i.test(before)) continue;
      const year = match[1] === undefined ? undefined : yearOf(match[1], now);
      if (match[1] !== undefined && year === undefined) continue; // a year still to come
      const label = (period: Period) => named(period, `${holiday.name} ${new Date(period.end - 1).getFullYear()}`);
      const { period, earlier } =
        year !== undefined
          ? { period: holiday.occurrence(year), earlier: undefined }
          : latestOccurrence(holiday.occurrence, now, /\blast\s+$/i.test(before));
      add(
        match.index - modifierBefore(before),
        match.index + match[0].length,
        label(period),
        countedFromNow(before) ? undefined : earlier?.map(label),
      );
    }
  }
  for (const match of text.matchAll(
    new RegExp(
      String.raw`\b(spring(?!\s+(?:boot|framework|cloud|data|security|mvc|batch|webflux)\b)|summer|autumn|fall|winter)\b(?:,?\s+(?:of\s+)?${yearPattern})?`,
      "giu",
    ),
  )) {
    const season = match[1]!.toLowerCase() as SeasonName;
    const before = text.slice(0, match.index);
    const year = match[2] === undefined ? undefined : yearOf(match[2], now);
    if (
      (year === undefined && !seasonContext.test(before)) ||
      (match[2] !== undefined && year === undefined) ||
      /\bnext\s+$/i.test(before)
    )
      continue;
    const { period, earlier } =
      year !== undefined
        ? { period: seasonPeriod(season, year), earlier: undefined }
        : latestOccurrence((y) => seasonPeriod(season, y), now, /\blast\s+$/i.test(before));
    add(
      match.index - modifierBefore(before),
      match.index + match[0].length,
      period,
      countedFromNow(before) ? undefined : earlier,
    );
  }
  for (const match of text.matchAll(new RegExp(`(?<=${yearPrepositions})${yearPattern}`, "giu"))) {
    const year = yearOf(match[1], now);
    if (year !== undefined) add(match.index, match.index + match[0].length, periodOf("year", localDay(year, 0, 1)));
  }
  for (const match of text.matchAll(/\bthis\s+(week|month|year)\b/gi))
    add(match.index, match.index + match[0].length, periodOf(match[1]!.toLowerCase() as "week", now));
  return found.sort((a, b) => a.index - b.index);
}
