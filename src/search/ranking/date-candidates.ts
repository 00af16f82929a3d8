/**
 * Candidates for a query that names nothing but a date (issue 38, item 3): "what did we do last week", "yesterday",
 * "sessions in june". Its keyword terms are only the date's words, so the keyword leg finds the sessions whose text
 * says "last week", not the ones from last week. For such a query the keyword candidates are the sessions (level 1)
 * or turns (level 2) active in the named range instead, newest first, under the same filters; when nothing is active
 * then, the keyword leg's own hits stay (and confidence.ts marks them weak: the date matched nothing).
 */
import type { ActiveDocument } from "../store.ts";
import type { DateRange, TimeExpression } from "../dates/time-query.ts";
import type { LexicalHit } from "./lexical.ts";

/**
 * The sessions or turns active in the dates a query names: for each expression, the first of its range and its
 * earlier-year fallbacks (`TimeExpression.earlier`, as time-boost.ts tries them) that holds any, as the store finds
 * them (search/store.ts `activeIn`, which also applies the filters); the union over expressions, newest first.
 * @param limit candidates wanted (the search's candidate count)
 * @returns keyword-leg hits with scores falling from 1 by recency rank (no `raw`: no text matched); [] when no named
 *   range holds anything
 */
export async function dateOnlyCandidates(
  expressions: readonly TimeExpression[],
  limit: number,
  activeIn: (range: DateRange) => Promise<ActiveDocument[]>,
): Promise<LexicalHit[]> {
  const found = new Map<number, ActiveDocument>();
  for (const expression of expressions) {
    for (const range of [expression, ...expression.earlier]) {
      const rows = await activeIn(range);
      if (rows.length === 0) continue;
      for (const row of rows) found.set(row.documentId, row);
      break;
    }
  }
  const newestFirst = [...found.values()].sort((a, b) => b.time - a.time).slice(0, limit);
  return newestFirst.map((row, rank) => ({
    sessionRowid: row.sessionRowid,
    documentId: row.documentId,
    turnNumber: row.turnNumber,
    score: 1 - rank / newestFirst.length,
  }));
}

/**
 * The range a store looks in: `range` intersected with the filters' own `since`/`until` (open ends stay open).
 * @returns epoch ms bounds, undefined where open
 */
export function boundedRange(
  range: DateRange,
  filters: { since?: number; until?: number },
): { since: number | undefined; until: number | undefined } {
  const since = Math.max(range.since ?? -Infinity, filters.since ?? -Infinity);
  const until = Math.min(range.until ?? Infinity, filters.until ?? Infinity);
  return { since: Number.isFinite(since) ? since : undefined, until: Number.isFinite(until) ? until : undefined };
}
