/**
 * Retrieval quality on a labelled query set: recall@k and MRR per query kind, at level 1 (the
 * expected session among the top k sessions) and level 2 (the expected turn among the top k turns).
 * Definitions: recall@k = share of queries with at least one expected item in the top k;
 * MRR = mean over queries of 1 / rank of the first expected item (0 when not in the top `limit`).
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
 * @returns scores per kind and "all", for sessions (level 1) and for turns (level 2, queries with expected_turn)
 */
export async function evaluateRetrieval(
  db: Database,
  queries: LabelledQuery[],
  mode: SearchMode,
  vectorLeg?: VectorLeg,
): Promise<{ sessions: Record<string, RetrievalScores>; turns: RetrievalScores }> {
  const byKind = new Map<string, Array<{ query: string; rank: number }>>();
  const turnRanks: Array<{ query: string; rank: number }> = [];
  for (const labelled of queries) {
    const response = await searchIndex(db, { query: labelled.query, level: "session", filters: { includeSubagents: true }, limit: 10, mode }, vectorLeg);
    const ids = (response.results as SessionResult[]).map((result) => result.sessionId);
    const rank = rankOf(ids, (id) => labelled.expected_sessions.includes(id));
    for (const kind of [labelled.kind, "all"]) byKind.set(kind, [...(byKind.get(kind) ?? []), { query: labelled.query, rank }]);
    if (labelled.expected_turn) {
      const { session, turn } = labelled.expected_turn;
      const turns = await searchIndex(db, { query: labelled.query, level: "turn", filters: { includeSubagents: true }, limit: 10, mode }, vectorLeg);
      const keys = (turns.results as TurnResult[]).map((result) => `${result.sessionId}:${result.turn}`);
      turnRanks.push({ query: labelled.query, rank: rankOf(keys, (key) => key === `${session}:${turn}`) });
    }
  }
  return { sessions: Object.fromEntries([...byKind].map(([kind, ranks]) => [kind, score(ranks)])), turns: score(turnRanks) };
}
