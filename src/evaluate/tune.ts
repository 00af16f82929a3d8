/**
 * `recall eval --tune` (issue 43): fit the fusion weight and the keyword confidence curve on half of the user's
 * labels, measure the other half before and after, and keep the result only when the held-out half is no worse.
 *   * Split: each label goes to the fitting or the held-out half by a hash of its kind and query (stable across runs:
 *     the same history splits the same way).
 *   * Weight (hybrid only, with the model the index was embedded with): each of {@link candidateWeights} is tried on
 *     the fitting half; its score is (session MRR + turn MRR) / 2, as scripts/calibrate-confidence.ts scores the
 *     committed weights; a weight replaces the committed one only when it scores strictly higher.
 *   * Keyword confidence curve: fitted (logistic.ts) on the fitting half's first results (evidence: the IDF-weighted
 *     coverage; right when it is the expected session), kept when it separates (AUC ≥ {@link minimumAuc}) and is
 *     stricter than the committed one (its p = 0.5 point at a higher coverage): the labels hold no negatives, so a
 *     looser curve could not be checked against them.
 *   * Kept when, on the held-out half at level 1, recall@5 and MRR are no lower, the turn-level MRR is no lower, the
 *     share of answers whose confidence was right (confident exactly when the first result is expected) is no lower,
 *     and one of them is higher. Otherwise nothing is stored and searches keep what they had.
 */
import type { Database } from "bun:sqlite";
import { RecallError } from "../errors.ts";
import { writeMeta } from "../index/index.ts";
import type { SearchMode, VectorHit, VectorLeg } from "../search/index.ts";
import {
  calibrationFor,
  defaultCalibrations,
  type Calibrations,
  type LogisticCurve,
} from "../search/ranking/calibration.ts";
import {
  readTuning,
  tunedCalibrations,
  tuningMetaKey,
  type HeldOutScores,
  type Tuning,
} from "../search/ranking/tuning.ts";
import type { Label } from "./labels.ts";
import { areaUnderCurve, evenOddsAt, fitLogistic } from "./logistic.ts";
import { measureLabels, scoreLevel, type LabelOutcome } from "./measure.ts";

/** Fewest labels `--tune` fits on (issue 43): half of them, 25, is the least that says anything about a weight. */
export const minimumTuningLabels = 50;

/** Vector weights tried: finer near 0, where a weak model's best weight lies (the committed fitting's grid). */
export const candidateWeights = [0, 0.025, 0.05, 0.075, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];

/** Below this AUC the coverage does not separate right from wrong first results well enough to fit a curve on. */
export const minimumAuc = 0.75;

/** Options of {@link tuneOnLabels}. */
export interface TuneOptions {
  /** The vector leg with the index's model; absent → keyword-only (only the confidence curve can be tuned). */
  vectorLeg?: VectorLeg;
  /** Called after each label searched: the searches of labels done and planned in all (the fitting half once per weight
   * tried, or once keyword-only; the held-out half twice). */
  onProgress?: (done: number, total: number) => void;
}

/** The held-out half's level-1 and level-2 measures under one calibration. */
export interface HeldOutMeasure extends HeldOutScores {
  turnMrr: number;
  /** Share of held-out queries whose answer's confidence was right (confident exactly when rank 1 is expected). */
  confidenceAccuracy: number;
}

/** What {@link tuneOnLabels} found. */
export interface TuneReport {
  mode: SearchMode;
  model: string | null;
  labels: number;
  fittingQueries: number;
  heldOutQueries: number;
  /** The committed weight for the model and the one fitted (the same when none scored higher). */
  weight: { committed: number; fitted: number } | null;
  /** The fitted keyword curve (null: the committed one stays), and why. */
  keyword: { curve: LogisticCurve | null; auc: number; note: string };
  before: HeldOutMeasure;
  after: HeldOutMeasure;
  /** The tuning to store, or undefined when it was not kept. */
  tuning: Tuning | undefined;
  /** One line on why it was or was not kept. */
  verdict: string;
}

/** Which half a label falls in (stable: a hash of its kind and query). */
const isHeldOut = (label: Label): boolean => Number(Bun.hash(`${label.kind}\u0000${label.query}`) % 2n) === 1;

/** A vector leg that answers each distinct search once: the vector hits do not depend on the weight being tried. */
function memoized(leg: VectorLeg): VectorLeg {
  const answers = new Map<string, Promise<VectorHit[]>>();
  return {
    model: leg.model,
    search(query, level, filters, candidates) {
      const key = JSON.stringify([query, level, filters, candidates]);
      const answer = answers.get(key) ?? leg.search(query, level, filters, candidates);
      answers.set(key, answer);
      return answer;
    },
  };
}

function heldOutMeasure(outcomes: readonly LabelOutcome[]): HeldOutMeasure {
  const sessions = scoreLevel(outcomes, "sessions");
  const right = outcomes.filter((outcome) => outcome.sessions.confident === (outcome.sessions.rank === 1)).length;
  return {
    recallAt5: sessions.recall_at_5,
    mrr: sessions.mrr,
    turnMrr: scoreLevel(outcomes, "turns").mrr,
    confidenceAccuracy: outcomes.length === 0 ? 0 : right / outcomes.length,
  };
}

const fittingScore = (outcomes: readonly LabelOutcome[]): number =>
  (scoreLevel(outcomes, "sessions").mrr + scoreLevel(outcomes, "turns").mrr) / 2;

/** The committed calibration with `weight` for `model` (a `tuned` entry) and `keyword` when given. */
const candidateCalibrations = (model: string | null, weight: number | null, keyword: LogisticCurve | null) =>
  tunedCalibrations({ model, vectorWeight: weight, keyword }, defaultCalibrations);

