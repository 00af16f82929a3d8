/**
 * Calibration per embedding model (issue 27): how hybrid search weighs a model's semantic leg and how far its raw
 * cosine similarity counts as evidence that a result answers the query. The constants are data (calibration.json),
 * fitted by `bun scripts/calibrate-confidence.ts --model M --write` on labelled queries over real sessions
 * (test/corpus/queries.json) and a LoCoMo conversation held out of the reported LoCoMo numbers; each entry says where
 * its numbers come from (`note`).
 *
 * An entry is looked up by the model's name as its fingerprint records it (a preset name, a GGUF file's base name,
 * EMBEDDINGS_MODEL), lower-cased and without `.gguf`, then by its model family (embed/model-family.ts: so
 * `BAAI/bge-small-en-v1.5` through Ollama finds the bge-small entry). Kinds:
 *   * `fitted`: measured on the labelled queries with that model (the Universal Sentence Encoder lite, GloVe);
 *   * `prior`: a documented starting point for a preset a user downloads but these machines cannot run with its real
 *     weights (no Hugging Face access here): see its note; replace it by running the script with the model;
 *   * `default`: no entry. A conservative weight (the keyword leg leads) and no confidence from cosines: an
 *     uncalibrated cosine says nothing comparable across models. `recall doctor` says so.
 */
// The family table alone (a pure lookup), not embed/index.ts: a keyword-only search loads nothing of the embedding side.
import { recognizeModelFamily } from "../../embed/model-family.ts";
import calibrationData from "./calibration.json";

/** A logistic map from one evidence value to a probability: p = 1 / (1 + e^−(slope·x + intercept)). */
export interface LogisticCurve {
  slope: number;
  intercept: number;
}

/** What hybrid search knows about one model. */
export interface ModelCalibration {
  /**
   * `fitted` on labelled queries with this model, a documented `prior`, `tuned` on this user's own history (`recall eval
   * --tune`, search/ranking/tuning.ts), or the `default` for a model without one
   */
  status: "fitted" | "prior" | "tuned" | "default";
  /**
   * The vector leg's weight in hybrid fusion for a natural-language query (0–1; fusion.ts `fuseByEvidence`), before the
   * query's semantic share (query-shape.ts) scales it.
   */
  vectorWeight: number;
  /** Raw cosine → probability that the result answers the query; null: the cosine adds no confidence. */
  vector: LogisticCurve | null;
  /** Where the numbers come from (fitting run and data, or the reasoning of a prior). */
  note: string;
}

/** The whole file: the keyword leg's curve, the default, and the entries per model name or family id. */
export interface Calibrations {
  /** IDF-weighted coverage → probability (confidence.ts). */
  keyword: LogisticCurve;
  /** For a model without an entry. */
  default: Omit<ModelCalibration, "status">;
  /** By lower-case model name (without `.gguf`) or model family id. */
  models: Record<string, Omit<ModelCalibration, "status"> & { status: "fitted" | "prior" | "tuned" }>;
}

/** The committed calibration (calibration.json). */
export const defaultCalibrations: Calibrations = calibrationData as Calibrations;

/** A model's calibration and the entry it came from. */
export interface ResolvedCalibration extends ModelCalibration {
  /** The entry's key (a model name or family id), or `default`. */
  entry: string;
}

/**
 * The name a model's calibration entry is kept under: lower-case, without `.gguf`.
 * Example: `Qwen3-Embedding-0.6B.gguf` → `qwen3-embedding-0.6b`.
 */
export const calibrationKey = (model: string): string => model.toLowerCase().replace(/\.gguf$/, "");

/**
 * The calibration hybrid search uses for `model` (see the module doc for the lookup order).
 * @param model the embedding model's name as its fingerprint records it; undefined (no vector leg) → the default
 */
export function calibrationFor(
  model: string | undefined,
  calibrations: Calibrations = defaultCalibrations,
): ResolvedCalibration {
  if (model !== undefined) {
    const name = calibrationKey(model);
    const familyId = recognizeModelFamily(name)?.id;
    for (const key of [name, familyId]) {
      const entry = key === undefined ? undefined : calibrations.models[key];
      if (entry && key !== undefined) return { ...entry, entry: key };
    }
  }
  return { ...calibrations.default, status: "default", entry: "default" };
}

/** One line for `doctor` and `--explain`: which calibration a model gets and what that means. */
export function describeCalibration(model: string, calibration: ResolvedCalibration): string {
  const weight = `vector weight ${calibration.vectorWeight}`;
  const cosine = calibration.vector ? "cosine counts toward confidence" : "cosine adds no confidence";
  if (calibration.status === "default")
    return `${model} has no calibration: hybrid search uses the conservative default (${weight}, ${cosine}); run scripts/calibrate-confidence.ts --model ${model} on labelled queries to fit one`;
  return `${model}: ${calibration.status} calibration "${calibration.entry}" (${weight}, ${cosine})`;
}
