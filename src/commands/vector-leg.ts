/**
 * Decide whether a search can use vectors: the index must hold embedded chunks, the model must open, it must be
 * the model that wrote them, and the vector files must hold a usable row for every embedded chunk. Otherwise the
 * search runs keyword-only, reports `"mode": "keyword"`, and the one-line reason is returned for stderr
 * (issue 9: with `.vec` files deleted or damaged, search ran without its vector leg while reporting "hybrid").
 */
import type { Database } from "bun:sqlite";
import { isRecallError } from "../errors.ts";
import {
  embedFingerprintKey,
  findVectorDamage,
  readMeta,
  readReembedProgress,
  type VectorFileReport,
} from "../index/index.ts";
import { createVectorLeg, openVectorStores, type VectorLeg } from "../search/index.ts";
import type { QueryEmbedder } from "../embed/index.ts";

/** The vector leg, or the reason there is none. */
export interface VectorLegChoice {
  leg: VectorLeg | undefined;
  notice: string | undefined;
}

/** One line: how many vectors are missing, the first damaged file, and what to run. */
function describeDamage(report: VectorFileReport): string {
  const files =
    report.problems.length === 0
      ? ""
      : `: ${report.problems[0]}${report.problems.length > 1 ? ` and ${report.problems.length - 1} more file(s)` : ""}`;
  return `keyword-only search: ${report.missingChunks} of ${report.embeddedChunks} vectors are missing or damaged${files} (run \`recall index\` to rebuild them)`;
}

/**
 * Open the vector leg for a search (opens the model only when vectors exist).
 * @param opener an EmbedderOpener (loads the model here) or the embedding helper's query embedder
 */
export async function openVectorLeg(
  db: Database,
  recallHome: string,
  opener: { open(): Promise<QueryEmbedder> },
): Promise<VectorLegChoice> {
  const stored = readMeta(db, embedFingerprintKey);
  const hasVectors = stored !== undefined && db.query("SELECT 1 FROM chunks WHERE status = 1 LIMIT 1").get() !== null;
  if (!hasVectors)
    return {
      leg: undefined,
      notice:
        "keyword-only search: no embeddings yet (run `recall index`; it fetches the default model when online, or set --model / RECALL_MODEL)",
    };
  try {
    const embedder = await opener.open();
    if (embedder.fingerprintKey !== stored) {
      const reembed = readReembedProgress(db);
      if (reembed?.fingerprintKey === embedder.fingerprintKey) {
        const share = reembed.totalChunks === 0 ? 0 : Math.floor((100 * reembed.doneChunks) / reembed.totalChunks);
        return {
          leg: undefined,
          notice: `keyword-only search: re-embedding with ${embedder.fingerprint.name} is ${share}% done (run \`recall index\` to finish it; its vectors are used once complete)`,
        };
      }
      return {
        leg: undefined,
        notice: `keyword-only search: the vectors were built with another model than ${embedder.fingerprint.name} (run \`recall index\` to re-embed)`,
      };
    }
    const stores = openVectorStores(recallHome, embedder);
    // A finding is checked once more on fresh mappings: a concurrent compaction (new segment renamed in, old
    // ones deleted between listing and mapping) must not read as damage.
    const damage = findVectorDamage(db, recallHome, embedder, stores) && findVectorDamage(db, recallHome, embedder);
    if (damage) return { leg: undefined, notice: describeDamage(damage) };
    return { leg: createVectorLeg(db, recallHome, embedder, stores), notice: undefined };
  } catch (error) {
    return {
      leg: undefined,
      notice: `keyword-only search: ${isRecallError(error) ? error.message : (error as Error).message}`,
    };
  }
}
