/// <reference lib="esnext.float16" />
/**
 * The brute-force scan: score every allowed row of a mapped segment against a query and keep the best in a
 * small binary min-heap (no sort of all rows). Filters (allow-list, shadowed duplicates) are applied before a
 * row is scored, so they act before the top-k cut and a filtered search never comes back short.
 * Owns the inner loops only; which segments to scan and the f32 re-score of quantized candidates are in
 * vector-store.ts. Speeds of each loop are measured by scripts/bench/vector-scan.ts.
 */
import type { DotKernels } from "./simsimd.ts";
import type { MappedSegment } from "./vector-file.ts";

/** A search result: document id (SQLite rowid) and cosine similarity in [-1, 1]. */
export interface VectorHit {
  readonly id: number;
  readonly score: number;
}

/**
 * A bounded min-heap of (score, segment index, row) triples holding the best `capacity` scores seen.
 * push is O(log capacity); rows scoring ≤ the current minimum of a full heap are rejected in O(1).
 */
export class TopK {
  readonly capacity: number;
  size = 0;
  readonly scores: Float64Array;
  readonly segs: Int32Array;
  readonly rows: Int32Array;

  constructor(capacity: number) {
    this.capacity = capacity;
    this.scores = new Float64Array(capacity);
    this.segs = new Int32Array(capacity);
    this.rows = new Int32Array(capacity);
  }

  /** The score a new row must beat to enter: -Infinity until the heap is full. */
  threshold(): number {
    return this.size < this.capacity ? -Infinity : this.scores[0]!;
  }

  /** Offers a row; keeps it when the heap has room or it beats the current minimum. */
  push(score: number, seg: number, row: number): void {
    if (this.capacity === 0) return;
    if (this.size < this.capacity) {
      this.siftUp(this.size++, score, seg, row);
    } else if (score > this.scores[0]!) {
      this.siftDown(score, seg, row);
    }
  }

  private place(i: number, score: number, seg: number, row: number): void {
    this.scores[i] = score;
    this.segs[i] = seg;
    this.rows[i] = row;
  }

  private siftUp(i: number, score: number, seg: number, row: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (this.scores[parent]! <= score) break;
      this.place(i, this.scores[parent]!, this.segs[parent]!, this.rows[parent]!);
      i = parent;
    }
    this.place(i, score, seg, row);
  }

  private siftDown(score: number, seg: number, row: number): void {
    let i = 0;
    for (;;) {
      let child = 2 * i + 1;
      if (child >= this.size) break;
      if (child + 1 < this.size && this.scores[child + 1]! < this.scores[child]!) child++;
      if (this.scores[child]! >= score) break;
      this.place(i, this.scores[child]!, this.segs[child]!, this.rows[child]!);
      i = child;
    }
    this.place(i, score, seg, row);
  }

  /** Returns the held entries ordered by score descending (ties: lower segment index, then lower row first). */
  sorted(): { score: number; seg: number; row: number }[] {
    const out = [];
    for (let i = 0; i < this.size; i++) out.push({ score: this.scores[i]!, seg: this.segs[i]!, row: this.rows[i]! });
    return out.sort((a, b) => b.score - a.score || a.seg - b.seg || a.row - b.row);
  }
}

/**
 * Per-scan inputs shared by the loops. `allow[id]` must be non-zero for a row to be scored (ids past the end
 * are not allowed); `shadow[row]` non-zero means a newer segment holds the same id. Both undefined = no filter.
 */
export interface ScanFilter {
  readonly allow: Uint8Array | undefined;
  readonly shadow: Uint8Array | undefined;
}

/**
 * Returns the f32 dot product of `q` with the row at element offset `off` of `all`: 8 accumulators, no views.
 * 8 accumulators measured 44.5 ms vs 50.3 ms for 4 and 52.4 ms for a 4-rows-at-once block (p50, 100k×1024,
 * /tmp micro-bench 2026-11-21, 2-vCPU EPYC).
 */
