/**
 * The embedding phase of an index run (issues 4 and 12). Pipeline:
 *   1. pick the generation to write (generations.ts): the vectors in use when the embedder's fingerprint is the one
 *      stored, else (another model, backend, dims, pooling or prefix, or `--reembed`) a next generation built beside
 *      them, resumed across runs, and swapped in when complete, so searches keep the old vectors until then;
 *   2. chunk documents that have no chunks yet in that generation (new or changed documents: the writer drops the
 *      chunks of a document whose embedded text changed), with the model's tokenizer (chunking.ts); a document with
 *      nothing to embed gets one `skipped` chunk, so it is done and never makes a run load the model;
 *   3. embed pending and previously failed chunks in slices (`sliceSizeFor`: one embedDocuments call, so a remote
 *      backend keeps several requests in flight): append the vectors as one new segment per level, then mark the
 *      chunks in one transaction (a crash in between re-embeds the slice; the store keeps the newest row of an id).
 *      A text that fails is marked failed and retried next run; one the model rejects for good (`onTextRejected`)
 *      is marked rejected and not sent again; it never gets a zero vector. When the endpoint stops answering
 *      (EmbedError ENDPOINT_UNREACHABLE, the remote circuit breaker) or refuses the key (ENDPOINT_AUTH), the phase
 *      stops with what it committed, reports it in `stopped`, and leaves the rest pending;
 *   4. compact a level when more than 30% of its rows are dead.
 * Before this phase, each run undoes an interrupted swap and repairs deleted or damaged vector files
 * (vector-files.ts `repairVectorFiles`). A chunk id is its vector row id. Never prints: hooks carry progress and notices.
 * Every transaction that changes which chunks of the current generation are embedded also records the segment
 * files on disk (vector-files.ts), so a search can tell in O(files) that none was deleted or damaged since (issue 9).
 */
import type { Database } from "bun:sqlite";
import type { Embedder } from "../../embed/index.ts";
import { isRecallError } from "../../errors.ts";
import { buildIdFilter, type VectorStore } from "../../native/index.ts";
import { chunkBudget, splitIntoChunks } from "../write/chunking.ts";
import { loadDocumentTexts } from "../write/documents.ts";
import {
  beginNextGeneration,
  currentGeneration,
  dropNextGeneration,
  isGenerationComplete,
  nextGeneration,
  swapInNextGeneration,
  type VectorGeneration,
} from "./generations.ts";
import { nextFingerprintKey } from "./reembed-progress.ts";
import { chunkStatus, readMeta, writeMeta } from "../schema.ts";
import { embedFingerprintKey, openLevelStore, recordVectorFiles, vectorLevels } from "./vector-files.ts";

export { embedFingerprintKey, openLevelStore, vectorLevels };

/** Hooks of the embedding phase. */
export interface EmbeddingHooks {
  /** counts in chunks of this run's work */
  onProgress?(progress: { done: number; total: number }): void;
  onNotice?(message: string): void;
}

/** Options of {@link embedPending}. */
export interface EmbeddingOptions {
  /** re-embed every document with this model even when its fingerprint is the stored one (`recall index --reembed`) */
  reembed?: boolean;
  /**
   * start or continue a re-embed when this model is not the one of the stored vectors; default false: the phase then
   * does nothing for another model (a search's refresh must not turn into a whole re-embed)
   */
  followModelChange?: boolean;
  hooks?: EmbeddingHooks;
}

/** Why an embedding phase stopped before the end: the endpoint stopped answering, or refused the credentials. */
export interface EmbeddingStop {
  code: "ENDPOINT_UNREACHABLE" | "ENDPOINT_AUTH";
  message: string;
  hint: string | undefined;
}

