/**
 * The doctor's check of the user's own tuning (issue 43): whether searches rank with what `recall eval --tune` fitted
 * on this history, and how it measured on the held-out half; a tuning fitted with another model than the configured
 * one keeps only its keyword curve, which the check says.
 */
import type { Database } from "bun:sqlite";
import { modelNameOf, type EmbedConfig } from "../embed/index.ts";
import { calibrationKey } from "../search/ranking/calibration.ts";
import { describeTuning, readTuning } from "../search/ranking/tuning.ts";
import type { CheckResult } from "./checks.ts";

/**
 * OK with what the tuning is and measured, or that there is none (optional); WARN when its weight was fitted with
 * another model than the configured one.
 * @param db the index, or undefined when there is none
 * @param config the configured embedding model, or undefined when none is set
 */
export function checkTuning(db: Database | undefined, config: EmbedConfig | undefined): CheckResult {
  const tuning = db ? readTuning(db) : undefined;
  if (!tuning)
    return {
      id: "tuning",
      status: "ok",
      message: "no tuning of your own (optional): `recall eval` measures search on your history, `--tune` fits it",
    };
  const message = `searches rank with your own tuning ${describeTuning(tuning)}`;
  const model = config ? modelNameOf(config) : undefined;
  if (
    tuning.vectorWeight !== null &&
    tuning.model !== null &&
    model !== undefined &&
    calibrationKey(tuning.model) !== calibrationKey(model)
  )
    return {
      id: "tuning",
      status: "warn",
      message: `${message}; its vector weight was fitted with ${tuning.model}, not ${model}, so it is not used`,
      fix: "run `recall eval --tune` again with this model, or `recall eval --reset`",
    };
  return { id: "tuning", status: "ok", message };
}
