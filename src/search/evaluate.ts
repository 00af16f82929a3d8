/**
 * Retrieval quality on a labelled query set: recall@k and MRR per query kind, at level 1 (the
 * expected session among the top k sessions) and level 2 (the expected turn among the top k turns).
 * Definitions: recall@k = share of queries with at least one expected item in the top k;
 * MRR = mean over queries of 1 / rank of the first expected item (0 when not in the top `limit`).
 * Negative queries (`expected_sessions: []`: topics absent from the corpus, lexical traps) count in no recall or
 * MRR; they measure confidence (issue 13): the share answered "no confident match", next to the share of
 * positive queries with a hit at rank 1 whose answer stays confident.
 * Searches use the CLI's default filters (sub-agent sessions excluded, as `recall search` does without
 * `--include-subagents`): the labels name main sessions, and the measure is what a user gets.
 * Used by the corpus test suite (floors) and `bun run eval` (per leg: keyword, vector, hybrid).
 */
import type { Database } from "bun:sqlite";
import { searchIndex, type SearchMode, type VectorLeg } from "./api.ts";
import type { SessionResult, TurnResult } from "./hydrate.ts";

/** One labelled query (format of test/corpus/queries.json). */
export interface LabelledQuery {
  query: string;
  kind: string;
  expected_sessions: string[];
  expected_turn?: { session: string; turn: number };
  note?: string;
}

/** How well the answer-level `confident` flag separates hits from negatives. */
export interface ConfidenceScores {
  /** Negative queries (no expected session). */
  negatives: number;
  /** Share of negatives answered "no confident match" (0–1). */
  negativesUnconfident: number;
  /** Positive queries whose first result is an expected session. */
  rankOneHits: number;
  /** Share of those answered confidently (0–1). */
  rankOneConfident: number;
  /** Negatives answered confidently and rank-1 hits answered without confidence, for diagnosis. */
  errors: string[];
}

/** Scores of one group of queries. */
export interface RetrievalScores {
  queries: number;
  recallAt5: number;
  mrr: number;
  /** Queries whose expected item was not in the top 5, for diagnosis. */
  misses: string[];
}

const rankOf = (ids: string[], expected: (id: string) => boolean): number => {
  const index = ids.findIndex(expected);
  return index < 0 ? Infinity : index + 1;
};

function score(ranks: Array<{ query: string; rank: number }>): RetrievalScores {
  const n = ranks.length;
  return {
    queries: n,
    recallAt5: n === 0 ? 0 : ranks.filter((r) => r.rank <= 5).length / n,
    mrr: n === 0 ? 0 : ranks.reduce((sum, r) => sum + (Number.isFinite(r.rank) ? 1 / r.rank : 0), 0) / n,
    misses: ranks.filter((r) => r.rank > 5).map((r) => r.query),
  };
}

/**
 * Evaluate a query set.
 * @param alpha the hybrid vector weight (SearchRequest.alpha); default: the model's calibrated weight
 * @returns scores per kind and "all", for sessions (level 1) and for turns (level 2, queries with expected_turn),
 *          and how the answer-level `confident` flag does on negatives and rank-1 hits
 */
export async function evaluateRetrieval(
  db: Database,
  queries: LabelledQuery[],
  mode: SearchMode,
  vectorLeg?: VectorLeg,
  alpha?: number,
): Promise<{ sessions: Record<string, RetrievalScores>; turns: Record<string, RetrievalScores>; confidence: ConfidenceScores }> {
  const byKind = new Map<string, Array<{ query: string; rank: number }>>();
  const turnsByKind = new Map<string, Array<{ query: string; rank: number }>>();
  const negatives: Array<{ query: string; confident: boolean }> = [];
  const rankOne: Array<{ query: string; confident: boolean }> = [];
  for (const labelled of queries) {
    const response = await searchIndex(db, { query: labelled.query, level: "session", filters: { includeSubagents: false }, limit: 10, mode, alpha }, vectorLeg);
    if (labelled.expected_sessions.length === 0) {
      negatives.push({ query: labelled.query, confident: response.confident });
      continue;
    }
    const ids = (response.results as SessionResult[]).map((result) => result.sessionId);
    const rank = rankOf(ids, (id) => labelled.expected_sessions.includes(id));
    if (rank === 1) rankOne.push({ query: labelled.query, confident: response.confident });
    for (const kind of [labelled.kind, "all"]) byKind.set(kind, [...(byKind.get(kind) ?? []), { query: labelled.query, rank }]);
    if (labelled.expected_turn) {
      const { session, turn } = labelled.expected_turn;
      const turns = await searchIndex(db, { query: labelled.query, level: "turn", filters: { includeSubagents: false }, limit: 10, mode, alpha }, vectorLeg);
      const keys = (turns.results as TurnResult[]).map((result) => `${result.sessionId}:${result.turn}`);
      const turnRank = rankOf(keys, (key) => key === `${session}:${turn}`);
      for (const kind of [labelled.kind, "all"]) turnsByKind.set(kind, [...(turnsByKind.get(kind) ?? []), { query: labelled.query, rank: turnRank }]);
    }
  }
  const confidence: ConfidenceScores = {
    negatives: negatives.length,
    negativesUnconfident: negatives.length === 0 ? 0 : negatives.filter((entry) => !entry.confident).length / negatives.length,
    rankOneHits: rankOne.length,
    rankOneConfident: rankOne.length === 0 ? 0 : rankOne.filter((entry) => entry.confident).length / rankOne.length,
    errors: [...negatives.filter((entry) => entry.confident).map((entry) => `negative answered confidently: ${entry.query}`), ...rankOne.filter((entry) => !entry.confident).map((entry) => `rank-1 hit not confident: ${entry.query}`)],
  };
  return { sessions: Object.fromEntries([...byKind].map(([kind, ranks]) => [kind, score(ranks)])), turns: Object.fromEntries([...turnsByKind].map(([kind, ranks]) => [kind, score(ranks)])), confidence };
}
