/**
 * A vector store level ("session" or "turn") = its immutable segment files in RECALL_HOME/vectors, memory-mapped.
 * Appends write one new segment (O(new rows) bytes; old files are never touched), compaction rewrites the live
 * rows into one new segment and then deletes the old ones, reset deletes everything. Every write goes to a temp
 * name and is renamed, so a crash at any point leaves a readable store. If an id occurs in several segments (a
 * crash after a segment rename but before the caller's DB commit, then re-embedding) the newest row wins.
 * SQLite stays the source of truth: `ids()` lets the caller verify and re-embed what is missing.
 */
import { unlinkSync } from "node:fs";
import { basename, join } from "node:path";
import { IndexError } from "../errors.ts";
import {
  ensurePrivateDir,
  listSegments,
  nameSegment,
  nameTemp,
  removeStaleTemps,
  type VectorLevel,
} from "./segment-dir.ts";
import { loadDotKernels, type DotKernels, type KernelName } from "./kernels.ts";
import {
  computeLayout,
  hashFingerprint,
  mapSegment,
  writeSegmentFile,
  type ElementType,
  type MappedSegment,
} from "./vector-file.ts";
import { scanSegment, TopK, type VectorHit } from "./vector-scan.ts";
import { computeShadows, normalizeRow, toIdArray, type Shadows } from "./vector-rows.ts";

/** Options of `openVectorStore`. */
export interface VectorStoreOptions {
  /** Directory of the segment files (RECALL_HOME/vectors); created on the first write. */
  readonly dir: string;
  readonly level: VectorLevel;
  /** Embedding width (e.g. 384, 1024). */
  readonly dims: number;
  /** Which model wrote the vectors (e.g. "<model file sha256>:<dims>:<pooling>"); stored as a 16-byte hash. */
  readonly fingerprint: string;
  /**
   * Element type of new segments; default "i8": int8 rows scanned by the usearch batch kernel (cosine of the int8
   * vectors), then the best k × rescoreFactor re-scored exactly from the f32 rows stored beside them (1.25× the
   * disk of f32). Measured on 100k×1024 (scripts/bench/vector-scan.ts, 2026-11-23, 2-vCPU Xeon, C f32 scan 27.6 ms):
   * i8 8.7 ms p50 (0.32× the C scan, recall@10 1.0), f32 22.8 ms (0.83×, 2 threads; 40.7 ms = 1.48× on one),
   * TypeScript f32 88 ms, TypeScript f16 1,170 ms; i8 also reads 4× fewer bytes on a cold page cache.
   * Anisotropic clustered 384-d data (2026-11-21): recall@10 0.96 without re-score, 1.0 with ×2 or ×4.
   */
  readonly elementType?: ElementType;
  /** For quantized segments: candidates kept per wanted hit before the exact f32 re-score; default 4 (×2 and ×4 both gave recall@10 1.0, no re-score 0.99). */
  readonly rescoreFactor?: number;
  /** Kernels to use instead of `loadDotKernels()` (tests and benches pass `jsKernels`, the all-TypeScript set). */
  readonly kernels?: DotKernels;
  /** Receives one-line warnings: native scan kernel unavailable, unreadable segment skipped, stale temp files removed. */
  readonly onWarning?: (message: string) => void;
}

/** What is on disk for one level, for status output and compaction decisions. */
export interface VectorStoreStats {
  readonly segments: number;
  /** Rows in all segments, shadowed duplicates included. */
  readonly physicalRows: number;
  /** Distinct ids (= `count`). */
  readonly uniqueRows: number;
}

/** A found mismatch between the stored vectors and the model the store was opened for. */
export interface ModelMismatch {
  /** First ≤ 32 bytes of the fingerprint that wrote the stored vectors. */
  readonly storedFingerprint: string;
  readonly storedDims: number;
}

/** A segment file the store cannot use, and why: a phrase that follows the file name ("is 96 bytes, its header says 4160"). */
export interface UnusableSegment {
  readonly path: string;
  readonly reason: string;
}

/** A loaded segment file as an index records it, to notice later that it was replaced or rewritten. */
export interface SegmentDigest {
  readonly name: string;
  readonly sizeBytes: number;
  /** wyhash (64-bit, hex) of the segment's ids block: catches ids overwritten in a file of unchanged size. */
  readonly idsHash: string;
}

interface LoadedState {
  segments: MappedSegment[];
  shadows: Shadows;
  mismatch: ModelMismatch | undefined;
  damaged: UnusableSegment[];
  foreign: UnusableSegment[];
}

/**
 * Opens (never creates) the store of `level` in `dir`. An absent directory or no segment files is an empty store.
 * Unreadable segments are skipped with a warning and listed in `damaged`. A fingerprint or dims mismatch does not
 * throw here: it is reported by `mismatch` (and the segments in `foreign`), and search/append/compact then throw
 * IndexError INDEX_MODEL_MISMATCH until `reset()` or `discardUnusable()`.
 */
