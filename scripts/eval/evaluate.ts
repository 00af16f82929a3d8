/**
 * Retrieval quality on a labelled query set: recall@k and MRR per query kind, at level 1 (the
 * expected session among the top k sessions) and level 2 (the expected turn among the top k turns).
 * Definitions: recall@k = share of queries with at least one expected item in the top k;
 * MRR = mean over queries of 1 / rank of the first expected item (0 when not in the top `limit`).
 * The same scores are also grouped by source (issue 11: every agent's history): a query's source is the
 * source of its first expected session as the index stores it (`sessions.source`: claude-code, opencode, codex,
 * gemini-cli, cursor, aider), so the labels need no source field; a query whose first expected session is not in
 * the index is grouped under {@link unindexedSource}.
 * Negative queries (`expected_sessions: []`: topics absent from the corpus, lexical traps) count in no recall or
 * MRR; they measure confidence (issue 13): the share answered "no confident match", next to the share of
 * positive queries with a hit at rank 1 whose answer stays confident.
 * Searches use the CLI's default filters (sub-agent sessions excluded, as `recall search` does without
 * `--include-subagents`): the labels name main sessions, and the measure is what a user gets.
 * Used by the corpus test suite (floors), `bun run eval` (per leg: keyword, vector, hybrid) and
 * scripts/calibrate-confidence.ts. `recall eval` measures the user's own history with src/evaluate/ instead.
 */
import type { Database } from "bun:sqlite";
import { sourceIds } from "../../src/parsers/index.ts";
import {
  searchIndex,
  type SearchMode,
  type SessionResult,
  type TurnResult,
  type VectorLeg,
} from "../../src/search/index.ts";

/**
 * One labelled query (format of test/corpus/queries.json; how they were written: test/corpus/QUERIES.md).
 * `kind` is one of keyword, topic, question, paraphrase, negative; `expected_sessions` are session ids as the index
 * stores them (any of them counts as a hit; [] for a negative, the first one names the query's source);
 * `expected_turn.turn` is the 1-based turn number as the index numbers turns.
 */
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
  /** Queries in the group (positive ones only; at level 2, those with an expected turn). */
  queries: number;
  /** Share of the group's queries whose first result is an expected item (hit@1, 0–1; 0 for an empty group). */
  hitAt1: number;
  /** Share of the group's queries with an expected item in the top 5 (hit@5, 0–1; 0 for an empty group). */
  recallAt5: number;
  /** Mean reciprocal rank over the top 10 (0–1; 0 for an empty group). */
  mrr: number;
  /** Queries whose expected item was not in the top 5, for diagnosis. */
  misses: string[];
}

/** Scores per query kind (`keyword`, `topic`, `question`, `paraphrase`) plus `all`, at one level. */
export type ScoresByKind = Record<string, RetrievalScores>;

/** Level 1 (sessions) and level 2 (turns) scores of one group of queries, each per kind plus `all`. */
export interface LevelScores {
  /** Level 1: the expected session among the top sessions. */
  sessions: ScoresByKind;
  /** Level 2: the expected turn among the top turns (queries with `expected_turn` only; may be `{}`). */
  turns: ScoresByKind;
}

/**
 * Everything {@link evaluateRetrieval} measures: the scores of all queries per kind (`sessions`, `turns`), the
 * same scores per source (`sources["codex"].sessions.all`, …; only sources that have positive queries appear, in the
 * display order of `sourceIds`), and the confidence measure.
 */
export interface RetrievalReport extends LevelScores {
  /** Per source id of the first expected session (or {@link unindexedSource}): that source's queries, per kind plus `all`. */
  sources: Record<string, LevelScores>;
  confidence: ConfidenceScores;
}

/** The source group of positive queries whose first expected session is not in the index (a stale label or a missing corpus). */
export const unindexedSource = "not-indexed";

const rankOf = (ids: string[], expected: (id: string) => boolean): number => {
  const index = ids.findIndex(expected);
  return index < 0 ? Infinity : index + 1;
};

function score(ranks: ReadonlyArray<{ query: string; rank: number }>): RetrievalScores {
  const n = ranks.length;
  return {
    queries: n,
    hitAt1: n === 0 ? 0 : ranks.filter((r) => r.rank === 1).length / n,
    recallAt5: n === 0 ? 0 : ranks.filter((r) => r.rank <= 5).length / n,
    mrr: n === 0 ? 0 : ranks.reduce((sum, r) => sum + (Number.isFinite(r.rank) ? 1 / r.rank : 0), 0) / n,
    misses: ranks.filter((r) => r.rank > 5).map((r) => r.query),
  };
}