export function dotF32At(q: Float32Array, all: Float32Array, off: number): number {
  const n = q.length;
  const n8 = n - (n % 8);
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0, s4 = 0, s5 = 0, s6 = 0, s7 = 0;
  for (let j = 0; j < n8; j += 8) {
    const o = off + j;
    s0 += q[j]! * all[o]!;
    s1 += q[j + 1]! * all[o + 1]!;
    s2 += q[j + 2]! * all[o + 2]!;
    s3 += q[j + 3]! * all[o + 3]!;
    s4 += q[j + 4]! * all[o + 4]!;
    s5 += q[j + 5]! * all[o + 5]!;
    s6 += q[j + 6]! * all[o + 6]!;
    s7 += q[j + 7]! * all[o + 7]!;
  }
  for (let j = n8; j < n; j++) s0 += q[j]! * all[off + j]!;
  return s0 + s1 + (s2 + s3) + (s4 + s5) + (s6 + s7);
}

/**
 * Same as dotF32At over f16 rows. A separate copy on purpose: sharing one function between Float32Array and
 * Float16Array made the JIT's f32 loop 18× slower (920 vs 52 ms per 100k×1024 scan, bench 2026-11-21).
 */
function dotF16At(q: Float32Array, all: Float16Array, off: number): number {
  const n = q.length;
  const n4 = n - (n % 4);
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (let j = 0; j < n4; j += 4) {
    s0 += q[j]! * all[off + j]!;
    s1 += q[j + 1]! * all[off + j + 1]!;
    s2 += q[j + 2]! * all[off + j + 2]!;
    s3 += q[j + 3]! * all[off + j + 3]!;
  }
  for (let j = n4; j < n; j++) s0 += q[j]! * all[off + j]!;
  return s0 + s1 + (s2 + s3);
}

const viewCache = new WeakMap<MappedSegment, { f32?: Float32Array[]; i8?: Int8Array[] }>();

/**
 * Returns one subarray view per row of `block`, built once per segment and cached (weakly, with the segment).
 * Creating a view per row per scan cost ~11 ms of a 36 ms scan of 100k×1024 rows (p50, /tmp micro-bench,
 * 2026-11-21, 2-vCPU EPYC); cached views cost ~80 bytes per row.
 */
function rowViews<T extends Float32Array | Int8Array>(seg: MappedSegment, kind: "f32" | "i8", block: T): T[] {
  let entry = viewCache.get(seg);
  if (entry === undefined) viewCache.set(seg, (entry = {}));
  const cached = entry[kind] as T[] | undefined;
  if (cached !== undefined) return cached;
  const dims = seg.header.dims;
  const views = Array.from({ length: seg.ids.length }, (_, row) => block.subarray(row * dims, (row + 1) * dims) as T);
  entry[kind] = views as Float32Array[] & Int8Array[];
  return views;
}

/** Returns a mask of rows to skip (shadowed or not allowed), or undefined when nothing is skipped. */
function buildSkipMask(ids: Int32Array, filter: ScanFilter): Uint8Array | undefined {
  const { allow, shadow } = filter;
  if (allow === undefined) return shadow;
  const skip = shadow === undefined ? new Uint8Array(ids.length) : shadow.slice();
  for (let row = 0; row < ids.length; row++) if (!allow[ids[row]!]) skip[row] = 1;
  return skip;
}

