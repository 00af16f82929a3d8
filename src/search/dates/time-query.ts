/**
 * Dates named in a search query (issue 13, "time in the query"): "in July 2022", "last week", "yesterday",
 * "before Christmas", "in 2023", "on 8 May 2023", "since Monday", "two weeks ago". Each becomes a range in the
 * user's local time zone that time-boost.ts ranks by; the answer shows what was understood. Natural-language
 * dates are read by chrono-node 2.10.3 (`chrono-node/en`, casual mode), imported on the first query that
 * {@link mightNameDate} passes; holidays, seasons and lone years by time-words.ts. No I/O but that lazy
 * import; never throws (a date that cannot be read is left as words).
 */
import type { ParsedResult } from "chrono-node/en";
import {
  addDays,
  addYears,
  dayLabel,
  periodOf,
  spanOf,
  startOfDay,
  type CalendarUnit,
  type Period,
} from "./calendar.ts";
import { maxQueryChars } from "../ranking/query.ts";
import { earlierYears, findCalendarWords, mightNameDate, type NamedPeriod } from "./time-words.ts";

/** A range of time a query names. */
export interface DateRange {
  /** First instant of the range, epoch ms (local midnight for calendar dates), or null when open ("before …"). */
  since: number | null;
  /** Last instant of the range, inclusive (epoch ms, like `--until`), or null when open ("since …", "after …"). */
  until: number | null;
  /** What was understood, in English: `July 2022`, `week of 16 Nov 2026`, `before Christmas 2025`, `2023`. */
  label: string;
}

/** A date expression of the query and the range it means. */
export interface TimeExpression extends DateRange {
  /** The words as typed, with the preposition that shapes them: `in July 2022`, `before Christmas`. */
  text: string;
  /** [start, end) UTF-16 offsets of `text` in the query. */
  span: [number, number];
  /**
   * For a date said without its year ("in June", "8 May", "Christmas"): the same range in each of the 10 years
   * before, latest first; time-boost.ts falls back to them when nothing falls in the latest one. [] otherwise.
   */
  earlier: DateRange[];
}

/** The dates of a query, and the query without them. */
export interface TimeQuery {
  /** In text order; empty when the query names no date. */
  expressions: TimeExpression[];
  /**
   * The query with every expression cut out and whitespace collapsed (the whole query when none was found). The
   * search keeps the date words in its keyword query all the same: on the 264 LoCoMo questions naming a month or
   * year, dropping them measured hit@1 71.2% against 74.6% keeping them (2026-11-23; the month is often said in
   * the conversation too), and "Christmas party" or "the summer release" may be topics as much as dates.
   */
  rest: string;
}

type Chrono = typeof import("chrono-node/en");
let chronoLoading: Promise<Chrono> | undefined;
let chrono: Chrono | undefined;

/**
 * Load chrono-node on first use rather than at the top: every search loads this module, and a query without a
 * date never needs it. Measured 2026-11-23 (2-core machine, Bun 1.4.5): the ES module imports in ~11 ms and its
 * first parse takes ~12 ms more (a `require` of its CommonJS build takes ~22 ms); later parses ~1 ms.
 * @returns false when the module cannot be loaded (a broken install): the query is then read without dates
 */
async function loadChrono(): Promise<boolean> {
  try {
    chrono ??= await (chronoLoading ??= import("chrono-node/en"));
    return true;
  } catch {
    return false;
  }
}

/** A date found by chrono or time-words, before prepositions are read; `result` is kept for re-anchoring. */
interface Found extends NamedPeriod {
  result?: ParsedResult;
}

/**
 * Read the dates of a query.
 * @param now reference instant for relative words (epoch ms); dates without a year are the latest past one
 * Examples (now = Mon 23 Nov 2026 15:00, local time):
 *   `"What did Melanie paint in July 2023?"` → `in July 2023` [2023-07-01, 2023-07-31 23:59:59.999] "July 2023",
 *     rest `"What did Melanie paint ?"`;
 *   `"docker fix last week"` → `last week` "week of 16 Nov 2026";  `"since Monday"` → since 23 Nov 2026, open end;
 *   `"before Christmas"` → until 23 Dec 2025 23:59:59.999, "before Christmas 2025";
 *   `"python 3.12"`, `"port 2022"`, `"3/4 of tests"`, `"v1.12.2023"`, `"sat solver"`, `"march on"` → none.
 */