export function openVectorStore(options: VectorStoreOptions): VectorStore {
  return new VectorStore(options);
}

/** A memory-mapped, append-only vector store of one level. Not safe for concurrent writers: hold the index lock. */
export class VectorStore {
  readonly dims: number;
  readonly fingerprint: string;
  readonly level: VectorLevel;
  readonly elementType: ElementType;
  private readonly dir: string;
  private readonly fingerprintHash: string;
  private readonly rescoreFactor: number;
  private readonly onWarning: ((message: string) => void) | undefined;
  private readonly kernels: DotKernels;
  private state: LoadedState;
  private closed = false;

  constructor(options: VectorStoreOptions) {
    this.dir = options.dir;
    this.level = options.level;
    this.dims = options.dims;
    this.fingerprint = options.fingerprint;
    this.fingerprintHash = hashFingerprint(options.fingerprint);
    this.elementType = options.elementType ?? "i8";
    this.rescoreFactor = Math.max(1, options.rescoreFactor ?? 4);
    this.onWarning = options.onWarning;
    this.kernels = options.kernels ?? loadDotKernels(options.onWarning);
    this.state = this.load([]);
  }

  /** Distinct document ids stored (shadowed duplicates counted once). */
  get count(): number {
    return this.state.shadows.uniqueRows;
  }

  /** The model mismatch found on open, or undefined when every segment was written with this fingerprint and dims. */
  get mismatch(): ModelMismatch | undefined {
    return this.state.mismatch;
  }

  /**
   * Segment files skipped on open because they cannot be read: bad magic, version or element type, a size that
   * differs from what the header says, an I/O error (issue 9: truncated or overwritten `.vec` files). A file
   * deleted between listing and mapping (a concurrent compaction) is not counted.
   */
  get damaged(): readonly UnusableSegment[] {
    return this.state.damaged;
  }

  /** Readable segment files written with another fingerprint or dims than this store's (they set `mismatch`). */
  get foreign(): readonly UnusableSegment[] {
    return this.state.foreign;
  }

  /**
   * Returns a digest of every loaded segment (usable or of another model; damaged files are not loaded), oldest
   * first. Cost: one hash over 4 bytes per row (~0.1 ms per 100k rows).
   */
  segmentDigests(): SegmentDigest[] {
    return this.state.segments.map((seg) => {
      const { elementType, dims, rowCount } = seg.header;
      const idsBytes = new Uint8Array(seg.ids.buffer, seg.ids.byteOffset, seg.ids.byteLength);
      return {
        name: basename(seg.path),
        sizeBytes: computeLayout(elementType, dims, rowCount).totalBytes,
        idsHash: Bun.hash.wyhash(idsBytes).toString(16),
      };
    });
  }

  /** Which native kernels score rows: "simsimd+usearch", "usearch", "simsimd" or the "js" fallback. */
  get kernelName(): KernelName {
    return this.kernels.name;
  }

  /** Returns segment and row counts. */
  stats(): VectorStoreStats {
    const physicalRows = this.state.segments.reduce((n, s) => n + s.ids.length, 0);
    return { segments: this.state.segments.length, physicalRows, uniqueRows: this.count };
  }