/** What the embedding phase did; counts are chunks of this run. */
export interface EmbeddingSummary {
  /** the embedding model's name (its fingerprint's) */
  model: string;
  embedded: number;
  /** failed this run, retried by the next */
  failed: number;
  /** refused for good by this model or endpoint (never sent again with it) */
  rejected: number;
  /** documents with nothing to embed (marked done) */
  skipped: number;
  /** chunks still to embed when the phase ended (after a stop) */
  pending: number;
  /** set when the model changed (or `--reembed`): the new vectors are built beside the old ones */
  reembed:
    | { state: "started" | "resumed" | "swapped" | "unfinished"; doneChunks: number; totalChunks: number }
    | undefined;
  /** set when the phase stopped early */
  stopped: EmbeddingStop | undefined;
  /** true when some chunk failed or the phase stopped early */
  degraded: boolean;
}

/**
 * Chunks per embedDocuments call and per checkpoint: 32, or what the backend keeps busy at once (`parallelTexts`: a
 * remote endpoint's texts per request × requests in flight), so a crash or a stop loses at most one slice.
 */
export function sliceSizeFor(embedder: Pick<Embedder, "parallelTexts">): number {
  return Math.max(32, embedder.parallelTexts ?? 0);
}

/**
 * Runs the embedding phase; the caller holds the index lock.
 * @throws only what SQLite or the file system throw; embedder failures end up in the summary
 */
export async function embedPending(
  db: Database,
  recallHome: string,
  embedder: Embedder,
  options: EmbeddingOptions = {},
): Promise<EmbeddingSummary> {
  const hooks = options.hooks ?? {};
  const summary: EmbeddingSummary = {
    model: embedder.fingerprint.name,
    embedded: 0,
    failed: 0,
    rejected: 0,
    skipped: 0,
    pending: 0,
    reembed: undefined,
    stopped: undefined,
    degraded: false,
  };
  const stored = readMeta(db, embedFingerprintKey);
  if (!options.followModelChange && stored !== undefined && stored !== embedder.fingerprintKey && hasEmbeddedChunks(db))
    return summary;
  const generation = chooseGeneration(db, recallHome, embedder, options.reembed ?? false, summary, hooks);
  const stores = Object.fromEntries(
    vectorLevels.map((level) => [
      level,
      openLevelStore(recallHome, level, embedder, { onWarning: hooks.onNotice, dir: generation.dir }),
    ]),
  ) as Record<(typeof vectorLevels)[number], VectorStore>;
  const record = () => (generation.name === "current" ? recordVectorFiles(db, recallHome, stores) : undefined);
  try {
    if (vectorLevels.some((level) => stores[level].mismatch !== undefined)) {
      // Files of another model in this generation's folder (e.g. written before a crash): SQLite says what is embedded.
      for (const level of vectorLevels) stores[level].reset();
      db.transaction(() => {
        db.query(`UPDATE ${generation.table} SET status = ? WHERE status = ?`).run(
          chunkStatus.pending,
          chunkStatus.embedded,
        );
        record();
      }).immediate();
    }
    summary.skipped = chunkNewDocuments(db, embedder, generation.table);
    await embedChunks(db, embedder, generation, stores, record, summary, hooks);
    for (const level of vectorLevels) {
      const live = db
        .query<{ id: number }, [string, number]>(
          `SELECT c.id FROM ${generation.table} c JOIN documents d ON d.id = c.document_id WHERE d.level = ? AND c.status = ?`,
        )
        .all(level, chunkStatus.embedded);
      stores[level].compactIfNeeded(buildIdFilter(live.map((row) => row.id)));
    }
    // After a compaction (a crash before this commit only costs the next search an exact check).
    db.transaction(() => record()).immediate();
  } finally {
    for (const level of vectorLevels) stores[level].close();
  }
  if (generation.name === "next") finishReembed(db, recallHome, summary, hooks);
  const table = summary.reembed?.state === "swapped" ? "chunks" : generation.table;
  summary.pending = db
    .query<{ n: number }, [number, number]>(`SELECT count(*) AS n FROM ${table} WHERE status IN (?, ?)`)
    .get(chunkStatus.pending, chunkStatus.failed)!.n;
  summary.degraded = summary.failed > 0 || summary.stopped !== undefined;
  return summary;
}

