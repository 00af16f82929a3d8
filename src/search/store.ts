/**
 * The seam between the one search pipeline (pipeline.ts) and the stores it ranks (issue 39: the team archive ran a
 * second copy of the pipeline, which drifted: no confident-keyword tier, no date boost, no sub-agent down-rank).
 * A store answers the few questions the ranking asks of the data: keyword candidates, how rare each query term is,
 * which terms a document holds, which sessions are sub-agents, when candidates were active, and what was active in a
 * date range. The local index answers them from SQLite (local-store.ts), the team archive from PostgreSQL
 * (team-archive/archive-store.ts); query parsing, dates, tiers, fusion, boosts, confidence and paging are the
 * pipeline's, the same for both.
 */
import type { SearchFilters } from "./listing/filters.ts";
import type { TermRarity } from "./ranking/confidence.ts";
import type { LexicalHit, SearchLevel } from "./ranking/lexical.ts";
import type { LexicalQuery } from "./ranking/query.ts";
import type { DateRange } from "./dates/time-query.ts";

/** When a candidate was active, epoch ms: a session's start and end (level 1), or a turn's time twice (level 2). */
export interface ActivitySpan {
  first: number;
  last: number;
}

/** A session (level 1: its session document) or turn (level 2: its turn document) active in a range. */
export interface ActiveDocument {
  sessionRowid: number;
  documentId: number;
  /** 0 for a session document. */
  turnNumber: number;
  /** Its last activity, epoch ms (newest first is the order of a date-only answer). */
  time: number;
}

/** What the search pipeline asks of a store. Ids are the store's own: session rowids and document ids. */
export interface CandidateStore {
  /**
   * The keyword leg: candidates best first, each with its 0–1 score and raw −bm25 evidence (ranking/lexical.ts
   * `LexicalHit`), at most `candidates` (sessions at level 1, turns at level 2), under the filters.
   */
  keywordHits(
    query: LexicalQuery,
    level: SearchLevel,
    filters: SearchFilters,
    candidates: number,
  ): Promise<LexicalHit[]>;
  /** Each query term's rarity over the store's documents (ranking/confidence.ts `termRarity`), in `query.terms` order. */
  termRarities(query: LexicalQuery): Promise<TermRarity[]>;
  /** The query terms (as in `query.terms`) each document holds; a document holding none maps to []. */
  termsHeld(query: LexicalQuery, documentIds: readonly number[]): Promise<Map<number, string[]>>;
  /** Those of the sessions that are sub-agent sessions. */
  subagentSessions(sessionRowids: readonly number[]): Promise<Set<number>>;
  /** When each candidate was active: keyed by session rowid at level 1, by document id at level 2. */
  activitySpans(hits: readonly LexicalHit[], level: SearchLevel): Promise<Map<number, ActivitySpan>>;
  /** The sessions (level 1) or turns (level 2) active in `range` under the filters, newest first, at most `limit`. */
  activeIn(range: DateRange, level: SearchLevel, filters: SearchFilters, limit: number): Promise<ActiveDocument[]>;
}
