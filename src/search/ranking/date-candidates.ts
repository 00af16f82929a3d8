/**
 * Candidates for a query that names nothing but a date (issue 38, item 3): "what did we do last week", "yesterday",
 * "sessions in june". Its keyword terms are only the date's words, so the keyword leg finds the sessions whose text
 * says "last week", not the ones from last week. For such a query the keyword candidates are the sessions (level 1)
 * or turns (level 2) active in the named range instead, newest first, under the same filters; when nothing is active
 * then, the keyword leg's own hits stay (and confidence.ts marks them weak: the date matched nothing).
 */
import type { Database } from "bun:sqlite";
import { filterSql, type SearchFilters } from "../listing/filters.ts";
import type { LexicalHit, SearchLevel } from "./lexical.ts";
import type { DateRange, TimeExpression } from "../dates/time-query.ts";

/**
 * The sessions or turns active in the dates a query names: for each expression, the first of its range and its
 * earlier-year fallbacks (`TimeExpression.earlier`, as time-boost.ts tries them) that holds any, intersected with the
 * filters' own `since`/`until`; the union over expressions, newest first.
 * @param limit candidates wanted (the search's candidate count)
 * @returns keyword-leg hits with scores falling from 1 by recency rank (no `raw`: no text matched); [] when no named
 *   range holds anything
 */
export function dateOnlyCandidates(
  db: Database,
  expressions: readonly TimeExpression[],
  level: SearchLevel,
  filters: SearchFilters,
  limit: number,
): LexicalHit[] {
  const found = new Map<number, { hit: Omit<LexicalHit, "score">; time: number }>();
  for (const expression of expressions) {
    for (const range of [expression, ...expression.earlier]) {
      const rows = activeIn(db, range, level, filters, limit);
      if (rows.length === 0) continue;
      for (const row of rows)
        found.set(row.documentId, {
          hit: { sessionRowid: row.sessionRowid, documentId: row.documentId, turnNumber: row.turnNumber },
          time: row.time,
        });
      break;
    }
  }
  const newestFirst = [...found.values()].sort((a, b) => b.time - a.time).slice(0, limit);
  return newestFirst.map(({ hit }, rank) => ({ ...hit, score: 1 - rank / newestFirst.length }));
}

interface ActiveRow {
  sessionRowid: number;
  documentId: number;
  turnNumber: number;
  time: number;
}

function activeIn(
  db: Database,
  range: DateRange,
  level: SearchLevel,
  filters: SearchFilters,
  limit: number,
): ActiveRow[] {
  const since = Math.max(range.since ?? -Infinity, filters.since ?? -Infinity);
  const until = Math.min(range.until ?? Infinity, filters.until ?? Infinity);
  const bounded: SearchFilters = {
    ...filters,
    since: Number.isFinite(since) ? since : undefined,
    until: Number.isFinite(until) ? until : undefined,
  };
  if (level === "session") {
    const filter = filterSql(bounded);
    return db
      .query<ActiveRow, Array<string | number>>(
        `SELECT s.id AS sessionRowid, d.id AS documentId, 0 AS turnNumber, s.ended_at AS time
         FROM sessions s JOIN documents d ON d.session_rowid = s.id AND d.level = 'session'
         WHERE s.ended_at > 0 AND ${filter.where} ORDER BY s.ended_at DESC LIMIT ?`,
      )
      .all(...filter.params, limit);
  }
  const filter = filterSql(bounded, "t.timestamp");
  return db
    .query<ActiveRow, Array<string | number>>(
      `SELECT s.id AS sessionRowid, d.id AS documentId, t.number AS turnNumber, t.timestamp AS time
       FROM sessions s JOIN turns t ON t.session_rowid = s.id
       JOIN documents d ON d.session_rowid = s.id AND d.level = 'turn' AND d.turn_number = t.number
       WHERE t.timestamp > 0 AND ${filter.where} ORDER BY t.timestamp DESC LIMIT ?`,
    )
    .all(...filter.params, limit);
}
