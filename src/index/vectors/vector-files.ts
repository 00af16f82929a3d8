/**
 * Are the vector files really there? Owns the record of the segment files an index run left behind (meta
 * `vector_files`), the check a search runs before it trusts its vector leg, and the repair each index run makes
 * before embedding. Issue 9: with `.vec` files deleted or damaged, search ran without vectors while reporting
 * "hybrid", `index` did not re-embed, and `index --full` did not repair. SQLite stays the source of truth: a chunk
 * marked embedded must have a row in a usable segment of its level, or it is marked pending and embedded again.
 * How stores are written lives in src/native; the embedding phase itself in embedding.ts.
 */
import type { Database } from "bun:sqlite";
import { join, relative } from "node:path";
import type { Embedder } from "../../embed/index.ts";
import { buildIdFilter, openVectorStore, type UnusableSegment, type VectorStore } from "../../native/index.ts";
import { homeFiles } from "../../home/paths.ts";
import { chunkStatus, readMeta, writeMeta } from "../schema.ts";

/** Levels of vector stores: one per document level. */
export const vectorLevels = ["session", "turn"] as const;

/** A vector store level: "session" or "turn". */
export type VectorLevelName = (typeof vectorLevels)[number];

/** Meta key of the fingerprint of the model that wrote the stored vectors. */
export const embedFingerprintKey = "embed_fingerprint";

/** Meta key of the segment files after the last change of embedded chunks: {"turn": [["turn-00000001.vec", 4160, "<ids hash>"], ...], ...}. */
export const vectorFilesMetaKey = "vector_files";

/** The model a set of vectors belongs to: its fingerprint string (as stored in `meta`) and width. */
export type VectorModel = Pick<Embedder, "dims" | "fingerprintKey">;

/**
 * Open the vector store of one level for a model.
 * @param options.dir the generation's folder (generations.ts); default `<recallHome>/vectors`, the one searches use
 */
export function openLevelStore(
  recallHome: string,
  level: VectorLevelName,
  model: VectorModel,
  options: { onWarning?: (message: string) => void; dir?: string } = {},
): VectorStore {
  return openVectorStore({
    dir: options.dir ?? join(recallHome, homeFiles.vectors),
    level,
    dims: model.dims,
    fingerprint: model.fingerprintKey,
    onWarning: options.onWarning,
  });
}

/** Both levels' stores, opened for one model (or any model: digests and ids do not depend on it). */
export type LevelStores = Record<VectorLevelName, VectorStore>;

function openStores(recallHome: string, model: VectorModel): LevelStores {
  return Object.fromEntries(
    vectorLevels.map((level) => [level, openLevelStore(recallHome, level, model)]),
  ) as LevelStores;
}

type FileRecord = Record<VectorLevelName, Array<[name: string, sizeBytes: number, idsHash: string]>>;

function describeFiles(stores: LevelStores): FileRecord {
  const out = {} as FileRecord;
  for (const level of vectorLevels)
    out[level] = stores[level].segmentDigests().map((d) => [d.name, d.sizeBytes, d.idsHash]);
  return out;
}

/**
 * Records the segment files now loaded in `stores` (name, size, hash of the ids block) in `meta`. Call inside
 * the transaction that changes which chunks are embedded (or after a compaction or any rewrite of the vector
 * files), while holding the index lock. Without `stores`, maps the files first (~10 ms per 100k rows).
 */
export function recordVectorFiles(db: Database, recallHome: string, stores?: LevelStores): void {
  const opened = stores ?? openStores(recallHome, { dims: 1, fingerprintKey: "recall-record" });
  try {
    writeMeta(db, vectorFilesMetaKey, JSON.stringify(describeFiles(opened)));
  } finally {
    if (!stores) for (const level of vectorLevels) opened[level].close();
  }
}

/** True when every recorded segment file is still loaded with its recorded size and ids; false without a record. */
function matchesRecord(db: Database, stores: LevelStores): boolean {
  const recorded = readMeta(db, vectorFilesMetaKey);
  if (recorded === undefined) return false;
  try {
    const before = JSON.parse(recorded) as FileRecord;
    const now = describeFiles(stores);
    return vectorLevels.every((level) => {
      const current = new Map(now[level].map(([name, sizeBytes, idsHash]) => [name, `${sizeBytes}:${idsHash}`]));
      return (before[level] ?? []).every(
        ([name, sizeBytes, idsHash]) => current.get(name) === `${sizeBytes}:${idsHash}`,
      );
    });
  } catch {
    return false;
  }
}

/** What is wrong with the vector files: embedded chunks without a usable row, and the files to blame. */
export interface VectorFileReport {
  /** Chunks marked embedded, both levels. */
  embeddedChunks: number;
  /** Embedded chunks with no row in a usable segment of their level (> 0 whenever a report is returned). */
  missingChunks: number;
  /** One phrase per unusable segment file, e.g. "vectors/turn-00000002.vec is 96 bytes, its header says 4160". */
  problems: string[];
}

