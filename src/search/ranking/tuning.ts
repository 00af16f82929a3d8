/**
 * The user's own tuning (issue 43): what `recall eval --tune` fitted on labelled queries from this history (commit
 * messages and agent-written titles, evaluate/labels.ts) and kept because it measured no worse on the half of the
 * labels it was not fitted on. It lives beside the model's calibration, in the index's `meta` table under
 * {@link tuningMetaKey}, so every front end's search reads it with the index (never from the network, removed by
 * `recall eval --reset` and with the index). It overrides two numbers of the committed calibration (calibration.ts):
 *   * the vector leg's weight in hybrid fusion, for the model it was fitted with only (another model keeps its own);
 *   * the keyword confidence curve (confidence.ts), never more lenient than the committed one: the user's labels hold
 *     no negatives, so they can make confidence stricter, not looser.
 */
import type { Database } from "bun:sqlite";
import { readMeta } from "../../index/schema.ts";
import {
  calibrationFor,
  calibrationKey,
  defaultCalibrations,
  type Calibrations,
  type LogisticCurve,
} from "./calibration.ts";
import { cachedUntilChange } from "./version-cache.ts";

/** The `meta` key the tuning is stored under (JSON of {@link Tuning}). */
export const tuningMetaKey = "tuning";

/** Level-1 recall@5 and MRR of one half of the labels (0–1 each). */
export interface HeldOutScores {
  recallAt5: number;
  mrr: number;
}

/** What `recall eval --tune` stored. */
export interface Tuning {
  version: 1;
  /** The embedding model the weight was fitted with (its fingerprint's name), or null when fitted keyword-only. */
  model: string | null;
  /** The vector leg's weight for `model` (0–1), or null when the committed weight measured as well. */
  vectorWeight: number | null;
  /** The keyword confidence curve, or null when the committed one measured as well. */
  keyword: LogisticCurve | null;
  /** When it was fitted (epoch ms). */
  tunedAt: number;
  /** Labelled queries in all, and in the held-out half it was measured on. */
  labels: number;
  heldOutQueries: number;
  /** The held-out half at level 1 with the committed calibration and with this tuning, in the mode it was fitted in. */
  before: HeldOutScores;
  after: HeldOutScores;
}

/** Whether `value` has the shape of a {@link Tuning} (a damaged or foreign meta value is ignored, not trusted). */
function isTuning(value: unknown): value is Tuning {
  const tuning = value as Partial<Tuning> | null;
  return (
    typeof tuning === "object" &&
    tuning !== null &&
    tuning.version === 1 &&
    (tuning.model === null || typeof tuning.model === "string") &&
    (tuning.vectorWeight === null ||
      (typeof tuning.vectorWeight === "number" && tuning.vectorWeight >= 0 && tuning.vectorWeight <= 1)) &&
    (tuning.keyword === null ||
      (typeof tuning.keyword?.slope === "number" && typeof tuning.keyword?.intercept === "number")) &&
    typeof tuning.tunedAt === "number" &&
    typeof tuning.before?.recallAt5 === "number" &&
    typeof tuning.after?.recallAt5 === "number"
  );
}

/** The stored tuning of an index, or undefined when there is none (or it is not one this version understands). */
export function readTuning(db: Database): Tuning | undefined {
  return cachedUntilChange(db, tuningMetaKey, () => {
    const stored = readMeta(db, tuningMetaKey);
    if (stored === undefined) return undefined;
    try {
      const parsed: unknown = JSON.parse(stored);
      return isTuning(parsed) ? parsed : undefined;
    } catch {
      return undefined;
    }
  });
}

/**
 * The committed calibration with a tuning's numbers in it: its keyword curve when it has one, and a `tuned` entry for
 * its model (the model's own vector curve kept) when it has a weight.
 */
export function tunedCalibrations(
  tuning: Pick<Tuning, "model" | "vectorWeight" | "keyword">,
  base: Calibrations = defaultCalibrations,
): Calibrations {
  const models = { ...base.models };
  if (tuning.model !== null && tuning.vectorWeight !== null) {
    const own = calibrationFor(tuning.model, base);
    models[calibrationKey(tuning.model)] = {
      status: "tuned",
      vectorWeight: tuning.vectorWeight,
      vector: own.vector,
      note: `tuned on this history by recall eval --tune (from ${own.entry}, weight ${own.vectorWeight})`,
    };
  }
  return { ...base, keyword: tuning.keyword ?? base.keyword, models };
}

/**
 * Words for `doctor`, `--explain` and `recall eval`, read after "your own tuning": `of 2026-11-29 by recall eval --tune
 * (vector weight 0.2 for <model>; 106 labelled queries, held-out half of 53: recall@5 0.755 → 0.774, MRR …)`.
 */
export function describeTuning(tuning: Tuning): string {
  const parts = [
    ...(tuning.vectorWeight !== null ? [`vector weight ${tuning.vectorWeight} for ${tuning.model}`] : []),
    ...(tuning.keyword !== null ? ["a stricter keyword confidence curve"] : []),
  ];
  const round = (value: number) => value.toFixed(3);
  return `of ${new Date(tuning.tunedAt).toISOString().slice(0, 10)} by recall eval --tune (${parts.join(", ")}; ${tuning.labels} labelled queries, held-out half of ${tuning.heldOutQueries}: recall@5 ${round(tuning.before.recallAt5)} → ${round(tuning.after.recallAt5)}, MRR ${round(tuning.before.mrr)} → ${round(tuning.after.mrr)})`;
}
