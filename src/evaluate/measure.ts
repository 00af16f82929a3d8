/**
 * Measure labelled queries from the user's history (issue 43): each label is searched at level 1 (sessions) and level
 * 2 (turns), top 10, with the CLI's default filters (sub-agent sessions left out), with its source withheld
 * (withhold.ts). Scores per kind and for the whole set:
 *   recall@k = share of queries with an expected item in the top k (k = 1, 5, 10);
 *   MRR = mean of 1 / rank of the first expected item, 0 when it is not in the top 10;
 *   confident rank-1 = share of the rank-1 hits whose answer was a confident match (confidence.ts), as `bun run eval`
 *   reports it.
 */
import type { Database } from "bun:sqlite";
import { searchIndex, type SearchMode, type SessionResult, type TurnResult, type VectorLeg } from "../search/index.ts";
import type { Calibrations } from "../search/ranking/calibration.ts";
import { labelKinds, type Label, type LabelKind } from "./labels.ts";
import { withSourceWithheld } from "./withhold.ts";

/** Results read per search: recall@10 and MRR over the top 10. */
export const measuredDepth = 10;

/** How one label ranked at one level. */
export interface LevelOutcome {
  /** 1-based rank of the first expected item in the top {@link measuredDepth}; Infinity when absent. */
  rank: number;
  /** Whether the answer was a confident match (its first result is confident). */
  confident: boolean;
  /** The first result's IDF-weighted keyword coverage (0–1; confidence.ts), 0 for an empty answer. */
  coverage: number;
}

/** How one label ranked. */
export interface LabelOutcome {
  label: Label;
  sessions: LevelOutcome;
  turns: LevelOutcome;
}

/** Options of {@link measureLabels}. */
export interface MeasureOptions {
  /** The search mode to measure: keyword, or hybrid with `vectorLeg`. */
  mode: SearchMode;
  vectorLeg?: VectorLeg;
  /** Rank with this calibration; default what the user's searches use (their tuning, else the committed one). */
  calibrations?: Calibrations;
  /** Called after each label with the labels done and in all. */
  onProgress?: (done: number, total: number) => void;
}

const rankIn = (keys: readonly string[], expected: ReadonlySet<string>): number => {
  const index = keys.findIndex((key) => expected.has(key));
  return index < 0 ? Infinity : index + 1;
};

/**
 * Search every label at both levels with its source withheld.
 * @param db a read-write connection to the index, used by nothing else meanwhile (withhold.ts)
 * @returns one outcome per label, in order
 * @throws whatever the search throws (a vector leg whose endpoint failed); SQLITE_BUSY (withhold.ts)
 */
export async function measureLabels(
  db: Database,
  labels: readonly Label[],
  options: MeasureOptions,
): Promise<LabelOutcome[]> {
  const outcomes: LabelOutcome[] = [];
  for (const label of labels) {
    const sessionKeys = new Set(label.sessions.map((session) => `${session.source}\u0000${session.sessionId}`));
    const turnKeys = new Set(
      label.sessions.flatMap((session) =>
        session.turns.map((turn) => `${session.source}\u0000${session.sessionId}\u0000${turn}`),
      ),
    );
    const outcome = await withSourceWithheld(db, label, async () => {
      const search = (level: "session" | "turn") =>
        searchIndex(
          db,
          {
            query: label.query,
            level,
            filters: { includeSubagents: false },
            limit: measuredDepth,
            mode: options.mode,
            calibrations: options.calibrations,
          },
          options.vectorLeg,
        );
      const sessions = await search("session");
      const turns = await search("turn");
      const sessionResults = sessions.results as SessionResult[];
      const turnResults = turns.results as TurnResult[];
      return {
        label,
        sessions: {
          rank: rankIn(
            sessionResults.map((result) => `${result.source}\u0000${result.sessionId}`),
            sessionKeys,
          ),
          confident: sessions.confident,
          coverage: sessionResults[0]?.coverage ?? 0,
        },
        turns: {
          rank: rankIn(
            turnResults.map((result) => `${result.source}\u0000${result.sessionId}\u0000${result.turn}`),
            turnKeys,
          ),
          confident: turns.confident,
          coverage: turnResults[0]?.coverage ?? 0,
        },
      };
    });
    outcomes.push(outcome);
    options.onProgress?.(outcomes.length, labels.length);
  }
  return outcomes;
}

/** Scores of a group of labels at one level (the `--json` keys). */
export interface GroupScores {
  queries: number;
  recall_at_1: number;
  recall_at_5: number;
  recall_at_10: number;
  mrr: number;
  /** Share of rank-1 hits answered confidently (0–1; 0 when there is none). */
  confident_rank1: number;
}

/** Scores of one level: the whole set, and per kind (only kinds with labels). */
export interface LevelReport extends GroupScores {
  kinds: Partial<Record<LabelKind, GroupScores>>;
}

/** Scores of a group of level outcomes. */
function scoreGroup(outcomes: readonly LevelOutcome[]): GroupScores {
  const n = outcomes.length;
  const share = (count: number, of: number) => (of === 0 ? 0 : count / of);
  const within = (k: number) => share(outcomes.filter((outcome) => outcome.rank <= k).length, n);
  const rankOne = outcomes.filter((outcome) => outcome.rank === 1);
  return {
    queries: n,
    recall_at_1: within(1),
    recall_at_5: within(5),
    recall_at_10: within(measuredDepth),
    mrr: share(
      outcomes.reduce((sum, outcome) => sum + (outcome.rank <= measuredDepth ? 1 / outcome.rank : 0), 0),
      n,
    ),
    confident_rank1: share(rankOne.filter((outcome) => outcome.confident).length, rankOne.length),
  };
}

/** Scores of one level (`sessions` or `turns`) over the outcomes, whole and per kind. */
export function scoreLevel(outcomes: readonly LabelOutcome[], level: "sessions" | "turns"): LevelReport {
  const kinds: Partial<Record<LabelKind, GroupScores>> = {};
  for (const kind of labelKinds) {
    const ofKind = outcomes.filter((outcome) => outcome.label.kind === kind).map((outcome) => outcome[level]);
    if (ofKind.length > 0) kinds[kind] = scoreGroup(ofKind);
  }
  return { ...scoreGroup(outcomes.map((outcome) => outcome[level])), kinds };
}
