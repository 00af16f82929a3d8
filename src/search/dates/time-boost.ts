/**
 * Ranking by the dates a query names (issue 13, "time in the query"; the dates come from time-query.ts). A boost,
 * not a filter: people remember dates loosely and sessions span days, so a candidate outside every range keeps a
 * share of its score instead of vanishing. Level 1 compares the session's span (started_at … ended_at), level 2
 * the turn's timestamp. `--since`/`--until` stay hard filters (filters.ts) and are not touched here.
 */
import type { RankedHit } from "../pipeline.ts";
import type { ActivitySpan } from "../store.ts";
import type { SearchLevel } from "../ranking/lexical.ts";
import { termWords, type LexicalQuery } from "../ranking/query.ts";
import type { DateRange, TimeExpression } from "./time-query.ts";

/**
 * A date the query named, as the answer reports it: the words, and the range used (`DateRange`: since and until
 * inclusive, epoch ms, null when open; the label says what was understood, e.g. `July 2022`).
 */
export interface UnderstoodDate extends DateRange {
  /** The words as typed (`in July 2022`). */
  text: string;
  /** Whether the ranking used it: false when no candidate falls in or near its range (then nothing moved). */
  applied: boolean;
}

/**
 * Share of its score a candidate keeps: inside a named range 1, near one 0.8, elsewhere 0.3. Measured on the 264
 * LoCoMo questions that name a month or year (keyword leg, 2026-11-23, hit@1 without dates 56.4%): outside 0.65 →
 * 72.3%, 0.5 → 74.6%, 0.4 → 76.5%, 0.3 → 77.7%, 0.2 → 77.7%; near 0.5 instead of 0.8 → 74.2% (with outside 0.5).
 * 0.3 is where the gain levels off: a candidate outside needs 3.3 times the score of one inside to stay ahead.
 */
export const dateFactors = { inRange: 1, near: 0.8, outside: 0.3 } as const;

const dayMs = 86_400_000;

/**
 * How far outside a range still counts as near: the range's own length, at least 1 day, at most 31 (a day ± 1 day,
 * a week ± 1 week, a month ± 31 days); 7 days for open ranges. A fixed 2 or 14 days measured the same on LoCoMo
 * (month/year questions, hit@1 77.3% and 78.4% against 77.7%), so the margin follows the range's own precision.
 */
export function nearMarginMs(date: Pick<UnderstoodDate, "since" | "until">): number {
  if (date.since === null || date.until === null) return 7 * dayMs;
  return Math.min(Math.max(date.until - date.since, dayMs), 31 * dayMs);
}

/**
 * The factor of {@link dateFactors} for activity from `first` to `last` (epoch ms; equal for a turn) against the
 * applied dates: the best over them. 1 when no date was applied.
 * Example: July 2023 applied; a session on 2023-07-14 → 1; on 2023-08-03 → 0.8; in March 2023 → 0.3.
 */
export function dateFactorOf(
  first: number,
  last: number,
  dates: readonly Pick<UnderstoodDate, "since" | "until" | "applied">[],
): number {
  let best: number | undefined;
  for (const date of dates) {
    if (!date.applied) continue;
    const factor = factorFor(first, last, date);
    best = best === undefined ? factor : Math.max(best, factor);
  }
  return best ?? 1;
}

function factorFor(first: number, last: number, date: Pick<UnderstoodDate, "since" | "until">): number {
  const since = date.since ?? -Infinity;
  const until = date.until ?? Infinity;
  if (last >= since && first <= until) return dateFactors.inRange;
  const margin = nearMarginMs(date);
  return last >= since - margin && first <= until + margin ? dateFactors.near : dateFactors.outside;
}

/**
 * Apply the query's dates to the ranked candidates: each score times {@link dateFactorOf}, re-sorted (stable).
 * A date no candidate falls in or near is reported with `applied: false` and changes nothing, so a wrong or
 * useless reading costs no ranking; a date said without its year ("in June") first tries the latest such date,
 * then the same date in earlier years (`TimeExpression.earlier`), and reports the one it used. The
 * candidates' dates come from the store (`spans`: search/store.ts `activitySpans`). Scores are min-max normalized per query before this, so the weakest candidate
 * scores 0 and no factor lifts it (with the usual 100+ candidates, that is the last one).
 * @returns the candidates (the same array when no date applies; else each with its `dateFactor`) and the dates as the
 *   answer reports them
 */
export function boostByDates(
  hits: RankedHit[],
  level: SearchLevel,
  expressions: readonly TimeExpression[],
  spans: ReadonlyMap<number, ActivitySpan>,
): { ranked: RankedHit[]; dates: UnderstoodDate[] } {
  const report = (expression: TimeExpression, range: DateRange, applied: boolean): UnderstoodDate => ({
    text: expression.text,
    label: range.label,
    since: range.since,
    until: range.until,
    applied,
  });
  if (expressions.length === 0 || hits.length === 0)
    return { ranked: hits, dates: expressions.map((expression) => report(expression, expression, false)) };
  const spanOf = (hit: RankedHit) => spans.get(level === "session" ? hit.hit.sessionRowid : hit.hit.documentId);
  const holdsCandidates = (range: DateRange) =>
    [...spans.values()].some((span) => factorFor(span.first, span.last, range) > dateFactors.outside);
  const dates = expressions.map((expression) => {
    const used = [expression, ...expression.earlier].find(holdsCandidates);
    return used ? report(expression, used, true) : report(expression, expression, false);
  });
  if (!dates.some((date) => date.applied)) return { ranked: hits, dates };
  const ranked = hits.map((hit) => {
    const span = spanOf(hit);
    const dateFactor = span ? dateFactorOf(span.first, span.last, dates) : dateFactors.outside;
    return { ...hit, score: hit.score * dateFactor, dateFactor };
  });
  return { ranked: ranked.sort((a, b) => b.score - a.score), dates };
}

/**
 * The query terms that are words of a date it names (issue 38, item 3): `last` and `week` of "what did we do last
 * week", `april` of "postgres schema in april". The keyword query keeps them (dropping them cost LoCoMo hit@1:
 * time-query.ts), but they say when, not what, so confidence counts them by the result's date, never by its text
 * (confidence.ts). A term counts when every word of it is a word of some expression's text, compared case-folded.
 * @returns terms as in `query.terms` (FTS5 fragments); empty when the query names no date
 */
export function dateTermsOf(query: LexicalQuery, expressions: readonly Pick<TimeExpression, "text">[]): Set<string> {
  const words = new Set(
    expressions.flatMap((expression) => expression.text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []),
  );
  if (words.size === 0) return new Set();
  return new Set(
    query.terms.filter((term) => {
      const parts = termWords(term).toLowerCase().split(" ").filter(Boolean);
      return parts.length > 0 && parts.every((part) => words.has(part));
    }),
  );
}
