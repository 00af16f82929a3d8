/**
 * Decide whether a search can use vectors: the index must hold embedded chunks, the model must open, it must be
 * the model that wrote them, and the vector files must hold a usable row for every embedded chunk. Otherwise the
 * search runs keyword-only, reports `"mode": "keyword"`, and the one-line reason is returned for stderr
 * (issue 9: with `.vec` files deleted or damaged, search ran without its vector leg while reporting "hybrid"), with
 * advice that can help: under RECALL_OFFLINE=1 no download can, so it says how to point recall at a model file on
 * the machine instead (issue 26: every offline search advised `recall index`, which cannot fetch a model offline).
 */
import type { Database } from "bun:sqlite";
import { isRecallError } from "../errors.ts";
import { countOf } from "../render/format.ts";
import {
  embedFingerprintKey,
  findVectorDamage,
  readMeta,
  readReembedProgress,
  type VectorFileReport,
} from "../index/index.ts";
import { createVectorLeg, openVectorStores, type VectorLeg } from "../search/index.ts";
import { isOffline, type QueryEmbedder } from "../embed/index.ts";

/** The vector leg, or the reason there is none. */
export interface VectorLegChoice {
  leg: VectorLeg | undefined;
  /** One line for stderr when there is no leg: `keyword-only search: <reason> (<hint>)`. */
  notice: string | undefined;
  /** Why there is no leg, and what to do about it (for an error when the search cannot do without: `--vector-only`). */
  reason?: string;
  hint?: string;
  /**
   * True when the index has never held vectors: keyword-only by the user's set-up, not by a fault. Interactive front
   * ends (pick, ui) say nothing then; they say `notice` when vectors exist but cannot be used.
   */
  neverEmbedded?: boolean;
}

/** No leg, for `reason`; the notice carries the hint in parentheses. */
const without = (reason: string, hint: string | undefined): VectorLegChoice => ({
  leg: undefined,
  notice: `keyword-only search: ${reason}${hint ? ` (${hint})` : ""}`,
  reason,
  hint,
});

/** Where a model comes from when recall may not download one: a .gguf file on this machine (RECALL_MODEL, --model). */
const offlineModelAdvice =
  "set RECALL_MODEL or --model to a .gguf file on this machine, or unset RECALL_OFFLINE to download one or to use an EMBEDDINGS_URL endpoint";

/** How many vectors are missing, the first damaged file, and what to run. */
function describeDamage(report: VectorFileReport): VectorLegChoice {
  const files =
    report.problems.length === 0
      ? ""
      : `: ${report.problems[0]}${report.problems.length > 1 ? ` and ${countOf(report.problems.length - 1, "more file")}` : ""}`;
  return without(
    `${report.missingChunks} of ${report.embeddedChunks} vectors are missing or damaged${files}`,
    "run `recall index` to rebuild them",
  );
}

/**
 * Open the vector leg for a search (opens the model only when vectors exist).
 * @param opener an EmbedderOpener (loads the model here) or the embedding helper's query embedder
 */
export async function openVectorLeg(
  db: Database,
  recallHome: string,
  opener: { open(): Promise<QueryEmbedder> },
  env: Record<string, string | undefined> = process.env,
): Promise<VectorLegChoice> {
  const stored = readMeta(db, embedFingerprintKey);
  const hasVectors = stored !== undefined && db.query("SELECT 1 FROM chunks WHERE status = 1 LIMIT 1").get() !== null;
  if (!hasVectors)
    return {
      ...(isOffline(env)
        ? without(
            "no embeddings yet, and RECALL_OFFLINE=1 forbids downloading a model",
            `${offlineModelAdvice}; then run \`recall index\``,
          )
        : without(
            "no embeddings yet",
            "run `recall index`; it fetches the default model when online, or set --model / RECALL_MODEL",
          )),
      neverEmbedded: true,
    };
  try {
    const embedder = await opener.open();
    if (embedder.fingerprintKey !== stored) {
      const reembed = readReembedProgress(db);
      if (reembed?.fingerprintKey === embedder.fingerprintKey) {
        const share = reembed.totalChunks === 0 ? 0 : Math.floor((100 * reembed.doneChunks) / reembed.totalChunks);
        return without(
          `re-embedding with ${embedder.fingerprint.name} is ${share}% done`,
          "run `recall index` to finish it; its vectors are used once complete",
        );
      }
      return without(
        `the vectors were built with another model than ${embedder.fingerprint.name}`,
        "run `recall index` to re-embed",
      );
    }
    const stores = openVectorStores(recallHome, embedder);
    // A finding is checked once more on fresh mappings: a concurrent compaction (new segment renamed in, old
    // ones deleted between listing and mapping) must not read as damage.
    const damage = findVectorDamage(db, recallHome, embedder, stores) && findVectorDamage(db, recallHome, embedder);
    if (damage) return describeDamage(damage);
    return { leg: createVectorLeg(db, recallHome, embedder, stores), notice: undefined };
  } catch (error) {
    if (!isRecallError(error)) return without((error as Error).message, undefined);
    // A missing model cannot be downloaded offline: its hint (`recall model pull`) cannot help there.
    if (isOffline(env) && error.code === "MODEL_MISSING")
      return without(`${error.message}, and RECALL_OFFLINE=1 forbids downloading it`, offlineModelAdvice);
    return without(error.message, error.hint);
  }
}