/** A query's rank at one level, kept with its kind and source for grouping. */
interface RankedQuery {
  query: string;
  kind: string;
  source: string;
  rank: number;
}

/** Group ranks per kind plus "all" and score each group. */
function scoreByKind(ranks: readonly RankedQuery[]): ScoresByKind {
  const groups = new Map<string, RankedQuery[]>();
  for (const ranked of ranks)
    for (const kind of [ranked.kind, "all"]) groups.set(kind, [...(groups.get(kind) ?? []), ranked]);
  return Object.fromEntries([...groups].map(([kind, group]) => [kind, score(group)]));
}

/**
 * Evaluate a query set.
 * @param db an index database (read-only is enough): searched, and read for each query's source (`sessions.source`)
 * @param queries the labelled queries; negatives (no expected session) only feed `confidence`
 * @param mode the leg to measure: keyword, vector or hybrid (vector and hybrid need `vectorLeg`)
 * @param alpha the hybrid vector weight (SearchRequest.alpha); default: the model's calibrated weight
 * @returns scores per kind and "all", for sessions (level 1) and for turns (level 2, queries with expected_turn),
 *          the same per source (`sources`), and how the answer-level `confident` flag does on negatives and rank-1 hits
 */
export async function evaluateRetrieval(
  db: Database,
  queries: LabelledQuery[],
  mode: SearchMode,
  vectorLeg?: VectorLeg,
  alpha?: number,
): Promise<RetrievalReport> {
  const sourceQuery = db.query<{ source: string }, [string]>(
    "SELECT source FROM sessions WHERE session_id = ? ORDER BY is_subagent, source LIMIT 1",
  );
  const sourceOf = (sessionId: string): string => sourceQuery.get(sessionId)?.source ?? unindexedSource;
  const sessionRanks: RankedQuery[] = [];
  const turnRanks: RankedQuery[] = [];
  const negatives: Array<{ query: string; confident: boolean }> = [];
  const rankOne: Array<{ query: string; confident: boolean }> = [];
  for (const labelled of queries) {
    const response = await searchIndex(
      db,
      { query: labelled.query, level: "session", filters: { includeSubagents: false }, limit: 10, mode, alpha },
      vectorLeg,
    );
    if (labelled.expected_sessions.length === 0) {
      negatives.push({ query: labelled.query, confident: response.confident });
      continue;
    }
    const source = sourceOf(labelled.expected_sessions[0]!);
    const ids = (response.results as SessionResult[]).map((result) => result.sessionId);
    const rank = rankOf(ids, (id) => labelled.expected_sessions.includes(id));
    if (rank === 1) rankOne.push({ query: labelled.query, confident: response.confident });
    sessionRanks.push({ query: labelled.query, kind: labelled.kind, source, rank });
    if (labelled.expected_turn) {
      const { session, turn } = labelled.expected_turn;
      const turns = await searchIndex(
        db,
        { query: labelled.query, level: "turn", filters: { includeSubagents: false }, limit: 10, mode, alpha },
        vectorLeg,
      );
      const keys = (turns.results as TurnResult[]).map((result) => `${result.sessionId}:${result.turn}`);
      const turnRank = rankOf(keys, (key) => key === `${session}:${turn}`);
      turnRanks.push({ query: labelled.query, kind: labelled.kind, source, rank: turnRank });
    }
  }
  const confidence: ConfidenceScores = {
    negatives: negatives.length,
    negativesUnconfident:
      negatives.length === 0 ? 0 : negatives.filter((entry) => !entry.confident).length / negatives.length,
    rankOneHits: rankOne.length,
    rankOneConfident: rankOne.length === 0 ? 0 : rankOne.filter((entry) => entry.confident).length / rankOne.length,
    errors: [
      ...negatives.filter((entry) => entry.confident).map((entry) => `negative answered confidently: ${entry.query}`),
      ...rankOne.filter((entry) => !entry.confident).map((entry) => `rank-1 hit not confident: ${entry.query}`),
    ],
  };
  const displayOrder = (source: string): number =>
    (sourceIds as readonly string[]).includes(source)
      ? (sourceIds as readonly string[]).indexOf(source)
      : sourceIds.length;
  const presentSources = [...new Set(sessionRanks.map((ranked) => ranked.source))].sort(
    (a, b) => displayOrder(a) - displayOrder(b),
  );
  const sources = Object.fromEntries(
    presentSources.map((source) => [
      source,
      {
        sessions: scoreByKind(sessionRanks.filter((ranked) => ranked.source === source)),
        turns: scoreByKind(turnRanks.filter((ranked) => ranked.source === source)),
      },
    ]),
  );
  return { sessions: scoreByKind(sessionRanks), turns: scoreByKind(turnRanks), sources, confidence };
}