export async function parseTimeQuery(text: string, now: number = Date.now()): Promise<TimeQuery> {
  const source = text.slice(0, maxQueryChars);
  if (!mightNameDate(source)) return { expressions: [], rest: text };
  if (!(await loadChrono())) return { expressions: [], rest: text };
  const expressions = findExpressions(source, now);
  if (expressions.length === 0) return { expressions, rest: text };
  let rest = text;
  for (const expression of [...expressions].reverse())
    rest = `${rest.slice(0, expression.span[0])} ${rest.slice(expression.span[1])}`;
  return { expressions, rest: rest.replace(/\s+/g, " ").trim() };
}

/** The dates of `source` with their prepositions, in text order (chrono's part only once {@link loadChrono} has run). */
function findExpressions(source: string, now: number): TimeExpression[] {
  const own: Found[] = findCalendarWords(source, now);
  const found = [
    ...own,
    ...readChrono(source, now).filter((item) => !own.some((other) => item.index < other.end && other.index < item.end)),
  ];
  return joinNeighbours(
    found.sort((a, b) => a.index - b.index),
    source,
    now,
  ).map((item) => withPreposition(item, source));
}

/**
 * Load what {@link readDateWords} needs (chrono-node, ~20 ms the first time; see loadChrono). Front ends await it
 * before reading `--since`/`--until` values that are words (arguments.ts `loadDateWords`).
 * @returns false when chrono cannot be loaded: then only time-words.ts' words are read
 */
export const loadDateReader = (): Promise<boolean> => loadChrono();

/**
 * Read a whole text as the one date the query parser would find in it, with the preposition it is given (issue 26:
 * `--since yesterday` was refused though a query understood "yesterday"). Synchronous: chrono's words are read
 * once {@link loadDateReader} has resolved, the calendar words of time-words.ts always.
 * @param preposition "since" or "until", put before the text (so "march" reads as a month, as in "since march")
 * @returns the range, or undefined when the text is not exactly one date
 * Examples (now = Mon 23 Nov 2026 15:00, local time):
 *   `("yesterday", "since")` → since 22 Nov 2026 00:00;  `("last week", "until")` → until 22 Nov 2026 23:59:59.999;
 *   `("3 days ago", "since")` → since 20 Nov 2026 00:00;  `("christmas", "since")` → since 24 Dec 2025;
 *   `("yesterday-ish", "since")`, `("before christmas", "since")`, `("soon", "until")` → undefined
 */
export function readDateWords(text: string, preposition: "since" | "until", now: number): DateRange | undefined {
  const source = `${preposition} ${text.trim()}`;
  if (source.length > maxQueryChars || !mightNameDate(source)) return undefined;
  const expressions = findExpressions(source, now);
  const [only] = expressions;
  if (expressions.length !== 1 || only!.span[0] !== 0 || only!.span[1] !== source.length) return undefined;
  return { since: only!.since, until: only!.until, label: only!.label };
}

/** chrono's results as periods, implausible ones dropped (see {@link readResult}); chrono errors → none. */
function readChrono(text: string, now: number): Found[] {
  return safeParse(text, now).flatMap((result) => {
    const reading = readResult(result, text, now);
    return reading ? [{ index: result.index, end: result.index + result.text.length, ...reading, result }] : [];
  });
}

const fullMonthName =
  /\b(?:january|february|march|april|may|june|july|august|september|sept|october|november|december)\b/i;
const fullWeekdayName = /\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|\bweekend\b/i;
const dayWords = /\b(?:today|tonight|yesterday|tomorrow|morning|afternoon|evening|night)\b/i;
const futureWords =
  /\b(?:next|tomorrow|from\s+now|later|upcoming|coming)\b|\bin\s+(?:\d+|a|an|one|two|three|a\s+few)\s+\w+/i;
const rollingWindow =
  /\b(?:past|last|previous)\s+(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|few|couple(?:\s+of)?)\s+(?:days|weeks|months|years)\b|\bpast\s+(?:week|month|year)\b/i;
/** Words before a month name that make "June" a date ("in June", "mid-June"), not a name or a verb ("march on"). */
const monthContext =
  /\b(?:in|during|since|before|after|until|till|of|early|mid|late|last|this|through|throughout|around|from|end\s+of|beginning\s+of|start\s+of|middle\s+of)(?:\s+the)?[\s-]+$/i;

type Unit = CalendarUnit | "rolling";

/**
 * The unit one chrono component stands for, from its words first ("last week" is a week although chrono
 * returns a day) and then from what chrono is certain of; null for a time of day alone ("10:30", "at noon").
 */
