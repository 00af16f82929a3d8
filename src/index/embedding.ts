/**
 * The embedding phase of an index run (issue 4). Pipeline:
 *   1. compare the model fingerprint stored in `meta` with the embedder's; on a change, drop every
 *      chunk and vector (clear notice) so everything is re-embedded with the new model;
 *   2. chunk documents that have no chunks yet (new or changed documents: the writer drops the
 *      chunks of a document whose text changed), with the model's tokenizer (chunking.ts);
 *   3. embed pending and previously failed chunks in batches: append the vectors as one new segment
 *      per level, then mark the chunks embedded in one transaction (a crash in between re-embeds the
 *      batch; the store keeps the newest row of an id). Texts that still fail are marked failed and
 *      retried next run; they never get a zero vector;
 *   4. compact a level when more than 30% of its rows are dead.
 * Before this phase, each run repairs deleted or damaged vector files (vector-files.ts `repairVectorFiles`).
 * A chunk id is its vector row id. Never prints: hooks carry progress and notices.
 * Every transaction that changes which chunks are embedded also records the segment files on disk
 * (vector-files.ts), so a search can tell in O(files) that none was deleted or damaged since (issue 9).
 */
import type { Database } from "bun:sqlite";
import type { Embedder } from "../embed/index.ts";
import { buildIdFilter, type VectorStore } from "../native/index.ts";
import { chunkBudget, splitIntoChunks } from "./chunking.ts";
import { loadDocumentTexts } from "./documents.ts";
import { chunkStatus, readMeta, writeMeta } from "./schema.ts";
import { embedFingerprintKey, openLevelStore, recordVectorFiles, vectorLevels } from "./vector-files.ts";

export { embedFingerprintKey, openLevelStore, vectorLevels };

/** Hooks of the embedding phase. */
export interface EmbeddingHooks {
  onProgress?(progress: { done: number; total: number }): void;
  onNotice?(message: string): void;
}

/** What the embedding phase did; counts are chunks. */
export interface EmbeddingSummary {
  embedded: number;
  failed: number;
  /** True when the model changed and every vector was dropped first. */
  reembedAll: boolean;
}

/** Chunks per embedding batch (and per checkpoint). */
const batchSize = 32;

/** Run the embedding phase; the caller holds the index lock. */
export async function embedPending(db: Database, recallHome: string, embedder: Embedder, hooks: EmbeddingHooks = {}): Promise<EmbeddingSummary> {
  const stores = Object.fromEntries(vectorLevels.map((level) => [level, openLevelStore(recallHome, level, embedder, hooks.onNotice)])) as Record<(typeof vectorLevels)[number], VectorStore>;
  const reembedAll = readMeta(db, embedFingerprintKey) !== embedder.fingerprintKey || vectorLevels.some((level) => stores[level].mismatch !== undefined);
  if (reembedAll) {
    if (readMeta(db, embedFingerprintKey)) hooks.onNotice?.(`the embedding model changed (now ${embedder.fingerprint.name}, ${embedder.dims} dims): re-embedding every document`);
    for (const level of vectorLevels) stores[level].reset();
    db.transaction(() => {
      db.exec("DELETE FROM chunks");
      writeMeta(db, embedFingerprintKey, embedder.fingerprintKey);
      recordVectorFiles(db, recallHome, stores);
    }).immediate();
  }
  chunkNewDocuments(db, embedder);
  const summary: EmbeddingSummary = { embedded: 0, failed: 0, reembedAll };
  const pending = db
    .query<{ id: number; text: string; level: "session" | "turn" }, [number]>(
      "SELECT c.id, c.text, d.level FROM chunks c JOIN documents d ON d.id = c.document_id WHERE c.status != ? ORDER BY c.id",
    )
    .all(chunkStatus.embedded);
  for (let start = 0; start < pending.length; start += batchSize) {
    const batch = pending.slice(start, start + batchSize);
    const vectors = await embedder.embedDocuments(batch.map((chunk) => chunk.text));
    for (const level of vectorLevels) {
      const rows = batch.flatMap((chunk, i) => (chunk.level === level && vectors[i] ? [{ id: chunk.id, vector: vectors[i]! }] : []));
      stores[level].append(rows.map((row) => row.id), rows.map((row) => row.vector));
    }
    const mark = db.query("UPDATE chunks SET status = ? WHERE id = ?");
    db.transaction(() => {
      batch.forEach((chunk, i) => mark.run(vectors[i] ? chunkStatus.embedded : chunkStatus.failed, chunk.id));
      recordVectorFiles(db, recallHome, stores);
    }).immediate();
    const failed = vectors.filter((vector) => !vector).length;
    summary.failed += failed;
    summary.embedded += batch.length - failed;
    hooks.onProgress?.({ done: Math.min(start + batchSize, pending.length), total: pending.length });
  }
  for (const level of vectorLevels) {
    const live = db.query<{ id: number }, [string, number]>("SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.level = ? AND c.status = ?").all(level, chunkStatus.embedded);
    stores[level].compactIfNeeded(buildIdFilter(live.map((row) => row.id)));
  }
  // After a compaction (a crash before this commit only costs the next search an exact check).
  db.transaction(() => recordVectorFiles(db, recallHome, stores)).immediate();
  for (const level of vectorLevels) stores[level].close();
  return summary;
}

/** Create chunk rows (pending) for every document that has none. */
function chunkNewDocuments(db: Database, embedder: Embedder): void {
  const budget = chunkBudget(embedder.contextTokens);
  const ids = db
    .query<{ id: number }, []>("SELECT d.id FROM documents d WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id)")
    .all()
    .map((row) => row.id);
  const insert = db.query("INSERT INTO chunks(document_id, chunk_index, text, status) VALUES (?, ?, ?, ?)");
  for (let start = 0; start < ids.length; start += 500) {
    const texts = loadDocumentTexts(db, ids.slice(start, start + 500));
    const slice = [...texts].map(([id, text]) => ({ id, chunks: splitIntoChunks(text.embedText, budget, (part) => embedder.countTokens(part)) }));
    db.transaction(() => {
      for (const document of slice) document.chunks.forEach((text, index) => insert.run(document.id, index, text, chunkStatus.pending));
    }).immediate();
  }
}