function describeUnusable(recallHome: string, segment: UnusableSegment): string {
  return `${relative(recallHome, segment.path)} ${segment.reason}`;
}

/** Returns the ids of `level`'s embedded chunks that have no row in `store`, and how many chunks are embedded. */
function findMissingRows(
  db: Database,
  store: VectorStore,
  level: VectorLevelName,
): { embedded: number; missing: number[] } {
  const stored = buildIdFilter(store.ids());
  const rows = db
    .query("SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.level = ? AND c.status = ?")
    .values(level, chunkStatus.embedded);
  const missing: number[] = [];
  for (const row of rows) if (stored[row[0] as number] !== 1) missing.push(row[0] as number);
  return { embedded: rows.length, missing };
}

/**
 * Returns what is wrong with the vector files of `model`, or undefined when every embedded chunk has its row.
 * Fast path (the usual case): no segment is unreadable or of another model and every recorded file is loaded with
 * its size and ids (`recordVectorFiles`), O(files + rows / 1e6 ms). Otherwise an exact pass over the embedded chunk ids (measured 2026-11-23 on the 2-vCPU
 * box: ~40 ms per 100k chunks), which also clears a stale record after a crash mid-compaction. A segment of
 * another model makes every row of its level missing, since the store refuses to search it. Reads only.
 * @param stores the stores the search will use (opened with `model`), to avoid mapping the files twice
 */
export function findVectorDamage(
  db: Database,
  recallHome: string,
  model: VectorModel,
  stores?: LevelStores,
): VectorFileReport | undefined {
  const opened = stores ?? openStores(recallHome, model);
  const unusable = vectorLevels.flatMap((level) => [...opened[level].damaged, ...opened[level].foreign]);
  if (unusable.length === 0 && matchesRecord(db, opened)) return undefined;
  const report: VectorFileReport = {
    embeddedChunks: 0,
    missingChunks: 0,
    problems: unusable.map((segment) => describeUnusable(recallHome, segment)),
  };
  for (const level of vectorLevels) {
    const { embedded, missing } = findMissingRows(db, opened[level], level);
    report.embeddedChunks += embedded;
    report.missingChunks += opened[level].foreign.length > 0 ? embedded : missing.length;
  }
  return report.missingChunks > 0 ? report : undefined;
}

/** Returns the width recorded in a stored fingerprint string (JSON with `dims`, embed/types.ts `fingerprintString`), or undefined. */
export function dimsOfFingerprint(fingerprintKey: string): number | undefined {
  try {
    const dims = (JSON.parse(fingerprintKey) as { dims?: unknown }).dims;
    return typeof dims === "number" && Number.isInteger(dims) && dims > 0 ? dims : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Repairs the vector files before an index run's embedding phase, without loading the model: deletes segment files
 * that are unreadable or written by another model than the one in `meta`, marks every embedded chunk without a
 * usable row pending (so this run's embedding phase, or the next run with a model, embeds exactly those), and
 * records the files. Skips the exact pass when nothing looks wrong (see `findVectorDamage`) unless `exact`
 * (`recall index --full`). Reports what it did through `onNotice`; returns the number of chunks marked pending.
 * The caller holds the index lock. Throws node:fs errors when a damaged file cannot be deleted.
 */
export function repairVectorFiles(
  db: Database,
  recallHome: string,
  options: { exact?: boolean; onNotice?: (message: string) => void } = {},
): number {
  const fingerprintKey = readMeta(db, embedFingerprintKey);
  if (fingerprintKey === undefined) return 0;
  // With an unknown width every segment would look foreign: then only unreadable files are deleted.
  const dims = dimsOfFingerprint(fingerprintKey);
  const stores = openStores(recallHome, { dims: dims ?? 1, fingerprintKey });
  try {
    const looksIntact = vectorLevels.every(
      (level) => stores[level].damaged.length === 0 && (dims === undefined || stores[level].foreign.length === 0),
    );
    if (!options.exact && looksIntact && matchesRecord(db, stores)) return 0;
    const problems: string[] = [];
    const missing: number[] = [];
    for (const level of vectorLevels) {
      const discarded = dims === undefined ? [] : stores[level].discardUnusable();
      problems.push(...discarded.map((segment) => describeUnusable(recallHome, segment)));
      missing.push(...findMissingRows(db, stores[level], level).missing);
    }
    const mark = db.query("UPDATE chunks SET status = ? WHERE id = ?");
    db.transaction(() => {
      for (const id of missing) mark.run(chunkStatus.pending, id);
      recordVectorFiles(db, recallHome, stores);
    }).immediate();
    if (missing.length > 0 || problems.length > 0) {
      const why =
        problems.length > 0
          ? `${problems[0]}${problems.length > 1 ? ` and ${problems.length - 1} more file(s)` : ""}`
          : `rows absent from ${homeFiles.vectors}/`;
      options.onNotice?.(
        `${missing.length} vector(s) were missing or damaged (${why}); their chunks are embedded again`,
      );
    }
    return missing.length;
  } finally {
    for (const level of vectorLevels) stores[level].close();
  }
}
