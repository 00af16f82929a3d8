/**
 * The local index as a store of the search pipeline (store.ts): the keyword leg is FTS5 BM25 (ranking/lexical.ts),
 * term rarities and held terms come from the keyword leg's own scorings where they hold them, else are counted in the
 * FTS5 and side indexes (ranking/confidence.ts), sessions, spans and date ranges are read from the `sessions` and
 * `turns` tables. Synchronous SQLite behind the store's promises.
 */
import type { Database } from "bun:sqlite";
import { filterSql, type SearchFilters } from "./listing/filters.ts";
import { termRarities, termsHeldInIndex } from "./ranking/confidence.ts";
import { boundedRange } from "./ranking/date-candidates.ts";
import { searchLexical, type LexicalHit, type SearchLevel } from "./ranking/lexical.ts";
import { documentsHoldingEvery, phraseDocumentCounts, searchScorings } from "./ranking/postings-ranking.ts";
import type { ActiveDocument, ActivitySpan, CandidateStore } from "./store.ts";
import type { DateRange } from "./dates/time-query.ts";

/**
 * The store of an open index (read-only is enough), for one search: the keyword leg's scorings are kept, so the term
 * rarities reuse the document counts they found (and, on a long-lived reader's connection, the next searches reuse
 * them while the index stays as it was: postings-ranking.ts `keepScorings`).
 */
export function localStore(db: Database): CandidateStore {
  const lists = searchScorings(db);
  return {
    keywordHits: (query, level, filters, candidates) => searchLexical(db, query, level, filters, candidates, lists),
    termRarities: async (query) => termRarities(db, query, phraseDocumentCounts(lists)),
    // the documents the keyword leg scored as holding every term need no MATCH per term (~0.4 ms of a cold search)
    termsHeld: async (query, documentIds) =>
      termsHeldInIndex(db, query, documentIds, (terms, ids) => documentsHoldingEvery(lists, terms, ids)),
    subagentSessions: async (sessionRowids) => subagentsAmong(db, sessionRowids),
    activitySpans: async (hits, level) => activitySpans(db, hits, level),
    activeIn: async (range, level, filters, limit) => activeIn(db, range, level, filters, limit),
  };
}

function subagentsAmong(db: Database, sessionRowids: readonly number[]): Set<number> {
  if (sessionRowids.length === 0) return new Set();
  return new Set(
    db
      .query<{ id: number }, number[]>(
        `SELECT id FROM sessions WHERE is_subagent = 1 AND id IN (${sessionRowids.map(() => "?").join(",")})`,
      )
      .all(...sessionRowids)
      .map((row) => row.id),
  );
}

/** A session's started_at … ended_at (level 1, keyed by session rowid), a turn's timestamp (level 2, by document id). */
function activitySpans(db: Database, hits: readonly LexicalHit[], level: SearchLevel): Map<number, ActivitySpan> {
  const ids = [...new Set(hits.map((hit) => (level === "session" ? hit.sessionRowid : hit.documentId)))];
  if (ids.length === 0) return new Map();
  const marks = ids.map(() => "?").join(",");
  const sql =
    level === "session"
      ? `SELECT id, started_at AS first, ended_at AS last FROM sessions WHERE id IN (${marks})`
      : `SELECT d.id AS id, t.timestamp AS first, t.timestamp AS last FROM documents d JOIN turns t ON t.session_rowid = d.session_rowid AND t.number = d.turn_number WHERE d.id IN (${marks})`;
  const rows = db.query<{ id: number; first: number; last: number }, number[]>(sql).all(...ids);
  return new Map(rows.map((row) => [row.id, { first: row.first, last: row.last }]));
}

function activeIn(
  db: Database,
  range: DateRange,
  level: SearchLevel,
  filters: SearchFilters,
  limit: number,
): ActiveDocument[] {
  const bounded: SearchFilters = { ...filters, ...boundedRange(range, filters) };
  if (level === "session") {
    const filter = filterSql(bounded);
    return db
      .query<ActiveDocument, Array<string | number>>(
        `SELECT s.id AS sessionRowid, d.id AS documentId, 0 AS turnNumber, s.ended_at AS time
         FROM sessions s JOIN documents d ON d.session_rowid = s.id AND d.level = 'session'
         WHERE s.ended_at > 0 AND ${filter.where} ORDER BY s.ended_at DESC LIMIT ?`,
      )
      .all(...filter.params, limit);
  }
  const filter = filterSql(bounded, "t.timestamp");
  return db
    .query<ActiveDocument, Array<string | number>>(
      `SELECT s.id AS sessionRowid, d.id AS documentId, t.number AS turnNumber, t.timestamp AS time
       FROM sessions s JOIN turns t ON t.session_rowid = s.id
       JOIN documents d ON d.session_rowid = s.id AND d.level = 'turn' AND d.turn_number = t.number
       WHERE t.timestamp > 0 AND ${filter.where} ORDER BY t.timestamp DESC LIMIT ?`,
    )
    .all(...filter.params, limit);
}