/** The generation this run writes, after starting, resuming or dropping a re-embed as the fingerprints say. */
function chooseGeneration(
  db: Database,
  recallHome: string,
  embedder: Embedder,
  reembed: boolean,
  summary: EmbeddingSummary,
  hooks: EmbeddingHooks,
): VectorGeneration {
  const stored = readMeta(db, embedFingerprintKey);
  if (stored === undefined || !hasEmbeddedChunks(db)) {
    // Nothing worth keeping: write the vectors in use directly.
    if (readMeta(db, nextFingerprintKey) !== undefined) dropNextGeneration(db, recallHome);
    if (stored !== embedder.fingerprintKey) {
      db.transaction(() => {
        db.exec("DELETE FROM chunks");
        writeMeta(db, embedFingerprintKey, embedder.fingerprintKey);
      }).immediate();
    }
    return currentGeneration(recallHome);
  }
  if (stored === embedder.fingerprintKey && !reembed) {
    if (readMeta(db, nextFingerprintKey) !== undefined) {
      hooks.onNotice?.(
        `the embedding model is ${embedder.fingerprint.name} again: dropped the unfinished re-embed with another model`,
      );
      dropNextGeneration(db, recallHome);
    }
    return currentGeneration(recallHome);
  }
  const resumed = beginNextGeneration(db, recallHome, embedder.fingerprintKey);
  if (reembed && !resumed && stored === embedder.fingerprintKey)
    hooks.onNotice?.(
      `re-embedding every document with ${embedder.fingerprint.name}; searches keep the current vectors until it completes`,
    );
  else if (!resumed)
    hooks.onNotice?.(
      `the embedding model changed (now ${embedder.fingerprint.name}, ${embedder.dims} dims): re-embedding every document beside the current vectors, swapped in when complete`,
    );
  summary.reembed = { state: resumed ? "resumed" : "started", doneChunks: 0, totalChunks: 0 };
  return nextGeneration(recallHome);
}

/** True when the vectors in use hold at least one embedded chunk. */
function hasEmbeddedChunks(db: Database): boolean {
  return db.query("SELECT 1 FROM chunks WHERE status = ? LIMIT 1").get(chunkStatus.embedded) !== null;
}

/** Swaps a complete next generation in, or reports how far it got. */
function finishReembed(db: Database, recallHome: string, summary: EmbeddingSummary, hooks: EmbeddingHooks): void {
  const counts = db
    .query<{ total: number; done: number }, [number, number]>(
      "SELECT count(*) AS total, coalesce(sum(status NOT IN (?, ?)), 0) AS done FROM next_chunks",
    )
    .get(chunkStatus.pending, chunkStatus.failed)!;
  const complete = isGenerationComplete(db, nextGeneration(recallHome));
  if (complete) {
    swapInNextGeneration(db, recallHome);
    hooks.onNotice?.(`re-embedded every document with ${summary.model}: its vectors are now the ones searches use`);
  }
  summary.reembed = { state: complete ? "swapped" : "unfinished", doneChunks: counts.done, totalChunks: counts.total };
}