function unitOf(components: ParsedResult["start"], words: string): Unit | null {
  if (/^\s*(?:right\s+)?now\s*$/i.test(words)) return null;
  if (/\bweekends?\b/i.test(words)) return "weekend";
  if (rollingWindow.test(words)) return "rolling";
  if (/\b(?:hours?|hrs?|minutes?|mins?)\b/i.test(words)) return "hour";
  if (/\bweeks?\b/i.test(words)) return "week";
  if (/\bmonths?\b/i.test(words)) return "month";
  if (/\byears?\b/i.test(words)) return "year";
  if (components.isCertain("day") || components.isCertain("weekday") || dayWords.test(words)) return "day";
  if (components.isCertain("month")) return "month";
  if (components.isCertain("year")) return "year";
  return null;
}

/** The period of one component at `at` (a rolling "past 3 days" runs from its start to the end of today). */
function periodAt(unit: Unit, at: number, now: number): Period {
  if (unit !== "rolling") return periodOf(unit, at);
  const start = startOfDay(at);
  return { start, end: addDays(startOfDay(now), 1), label: `${dayLabel(start)} – ${dayLabel(now)}` };
}

/**
 * Whether a chrono result is a date in a coding query rather than a number, a version, a word or a verb: numeric
 * dates need a year and clean edges (`3/4 of tests`, `v1.12.2023` are not dates); a weekday alone needs its full
 * name (`sat solver`, `sun`, `wed` are not); a month alone needs its full name and a preposition before it.
 */
function isPlausible(result: ParsedResult, text: string, unit: Unit): boolean {
  const words = result.text;
  const start = result.start;
  if (/^\d/.test(words) && /[/.-]/.test(words)) {
    const before = text[result.index - 1] ?? " ";
    const after = text.slice(result.index + words.length, result.index + words.length + 2);
    if (!start.isCertain("year") || /[\p{L}\p{N}_./-]/u.test(before) || /^(?:[\p{L}\p{N}_/-]|\.\d)/u.test(after))
      return false;
  }
  const relative =
    result.tags().has("result/relativeDate") ||
    /\b(?:ago|last|past|previous|this|yesterday|today|tonight)\b/i.test(words);
  if (start.isCertain("weekday") && !start.isCertain("day") && !relative && !fullWeekdayName.test(words)) return false;
  if (unit === "month" && !relative && !start.isCertain("day") && !start.isCertain("year")) {
    return fullMonthName.test(words) && monthContext.test(text.slice(0, result.index));
  }
  return true;
}

/**
 * The period a chrono result means, or null when it is not a past date: its start (and end, for "May 1 – May 5")
 * in their units; "N units before/after D" spans from that point to D; a date without a year (or a weekday) that
 * lies ahead is moved back a year (a week), as a search is about the past; what is still ahead then is dropped.
 * A date without a year also offers the same date in the {@link earlierYears} before.
 */
function readResult(result: ParsedResult, text: string, now: number): Pick<Found, "period" | "earlier"> | null {
  const unit = unitOf(result.start, result.text);
  if (unit === null || !isPlausible(result, text, unit)) return null;
  const endUnit = result.end ? unitOf(result.end, result.text) : null;
  const build = (shift: (at: number) => number): Period => {
    let period = periodAt(unit, shift(result.start.date().getTime()), now);
    if (result.end && endUnit && endUnit !== "rolling")
      period = spanOf(period, periodOf(endUnit, shift(result.end.date().getTime())));
    return period;
  };
  const yearImplied = result.start.isCertain("month") && !result.start.isCertain("year");
  const weekdayOnly = result.start.isCertain("weekday") && !result.start.isCertain("month");
  let yearsBack = 0;
  let period = build((at) => at);
  if (period.start > now && !futureWords.test(result.text) && (yearImplied || weekdayOnly)) {
    yearsBack = yearImplied ? 1 : 0;
    period = build((at) => (weekdayOnly ? addDays(at, -7) : addYears(at, -1)));
  }
  if (period.start > now) return null;
  const anchored = /\b(?:before|after)\s+(.+)$/i.exec(result.text);
  if (anchored && result.tags().has("result/relativeDate")) {
    const anchor = safeParse(anchored[1]!, now)[0];
    const anchorUnit = anchor ? unitOf(anchor.start, anchor.text) : null;
    if (anchor && anchorUnit && anchorUnit !== "rolling")
      return { period: spanOf(period, periodOf(anchorUnit, anchor.start.date().getTime())) };
  }
  if (!yearImplied) return { period };
  return {
    period,
    earlier: Array.from({ length: earlierYears }, (_, k) => build((at) => addYears(at, -(yearsBack + k + 1)))),
  };
}

