/**
 * The keyword leg: FTS5 BM25 over `documents_fts`, filters applied in the same statement (before
 * the top-k cut). All-terms matching first; when that yields fewer than `candidates` hits, any-term
 * matching fills the rest below them (issue 3: a natural-language question never returns nothing
 * just because one word is missing). Column weights: heading 2 (the prompt, or the session title),
 * body 1 (assistant prose, or all prompts), extra 1 (tool inputs and files).
 */
import type { Database } from "bun:sqlite";
import { filterSql, type SearchFilters } from "./filters.ts";
import type { LexicalQuery } from "./query.ts";

/** Level searched: sessions (session and turn documents, grouped by session) or turns. */
export type SearchLevel = "session" | "turn";

/** One keyword candidate: a session (level 1, with its best document) or a turn (level 2). */
export interface LexicalHit {
  sessionRowid: number;
  /** Best matching document (level 1) or the turn's document (level 2). */
  documentId: number;
  /** 0 for the session document. */
  turnNumber: number;
  /**
   * Keyword score in 0–1, higher is better: −bm25 min-max normalized within its group; all-terms hits
   * take 0.5–1 and any-term hits 0–0.49 when both groups are present, so every all-terms hit ranks first.
   */
  score: number;
}

const bm25Weights = "2.0, 1.0, 1.0";

/** Ranked documents fetched per wanted candidate in the first window (sessions have several documents). */
const windowPerCandidate = 8;

/**
 * One ranked MATCH with the filters applied before the cut. BM25 is computed on the FTS table alone
 * (no join: a join makes SQLite score every match row by row through the join, measured 3x slower at
 * 125k documents), for a window of the best documents; the window is joined with the filters and
 * grouped; when the filtered, grouped window holds fewer than `candidates` keys and more matches
 * exist, the window doubles. So a filtered search never comes back short.
 */
function runMatch(db: Database, match: string, level: SearchLevel, filters: SearchFilters, candidates: number, exclude: Set<number>): LexicalHit[] {
  const filter = filterSql(filters, level === "turn" ? "t.timestamp" : undefined);
  const needsTurns = level === "turn" && (filters.since !== undefined || filters.until !== undefined);
  const levelJoin = needsTurns ? "JOIN turns t ON t.session_rowid = d.session_rowid AND t.number = d.turn_number" : "";
  const levelWhere = level === "turn" ? "AND d.level = 'turn'" : "";
  // bm25() cannot run inside a flattened subquery, so the window is a materialized CTE.
  const sql = `WITH ranked AS MATERIALIZED (
      SELECT rowid AS id, bm25(documents_fts, ${bm25Weights}) AS rank FROM documents_fts WHERE documents_fts MATCH ? ORDER BY rank LIMIT ?)
    SELECT d.id AS document_id, d.session_rowid, d.turn_number, ranked.rank
    FROM ranked JOIN documents d ON d.id = ranked.id JOIN sessions s ON s.id = d.session_rowid ${levelJoin}
    WHERE 1 ${levelWhere} AND ${filter.where} ORDER BY ranked.rank`;
  const statement = db.query<{ session_rowid: number; document_id: number; turn_number: number; rank: number }, Array<string | number>>(sql);
  const keyOf = (row: { session_rowid: number; document_id: number }) => (level === "session" ? row.session_rowid : row.document_id);
  for (let window = Math.max(candidates + exclude.size, 1) * windowPerCandidate; ; window *= 4) {
    const rows = statement.all(match, window, ...filter.params);
    const best = new Map<number, LexicalHit>();
    for (const row of rows) {
      const key = keyOf(row);
      if (exclude.has(key) || best.has(key)) continue; // rows arrive best first: the first per key is its best
      best.set(key, { sessionRowid: row.session_rowid, documentId: row.document_id, turnNumber: row.turn_number, score: -row.rank });
    }
    const exhausted = rows.length === 0 || matchCount(db, match) <= window;
    if (best.size >= candidates || exhausted) return [...best.values()].slice(0, candidates);
  }
}

/** Number of documents matching (only asked when a window came back short after filtering). */
function matchCount(db: Database, match: string): number {
  return db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM documents_fts WHERE documents_fts MATCH ?").get(match)?.n ?? 0;
}

/**
 * Keyword candidates for a parsed query, best first.
 * @param candidates how many sessions (level 1) or turns (level 2) to return at most
 * @returns [] when the query has no terms
 */
export function searchLexical(db: Database, query: LexicalQuery, level: SearchLevel, filters: SearchFilters, candidates: number): LexicalHit[] {
  if (query.terms.length === 0) return [];
  const all = runMatch(db, query.allTerms, level, filters, candidates, new Set());
  if (all.length >= candidates || query.terms.length === 1) return rescale(all, 0, 1);
  const seen = new Set(all.map((hit) => (level === "session" ? hit.sessionRowid : hit.documentId)));
  const any = runMatch(db, query.anyTerm, level, filters, candidates - all.length, seen);
  if (all.length === 0) return rescale(any, 0, 1);
  return [...rescale(all, 0.5, 1), ...rescale(any, 0, 0.49)];
}

/** Min-max normalize raw scores (−bm25) into [low, high]; a single hit or equal scores get `high`. */
function rescale(hits: LexicalHit[], low: number, high: number): LexicalHit[] {
  if (hits.length === 0) return hits;
  const scores = hits.map((hit) => hit.score);
  const min = Math.min(...scores);
  const span = Math.max(...scores) - min;
  return hits.map((hit) => ({ ...hit, score: span > 0 ? low + ((hit.score - min) / span) * (high - low) : high }));
}