/** Scans the f32 rows of `seg` into `heap` with the kernels' f32 dot (simsimd: one N-API call per row). */
export function scanF32(seg: MappedSegment, segIndex: number, q: Float32Array, kernels: DotKernels, filter: ScanFilter, heap: TopK): void {
  const { ids, f32 } = seg;
  const skip = buildSkipMask(ids, filter);
  let threshold = heap.threshold();
  if (kernels.name === "js") {
    // The JS path reads by offset: no view objects needed.
    const dims = q.length;
    for (let row = 0, off = 0; row < ids.length; row++, off += dims) {
      if (skip !== undefined && skip[row] !== 0) continue;
      const score = dotF32At(q, f32, off);
      if (score > threshold) (heap.push(score, segIndex, row), (threshold = heap.threshold()));
    }
    return;
  }
  const dot = kernels.dotF32;
  const views = rowViews(seg, "f32", f32);
  for (let row = 0; row < views.length; row++) {
    if (skip !== undefined && skip[row] !== 0) continue;
    const score = dot(q, views[row]!);
    if (score > threshold) (heap.push(score, segIndex, row), (threshold = heap.threshold()));
  }
}

/** Returns the int8 quantization of a normalized query and its scale (same scheme as the rows). */
export function quantizeQueryI8(q: Float32Array): { q8: Int8Array; scale: number } {
  let maxAbs = 0;
  for (let j = 0; j < q.length; j++) maxAbs = Math.max(maxAbs, Math.abs(q[j]!));
  const scale = maxAbs > 0 ? maxAbs / 127 : 1;
  const q8 = new Int8Array(q.length);
  for (let j = 0; j < q.length; j++) q8[j] = Math.round(q[j]! / scale);
  return { q8, scale };
}

/**
 * Scans the int8 rows of an i8 segment; pushes approximate cosines (i8 dot × row scale × query scale).
 * Throws TypeError when `seg` is not an i8 segment.
 */
export function scanI8(seg: MappedSegment, segIndex: number, q: Float32Array, kernels: DotKernels, filter: ScanFilter, heap: TopK): void {
  const { ids, i8, scales } = seg;
  if (i8 === undefined || scales === undefined) throw new TypeError(`${seg.path} is not an int8 segment`);
  const { q8, scale: qScale } = quantizeQueryI8(q);
  const skip = buildSkipMask(ids, filter);
  let threshold = heap.threshold();
  const dot = kernels.dotI8;
  const views = rowViews(seg, "i8", i8);
  for (let row = 0; row < views.length; row++) {
    if (skip !== undefined && skip[row] !== 0) continue;
    const score = dot(q8, views[row]!) * scales[row]! * qScale;
    if (score > threshold) (heap.push(score, segIndex, row), (threshold = heap.threshold()));
  }
}

/** Scans the f16 rows of an f16 segment in TypeScript (simsimd's JS binding takes no f16). Throws TypeError otherwise. */
export function scanF16(seg: MappedSegment, segIndex: number, q: Float32Array, filter: ScanFilter, heap: TopK): void {
  const { ids, f16 } = seg;
  if (f16 === undefined) throw new TypeError(`${seg.path} is not an f16 segment`);
  const dims = q.length;
  const skip = buildSkipMask(ids, filter);
  for (let row = 0, off = 0; row < ids.length; row++, off += dims) {
    if (skip !== undefined && skip[row] !== 0) continue;
    const score = dotF16At(q, f16, off);
    if (score > heap.threshold()) heap.push(score, segIndex, row);
  }
}

/**
 * Scans one segment with the fastest loop for its element type and kernels. Without simsimd an i8 segment is
 * scanned through its f32 block (exact): the JS f32 loop beat the JS int8 loop, 80 vs 98 ms per 100k×1024
 * when both had 4 accumulators; the f32 loop now has 8 (45 ms)
 * (bench 2026-11-21). f16 rows are always scanned in JS, ~900 ms per 100k×1024: f16 is kept only for measurement.
 */
export function scanSegment(seg: MappedSegment, segIndex: number, q: Float32Array, kernels: DotKernels, filter: ScanFilter, heap: TopK): void {
  const type = seg.header.elementType;
  if (type === "f32" || (type === "i8" && kernels.name === "js")) scanF32(seg, segIndex, q, kernels, filter, heap);
  else if (type === "i8") scanI8(seg, segIndex, q, kernels, filter, heap);
  else scanF16(seg, segIndex, q, filter, heap);
}