/** chrono's casual English parse of `text` at `ref` (epoch ms), or [] when chrono is not loaded or throws. */
function safeParse(text: string, ref: number): ParsedResult[] {
  try {
    return chrono?.casual.parse(text, new Date(ref)) ?? [];
  } catch {
    return [];
  }
}

/**
 * Join neighbours that name one range: "between A and B" / "from A to B" → A … B; a date counted from now
 * followed by "before/after" and a date → the first re-read from the second and spanned to it ("last weekend
 * before April 10, 2023" → 8–10 Apr 2023, as chrono reads "two weeks before August 11, 2023" by itself).
 */
function joinNeighbours(found: Found[], text: string, now: number): Found[] {
  const joined: Found[] = [];
  for (let i = 0; i < found.length; i++) {
    const a = found[i]!;
    const b = found[i + 1];
    const gap = b ? text.slice(a.end, b.index) : "";
    const lead = /\b(?:between|from)\s+$/i.exec(text.slice(0, a.index));
    if (b && lead && /^\s*(?:and|to|until|till|through|-|–)\s*$/i.test(gap)) {
      // "between August 11 and August 15 2023": a first date without its year is the latest one before the second.
      const first = [a.period, ...(a.earlier ?? [])].find((period) => period.start <= b.period.start) ?? a.period;
      joined.push({ index: lead.index, end: b.end, period: spanOf(first, b.period) });
      i++;
    } else if (
      b &&
      a.result &&
      /^\s*(?:before|after)\s*$/i.test(gap) &&
      /\b(?:ago|last|past|previous|this)\b/i.test(a.result.text)
    ) {
      const anchorAt = Math.min(b.period.end - 1, now);
      const reread = safeParse(a.result.text, anchorAt).map((result) =>
        readResult(result, a.result!.text, anchorAt),
      )[0];
      joined.push({ index: a.index, end: b.end, period: reread ? spanOf(reread.period, b.period) : b.period });
      i++;
    } else joined.push(a);
  }
  return joined;
}

/** Prepositions read before a date: open ranges ("before", "since", …) and plain ones cut out with it ("in", "on"). */
const leadingPreposition =
  /(?:^|[\s(,;])((?:before|until|till|prior\s+to|earlier\s+than|up\s+to|after|since|later\s+than|in|on|during|over|around|throughout|from|at|of)(?:\s+the)?)\s+$/i;

const openingWords = new Set(["before", "prior", "earlier", "until", "till", "up", "after", "later", "since"]);
const countedFromNow = /^(?:last|this|past|previous|the\s+(?:day|week|month|year))\b|\bago\b/i;

/**
 * The expression of one found date with the preposition before it: "before X" ends the range where X starts,
 * "until X" where X ends, "after X" starts it where X ends, "since X" where X starts; others keep X's range.
 */
function withPreposition(item: Found, text: string): TimeExpression {
  const found = leadingPreposition.exec(text.slice(0, item.index));
  const word = found?.[1]?.toLowerCase().split(/\s+/)[0];
  // "participate in last weekend": a plain preposition before a date counted from now belongs to the verb.
  const lead = word && !openingWords.has(word) && countedFromNow.test(text.slice(item.index, item.end)) ? null : found;
  const index = lead ? item.index - lead[0].length + lead[0].indexOf(lead[1]!) : item.index;
  const range = (period: Period) => rangeAfter(lead ? word : undefined, period);
  return {
    text: text.slice(index, item.end),
    span: [index, item.end],
    ...range(item.period),
    earlier: (item.earlier ?? []).map(range),
  };
}

/** The range a preposition makes of a period (see {@link withPreposition}); `until` is inclusive. */
function rangeAfter(word: string | undefined, { start, end, label }: Period): DateRange {
  switch (word) {
    case "before":
    case "prior":
    case "earlier":
      return { since: null, until: start - 1, label: `before ${label}` };
    case "until":
    case "till":
    case "up":
      return { since: null, until: end - 1, label: `until ${label}` };
    case "after":
    case "later":
      return { since: end, until: null, label: `after ${label}` };
    case "since":
      return { since: start, until: null, label: `since ${label}` };
    default:
      return { since: start, until: end - 1, label };
  }
}