  /** Maps the level's segment files, reusing `previous` mappings by path; computes shadows and mismatch. */
  private load(previous: MappedSegment[]): LoadedState {
    const byPath = new Map(previous.map((s) => [s.path, s]));
    const segments: MappedSegment[] = [];
    const damaged: UnusableSegment[] = [];
    const foreign: UnusableSegment[] = [];
    let mismatch: ModelMismatch | undefined;
    for (const entry of listSegments(this.dir, this.level)) {
      const path = join(this.dir, entry.name);
      try {
        const seg = byPath.get(path) ?? mapSegment(path, entry.seq);
        const { fingerprintHash, dims, fingerprintLabel } = seg.header;
        if (fingerprintHash !== this.fingerprintHash || dims !== this.dims) {
          mismatch ??= { storedFingerprint: fingerprintLabel, storedDims: dims };
          foreign.push({
            path,
            reason: `was written by another model (${fingerprintLabel || "unnamed"}, ${dims} dims)`,
          });
        }
        segments.push(seg);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === "ENOENT") continue; // removed by a compaction after the listing
        const message = (error as Error).message;
        const prefix = `vector segment ${path} `;
        const reason = message.startsWith(prefix)
          ? message.slice(prefix.length)
          : `is unreadable: ${(error as NodeJS.ErrnoException).code ?? message}`;
        damaged.push({ path, reason });
        this.onWarning?.(`skipping vector segment ${path}: ${message}`);
      }
    }
    return { segments, shadows: computeShadows(segments), mismatch, damaged, foreign };
  }

  private assertUsable(): void {
    if (this.closed) throw new IndexError("INTERNAL", `vector store ${this.level} in ${this.dir} is closed`);
    const m = this.state.mismatch;
    if (m === undefined) return;
    throw new IndexError(
      "INDEX_MODEL_MISMATCH",
      `the ${this.level} vectors in ${this.dir} were built with another model (${m.storedFingerprint}, ${m.storedDims} dims)`,
      { hint: "run `recall index` to re-embed with the current model" },
    );
  }

  /**
   * Returns the best `k` rows by cosine similarity to `query` (normalized here; length must be dims), best first,
   * score in [-1, 1], each id at most once. `allow[id]` non-zero admits id (ids past its end are not admitted);
   * the filter applies before the top-k cut. Quantized segments are scanned approximately, then the best
   * k × rescoreFactor candidates are re-scored exactly in f32; with f32 segments only, the best k are re-scored
   * (k dot products), so the scores do not depend on which kernel chose the rows (usearch returns float32 scores).
   * Throws RangeError on a wrong query length, IndexError on a model mismatch or a closed store.
   */
  search(query: Float32Array, k: number, allow?: Uint8Array): VectorHit[] {
    this.assertUsable();
    if (query.length !== this.dims) throw new RangeError(`query has ${query.length} dims, the store has ${this.dims}`);
    const { segments, shadows } = this.state;
    if (k <= 0 || segments.length === 0) return [];
    const q = normalizeRow(query);
    const exact = segments.every((s) => s.header.elementType === "f32");
    const pool = new TopK(exact ? k : k * this.rescoreFactor);
    for (const [i, seg] of segments.entries())
      scanSegment(seg, i, q, this.kernels, { allow, shadow: shadows.masks[i] }, pool);
    return this.rescore(q, pool, k)
      .sorted()
      .map((c) => ({ id: segments[c.seg]!.ids[c.row]!, score: Math.max(-1, Math.min(1, c.score)) }));
  }

  private rescore(q: Float32Array, pool: TopK, k: number): TopK {
    const { segments } = this.state;
    const final = new TopK(k);
    for (let i = 0; i < pool.size; i++) {
      const seg = segments[pool.segs[i]!]!;
      const row = pool.rows[i]!;
      final.push(this.kernels.dotF32(q, seg.f32.subarray(row * this.dims, (row + 1) * this.dims)), pool.segs[i]!, row);
    }
    return final;
  }

  /**
   * Writes `vectors` (each dims long, normalized on write) for document `ids` (integers 0…2^31−1) as one new
   * segment; returns its size in bytes (0 and no file for an empty append). Existing files are not touched.
   * A later row with the same id wins over earlier ones. Throws RangeError on bad ids or lengths, IndexError on
   * a model mismatch, node:fs errors on I/O failure (the store is then unchanged).
   */
  append(ids: ArrayLike<number>, vectors: readonly Float32Array[]): number {
    this.assertUsable();
    if (ids.length !== vectors.length) throw new RangeError(`${ids.length} ids but ${vectors.length} vectors`);
    if (ids.length === 0) return 0;
    const idArray = toIdArray(ids);
    const rows = vectors.map((v, i) => {
      if (v.length !== this.dims) throw new RangeError(`vector ${i} has ${v.length} dims, the store has ${this.dims}`);
      return normalizeRow(v);
    });
    return this.writeSegment(idArray, (i) => rows[i]!);
  }

  private writeSegment(ids: Int32Array, getRow: (row: number) => Float32Array): number {
    ensurePrivateDir(this.dir);
    this.removeTemps();
    const lastSeq = listSegments(this.dir, this.level).at(-1)?.seq ?? 0;
    const finalName = nameSegment(this.level, lastSeq + 1);
    const src = { elementType: this.elementType, dims: this.dims, fingerprint: this.fingerprint, ids, getRow };
    const sizeBytes = writeSegmentFile(this.dir, nameTemp(finalName), finalName, src);
    this.state = this.load(this.state.segments);
    return sizeBytes;
  }

  private removeTemps(): void {
    const removed = removeStaleTemps(this.dir, this.level);
    if (removed.length > 0) this.onWarning?.(`removed ${removed.length} unfinished vector temp file(s) in ${this.dir}`);
  }

  /** Returns every distinct stored id (the newest copy of each), in segment then row order. */
  ids(): Int32Array {
    const { segments, shadows } = this.state;
    const out = new Int32Array(shadows.uniqueRows);
    let n = 0;
    segments.forEach((seg, i) => {
      const mask = shadows.masks[i];
      for (let row = 0; row < seg.ids.length; row++)
        if (mask === undefined || mask[row] === 0) out[n++] = seg.ids[row]!;
    });
    return out;
  }

  /**
   * The stored f32 rows (normalized, copied out of the mapping) of the wanted ids that the store holds, the newest copy
   * of each: id → vector of `dims` floats. Ids the store lacks are absent. Throws IndexError on a closed store.
   */
  vectorsOf(wanted: Iterable<number>): Map<number, Float32Array> {
    this.assertUsable();
    const want = new Set(wanted);
    const found = new Map<number, Float32Array>();
    const { segments, shadows } = this.state;
    segments.forEach((seg, i) => {
      const mask = shadows.masks[i];
      for (let row = 0; row < seg.ids.length; row++) {
        const id = seg.ids[row]!;
        if (want.has(id) && (mask === undefined || mask[row] === 0))
          found.set(id, seg.f32.slice(row * this.dims, (row + 1) * this.dims));
      }
    });
    return found;
  }

  /** Returns the fraction (0–1) of physical rows that are shadowed or not in `live` (0 for an empty store). */
  deadFraction(live: Uint8Array): number {
    const { physicalRows } = this.stats();
    if (physicalRows === 0) return 0;
    let alive = 0;
    for (const id of this.ids()) if (live[id]) alive++;
    return (physicalRows - alive) / physicalRows;
  }

  /**
   * Rewrites the rows whose id is live (`live[id]` non-zero; undefined = all distinct rows) into one new segment
   * in this store's element type, then deletes the older segments. A crash before the deletes leaves duplicates
   * that the newest-wins rule hides. Throws IndexError on a model mismatch, node:fs errors on I/O failure.
   */
  compact(live?: Uint8Array): void {
    this.assertUsable();
    const { segments, shadows } = this.state;
    const keepSeg: number[] = [];
    const keepRow: number[] = [];
    segments.forEach((seg, i) => {
      const mask = shadows.masks[i];
      for (let row = 0; row < seg.ids.length; row++) {
        if ((mask === undefined || mask[row] === 0) && (live === undefined || live[seg.ids[row]!])) {
          keepSeg.push(i);
          keepRow.push(row);
        }
      }
    });
    const old = listSegments(this.dir, this.level);
    if (keepRow.length > 0) {
      const ids = Int32Array.from(keepRow, (row, j) => segments[keepSeg[j]!]!.ids[row]!);
      const d = this.dims;
      this.writeSegment(ids, (j) => segments[keepSeg[j]!]!.f32.subarray(keepRow[j]! * d, (keepRow[j]! + 1) * d));
    }
    for (const entry of old) unlinkSync(join(this.dir, entry.name));
    // Reuses the new segment's mapping (and its cached row views); the deleted files drop out of the listing.
    this.state = this.load(this.state.segments);
  }

  /**
   * Compacts when more than `maxDeadFraction` (default 0.3) of the rows are dead or there are more than
   * `maxSegments` (default 64) segment files; returns whether it did.
   */
  compactIfNeeded(live: Uint8Array, maxDeadFraction = 0.3, maxSegments = 64): boolean {
    if (this.stats().segments <= maxSegments && this.deadFraction(live) <= maxDeadFraction) return false;
    this.compact(live);
    return true;
  }

  /** Deletes every segment and temp file of this level (after a model change); the store is then empty and usable. */
  reset(): void {
    if (this.closed) throw new IndexError("INTERNAL", `vector store ${this.level} in ${this.dir} is closed`);
    for (const entry of listSegments(this.dir, this.level)) unlinkSync(join(this.dir, entry.name));
    removeStaleTemps(this.dir, this.level);
    this.state = this.load([]);
  }

  /**
   * Deletes the `damaged` and `foreign` segment files (their rows must be re-embedded: SQLite is the source of
   * truth) and reloads, so the store is usable again with its remaining segments. Returns what was deleted.
   * Call only while holding the index lock. Throws node:fs errors other than ENOENT.
   */
  discardUnusable(): UnusableSegment[] {
    if (this.closed) throw new IndexError("INTERNAL", `vector store ${this.level} in ${this.dir} is closed`);
    const unusable = [...this.state.damaged, ...this.state.foreign];
    if (unusable.length === 0) return [];
    for (const { path } of unusable) {
      try {
        unlinkSync(path);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      }
    }
    const gone = new Set(unusable.map((entry) => entry.path));
    this.state = this.load(this.state.segments.filter((seg) => !gone.has(seg.path)));
    return unusable;
  }

  /** Drops the mappings (Bun unmaps when the views are garbage-collected); later calls throw. */
  close(): void {
    this.closed = true;
    this.state = { segments: [], shadows: computeShadows([]), mismatch: undefined, damaged: [], foreign: [] };
  }
}