/** Embeds the generation's pending and failed chunks, slice by slice; stops at the first endpoint stop. */
async function embedChunks(
  db: Database,
  embedder: Embedder,
  generation: VectorGeneration,
  stores: Record<(typeof vectorLevels)[number], VectorStore>,
  record: () => void,
  summary: EmbeddingSummary,
  hooks: EmbeddingHooks,
): Promise<void> {
  const pending = db
    .query<{ id: number; text: string; level: "session" | "turn" }, [number, number]>(
      `SELECT c.id, c.text, d.level FROM ${generation.table} c JOIN documents d ON d.id = c.document_id WHERE c.status IN (?, ?) ORDER BY c.id`,
    )
    .all(chunkStatus.pending, chunkStatus.failed);
  const mark = db.query(`UPDATE ${generation.table} SET status = ?, parts = ? WHERE id = ?`);
  const sliceSize = sliceSizeFor(embedder);
  for (let start = 0; start < pending.length; start += sliceSize) {
    const slice = pending.slice(start, start + sliceSize);
    const statuses: number[] = new Array(slice.length).fill(chunkStatus.failed);
    const parts: number[] = new Array(slice.length).fill(1);
    let vectors: (Float32Array | null)[];
    // Embedder hooks must not throw: a progress hook that asks to stop (a watcher with new changes) is honoured
    // after the slice is committed.
    let stopRequest: unknown;
    const onProgress = (done: number) => {
      try {
        if (stopRequest === undefined) hooks.onProgress?.({ done: start + done, total: pending.length });
      } catch (error) {
        stopRequest = error;
      }
    };
    try {
      vectors = await embedder.embedDocuments(
        slice.map((chunk) => chunk.text),
        {
          onProgress,
          onTextRejected: (index) => (statuses[index] = chunkStatus.rejected),
          onTextSplit: (index, count) => (parts[index] = count),
        },
      );
    } catch (error) {
      if (!isRecallError(error) || (error.code !== "ENDPOINT_UNREACHABLE" && error.code !== "ENDPOINT_AUTH"))
        throw error;
      summary.stopped = { code: error.code, message: error.message, hint: error.hint };
      hooks.onNotice?.(
        `embedding stopped: ${error.message}; ${pending.length - start} chunk(s) stay pending for the next run (keyword search is up to date)`,
      );
      return;
    }
    for (const level of vectorLevels) {
      const rows = slice.flatMap((chunk, i) =>
        chunk.level === level && vectors[i] ? [{ id: chunk.id, vector: vectors[i]! }] : [],
      );
      stores[level].append(
        rows.map((row) => row.id),
        rows.map((row) => row.vector),
      );
    }
    for (const i of slice.keys()) if (vectors[i]) statuses[i] = chunkStatus.embedded;
    db.transaction(() => {
      for (const [i, chunk] of slice.entries()) mark.run(statuses[i]!, parts[i]!, chunk.id);
      record();
    }).immediate();
    for (const status of statuses) {
      if (status === chunkStatus.embedded) summary.embedded++;
      else if (status === chunkStatus.rejected) summary.rejected++;
      else summary.failed++;
    }
    if (stopRequest !== undefined) throw stopRequest;
    hooks.onProgress?.({ done: Math.min(start + sliceSize, pending.length), total: pending.length });
  }
}

/**
 * Creates chunk rows (pending) in `table` for every document that has none there; a document with nothing to
 * embed gets one `skipped` chunk with empty text. Returns the number of skipped documents.
 */
function chunkNewDocuments(db: Database, embedder: Embedder, table: VectorGeneration["table"]): number {
  const budget = chunkBudget(embedder.contextTokens);
  const ids = db
    .query<{ id: number }, []>(
      `SELECT d.id FROM documents d WHERE NOT EXISTS (SELECT 1 FROM ${table} c WHERE c.document_id = d.id)`,
    )
    .all()
    .map((row) => row.id);
  const insert = db.query(`INSERT INTO ${table}(document_id, chunk_index, text, status) VALUES (?, ?, ?, ?)`);
  let skipped = 0;
  for (let start = 0; start < ids.length; start += 500) {
    const texts = loadDocumentTexts(db, ids.slice(start, start + 500));
    const slice = [...texts].map(([id, text]) => ({
      id,
      chunks: splitIntoChunks(text.embedText, budget, (part) => embedder.countTokens(part)),
    }));
    db.transaction(() => {
      for (const document of slice) {
        if (document.chunks.length === 0) {
          insert.run(document.id, 0, "", chunkStatus.skipped);
          skipped++;
        }
        for (const [index, text] of document.chunks.entries())
          insert.run(document.id, index, text, chunkStatus.pending);
      }
    }).immediate();
  }
  return skipped;
}