/**
 * Fit, measure and decide (module doc). Never writes: the caller stores `tuning` when there is one.
 * @param db a read-write connection to the index, used by nothing else meanwhile (withhold.ts)
 * @throws RecallError TOO_FEW_LABELS (exit 1) below {@link minimumTuningLabels} labels; whatever measuring throws
 */
export async function tuneOnLabels(
  db: Database,
  labels: readonly Label[],
  options: TuneOptions = {},
): Promise<TuneReport> {
  if (labels.length < minimumTuningLabels)
    throw new RecallError(
      "TOO_FEW_LABELS",
      `tuning needs at least ${minimumTuningLabels} labelled queries, and this history gave ${labels.length}`,
      { hint: "`recall eval` shows what it found; commit messages and agent-written titles make labels" },
    );
  const fitting = labels.filter((label) => !isHeldOut(label));
  const heldOut = labels.filter(isHeldOut);
  const vectorLeg = options.vectorLeg ? memoized(options.vectorLeg) : undefined;
  const mode: SearchMode = vectorLeg ? "hybrid" : "keyword";
  const model = vectorLeg?.model ?? null;
  const committedWeight = model === null ? undefined : calibrationFor(model).vectorWeight;
  // Keyword-only, the fitting half is measured once (for the confidence curve); with a model, once per weight tried.
  const fittingPasses = model === null ? 1 : 1 + candidateWeights.filter((weight) => weight !== committedWeight).length;
  const planned = fittingPasses * fitting.length + 2 * heldOut.length;
  let finished = 0;
  const measure = async (set: readonly Label[], calibrations: Calibrations) => {
    const outcomes = await measureLabels(db, set, {
      mode,
      vectorLeg,
      calibrations,
      onProgress: (done) => options.onProgress?.(Math.min(finished + done, planned), planned),
    });
    finished += set.length;
    return outcomes;
  };

  // The fitting half under the committed calibration; with a model, under the best weight: the curve is fitted on it.
  const committedOutcomes = await measure(fitting, defaultCalibrations);
  let best = { weight: committedWeight, outcomes: committedOutcomes, score: fittingScore(committedOutcomes) };
  if (model !== null)
    for (const candidate of candidateWeights) {
      if (candidate === committedWeight) continue;
      const outcomes = await measure(fitting, candidateCalibrations(model, candidate, null));
      const score = fittingScore(outcomes);
      if (score > best.score + 1e-9) best = { weight: candidate, outcomes, score };
    }
  const weight: TuneReport["weight"] =
    committedWeight === undefined || best.weight === undefined
      ? null
      : { committed: committedWeight, fitted: best.weight };
  const fittedWeight = best.weight === undefined || best.weight === committedWeight ? null : best.weight;

  const samples = best.outcomes.map((outcome) => ({
    x: outcome.sessions.coverage,
    label: outcome.sessions.rank === 1 ? (1 as const) : (0 as const),
  }));
  const curve = fitLogistic(samples);
  const auc = areaUnderCurve(samples);
  const stricter = evenOddsAt(curve) > evenOddsAt(defaultCalibrations.keyword) + 1e-6;
  const keyword = {
    curve: auc >= minimumAuc && curve.slope > 0 && stricter ? curve : null,
    auc,
    note:
      auc < minimumAuc || curve.slope <= 0
        ? `coverage does not separate right from wrong first results (AUC ${auc.toFixed(3)})`
        : stricter
          ? `confident from coverage ${evenOddsAt(curve).toFixed(3)} (committed: ${evenOddsAt(defaultCalibrations.keyword).toFixed(3)})`
          : "the fitted curve is no stricter than the committed one",
  };

  const before = heldOutMeasure(await measure(heldOut, defaultCalibrations));
  const nothingFitted = fittedWeight === null && keyword.curve === null;
  const after = nothingFitted
    ? before
    : heldOutMeasure(await measure(heldOut, candidateCalibrations(model, fittedWeight, keyword.curve)));
  const keys = ["recallAt5", "mrr", "turnMrr", "confidenceAccuracy"] as const;
  const noWorse = keys.every((key) => after[key] >= before[key] - 1e-9);
  const better = keys.some((key) => after[key] > before[key] + 1e-9);
  const kept = !nothingFitted && noWorse && better;
  const verdict = nothingFitted
    ? "the committed calibration measured best on the fitting half: nothing to tune"
    : !noWorse
      ? "the tuning measured worse on the held-out half: not kept"
      : !better
        ? "the tuning measured the same on the held-out half: not kept"
        : "the tuning measured better on the held-out half: kept";
  return {
    mode,
    model,
    labels: labels.length,
    fittingQueries: fitting.length,
    heldOutQueries: heldOut.length,
    weight,
    keyword,
    before,
    after,
    verdict,
    tuning: kept
      ? {
          version: 1,
          model,
          vectorWeight: fittedWeight,
          keyword: keyword.curve,
          tunedAt: Date.now(),
          labels: labels.length,
          heldOutQueries: heldOut.length,
          before: { recallAt5: before.recallAt5, mrr: before.mrr },
          after: { recallAt5: after.recallAt5, mrr: after.mrr },
        }
      : undefined,
  };
}

/** Store `tuning` in the index (`meta`), replacing any earlier one: every search ranks with it from now on. */
export function storeTuning(db: Database, tuning: Tuning): void {
  writeMeta(db, tuningMetaKey, JSON.stringify(tuning));
}

/** Remove the stored tuning (`recall eval --reset`). @returns whether there was one */
export function removeTuning(db: Database): boolean {
  const had = readTuning(db) !== undefined;
  db.query("DELETE FROM meta WHERE key = ?").run(tuningMetaKey);
  return had;
}
