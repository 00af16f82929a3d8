/**
 * Decide whether a search can use vectors: the index must hold embedded chunks, the model must
 * open, and it must be the model that wrote them. Otherwise the search runs keyword-only and the
 * one-line reason is returned for stderr.
 */
import type { Database } from "bun:sqlite";
import { isRecallError } from "../errors.ts";
import { embedFingerprintKey, readMeta } from "../index/index.ts";
import { createVectorLeg, type VectorLeg } from "../search/index.ts";
import type { EmbedderOpener } from "./embedder.ts";

/** The vector leg, or the reason there is none. */
export interface VectorLegChoice {
  leg: VectorLeg | undefined;
  notice: string | undefined;
}

/** Open the vector leg for a search (loads the model only when vectors exist). */
export async function openVectorLeg(db: Database, recallHome: string, opener: EmbedderOpener): Promise<VectorLegChoice> {
  const stored = readMeta(db, embedFingerprintKey);
  const hasVectors = stored !== undefined && db.query("SELECT 1 FROM chunks WHERE status = 1 LIMIT 1").get() !== null;
  if (!hasVectors) return { leg: undefined, notice: "keyword-only search: no embeddings yet (run `recall index`; it fetches the default model when online, or set --model / RECALL_MODEL)" };
  try {
    const embedder = await opener.open();
    if (embedder.fingerprintKey !== stored) {
      return { leg: undefined, notice: `keyword-only search: the vectors were built with another model than ${embedder.fingerprint.name} (run \`recall index\` to re-embed)` };
    }
    return { leg: createVectorLeg(db, recallHome, embedder), notice: undefined };
  } catch (error) {
    return { leg: undefined, notice: `keyword-only search: ${isRecallError(error) ? error.message : (error as Error).message}` };
  }
}
