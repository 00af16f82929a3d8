/// <reference lib="esnext.float16" />
/**
 * The brute-force scan of one segment. f32 and i8 blocks: ONE batch-kernel call (usearch `exactSearch`, see
 * usearch.ts) scores the whole block and returns its best (heap capacity + skipped rows) rows, from which the
 * skipped ones are dropped, so the allow-list/shadow filter acts before the top-k cut and the result is the exact
 * filtered top-k. The TypeScript loop (8 accumulators, allowed rows only) is used instead when there is no addon,
 * at tiny dims (below ~16: the kernel's per-row overhead), or when a filter keeps less than about half of a
 * segment's rows (46% at 100k × 1024 with 2 threads): `preferBatch`, a cost model fitted to measurements. f16
 * blocks are always scanned in TypeScript. A small binary min-heap merges all segments. Which segments to scan and
 * the f32 re-score are in vector-store.ts; scripts/bench/vector-scan.ts measures every loop (issue 12).
 */
import type { DotKernels } from "./kernels.ts";
import { pickThreads, type BatchTop } from "./usearch.ts";
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
 * Per-scan inputs shared by the loops. `allow[id]` must be non-zero for a row to be kept (ids past the end
 * are not allowed); `shadow[row]` non-zero (0 or 1) means a newer segment holds the same id. Both undefined = no filter.
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
  let s0 = 0,
    s1 = 0,
    s2 = 0,
    s3 = 0,
    s4 = 0,
    s5 = 0,
    s6 = 0,
    s7 = 0;
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
  let s0 = 0,
    s1 = 0,
    s2 = 0,
    s3 = 0;
  for (let j = 0; j < n4; j += 4) {
    s0 += q[j]! * all[off + j]!;
    s1 += q[j + 1]! * all[off + j + 1]!;
    s2 += q[j + 2]! * all[off + j + 2]!;
    s3 += q[j + 3]! * all[off + j + 3]!;
  }
  for (let j = n4; j < n; j++) s0 += q[j]! * all[off + j]!;
  return s0 + s1 + (s2 + s3);
}

/** A segment's skip mask (undefined = nothing skipped) and how many of its rows it skips. */
interface SkipMask {
  readonly skip: Uint8Array | undefined;
  readonly skipped: number;
}

/** Returns the rows of a segment to skip (shadowed or not allowed) and their count. O(rows). */
export function buildSkipMask(ids: Int32Array, filter: ScanFilter): SkipMask {
  const { allow, shadow } = filter;
  let skipped = 0;
  if (allow === undefined) {
    if (shadow !== undefined) for (let row = 0; row < ids.length; row++) skipped += shadow[row]!;
    return { skip: skipped > 0 ? shadow : undefined, skipped };
  }
  const skip = shadow === undefined ? new Uint8Array(ids.length) : shadow.slice();
  for (let row = 0; row < ids.length; row++) {
    if (!allow[ids[row]!]) skip[row] = 1;
    skipped += skip[row]!;
  }
  return { skip: skipped > 0 ? skip : undefined, skipped };
}

/**
 * Estimated ns per row of the batch kernel (1 thread) and of the TypeScript loop, and per candidate the batch call
 * returns. Fitted to 100k-row scans on the 2-vCPU Xeon, 2026-11-23 (p50, /tmp micro-bench and
 * scripts/bench/vector-scan.ts): usearch f32 16.5 / 18.9 / 155 / 431 ns per row at 8 / 32 / 384 / 1024 dims,
 * usearch i8 cosine 19 / 19 / 40 / 128, TypeScript f32 11 / 28 / 332 / 890; a top-10,000 instead of a top-10 call
 * adds ~4 ms, a full top-100,000 ~15–19 ms.
 */
const costNs = {
  batchRow: (type: "f32" | "i8", dims: number) =>
    type === "f32" ? Math.max(16, 5 + 0.415 * dims) : Math.max(19, 6 + 0.12 * dims),
  jsRow: (dims: number) => 1 + 0.87 * dims,
  batchCandidate: 300,
  threadStart: 1_500_000,
};

/**
 * Returns true when one batch call over all `rows` (asking for `want` candidates) is estimated cheaper than the
 * TypeScript loop over the `allowed` rows only. The JS loop wins at tiny dims (per-row call overhead in the kernel)
 * and when a filter leaves few rows (the batch call scores every row and must return every skipped one too).
 */
export function preferBatch(
  type: "f32" | "i8",
  rows: number,
  allowed: number,
  want: number,
  dims: number,
  threads: number,
): boolean {
  const speedup = threads > 1 ? 0.9 * threads : 1;
  const batch =
    (rows * costNs.batchRow(type, dims)) / speedup +
    want * costNs.batchCandidate +
    (threads > 1 ? costNs.threadStart : 0);
  return batch < allowed * costNs.jsRow(dims);
}

/**
 * Returns whether to scan a block with the batch kernel, per `kernels.loop` (default "auto": preferBatch).
 * Throws Error when the loop is forced to "batch" but the kernel is missing or the block has a non-zero byteOffset.
 */
function useBatch(
  kernels: DotKernels,
  block: Float32Array | Int8Array,
  type: "f32" | "i8",
  allowed: number,
  want: number,
  dims: number,
  threads: number,
): boolean {
  const loop = kernels.loop ?? "auto";
  if (loop === "js") return false;
  const usable = kernels.batch !== undefined && block.byteOffset === 0;
  if (loop === "batch" && !usable)
    throw new Error(
      `the batch scan was forced but ${kernels.batch === undefined ? "no batch kernel loaded" : "the block has a non-zero byteOffset"}`,
    );
  return loop === "batch" || (usable && preferBatch(type, block.length / dims, allowed, want, dims, threads));
}

/**
 * Pushes the allowed rows among a batch call's best-first candidates into `heap`. Exact: the call returned the top
 * (heap capacity + skipped rows) of the segment, so at least `capacity` allowed rows are among them, and they are
 * the segment's best allowed rows.
 */
function pushBatchTop(top: BatchTop, skip: Uint8Array | undefined, segIndex: number, heap: TopK): void {
  const { rows, scores } = top;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!;
    if (skip !== undefined && skip[row] !== 0) continue;
    const score = scores[i]!;
    if (score <= heap.threshold()) return; // best first: nothing after this can enter
    heap.push(score, segIndex, row);
  }
}

/** Scans the allowed f32 rows of `seg` with the TypeScript loop (by offset: no view objects). */
function scanF32Js(
  seg: MappedSegment,
  segIndex: number,
  q: Float32Array,
  skip: Uint8Array | undefined,
  heap: TopK,
): void {
  const { ids, f32 } = seg;
  const dims = q.length;
  let threshold = heap.threshold();
  for (let row = 0, off = 0; row < ids.length; row++, off += dims) {
    if (skip !== undefined && skip[row] !== 0) continue;
    const score = dotF32At(q, f32, off);
    if (score > threshold) {
      heap.push(score, segIndex, row);
      threshold = heap.threshold();
    }
  }
}

/**
 * Scans the f32 rows of `seg` into `heap`: one usearch call over the whole block (dot products) when the kernels
 * have it and preferBatch says so, else the TypeScript loop over the allowed rows. Both give the exact filtered top-k.
 */
export function scanF32(
  seg: MappedSegment,
  segIndex: number,
  q: Float32Array,
  kernels: DotKernels,
  filter: ScanFilter,
  heap: TopK,
): void {
  const rows = seg.ids.length;
  if (rows === 0 || heap.capacity === 0) return;
  const { skip, skipped } = buildSkipMask(seg.ids, filter);
  if (skipped === rows) return;
  const want = Math.min(rows, heap.capacity + skipped);
  const threads = pickThreads(seg.f32.byteLength);
  if (useBatch(kernels, seg.f32, "f32", rows - skipped, want, q.length, threads)) {
    pushBatchTop(kernels.batch!.topDotF32(seg.f32, q, want, threads), skip, segIndex, heap);
  } else {
    scanF32Js(seg, segIndex, q, skip, heap);
  }
}

/**
 * Returns the int8 quantization of a normalized query, same scheme as the rows (x / (max |x| / 127), rounded). A
 * fresh array (byteOffset 0, as usearch needs). The scale is not returned: the batch kernel scores by cosine.
 */
export function quantizeQueryI8(q: Float32Array): Int8Array {
  let maxAbs = 0;
  for (let j = 0; j < q.length; j++) maxAbs = Math.max(maxAbs, Math.abs(q[j]!));
  const scale = maxAbs > 0 ? maxAbs / 127 : 1;
  const q8 = new Int8Array(q.length);
  for (let j = 0; j < q.length; j++) q8[j] = Math.round(q[j]! / scale);
  return q8;
}

/**
 * Scans an i8 segment into `heap` with approximate scores (cosine of the int8 row and the int8 query, within
 * quantization noise of the f32 cosine; vector-store.ts re-scores the candidates in f32): one usearch call over the
 * int8 block when preferBatch says so, else the exact TypeScript loop over the f32 block of the allowed rows.
 * Throws TypeError when `seg` is not an i8 segment.
 */
export function scanI8(
  seg: MappedSegment,
  segIndex: number,
  q: Float32Array,
  kernels: DotKernels,
  filter: ScanFilter,
  heap: TopK,
): void {
  const { ids, i8 } = seg;
  if (i8 === undefined) throw new TypeError(`${seg.path} is not an int8 segment`);
  const rows = ids.length;
  if (rows === 0 || heap.capacity === 0) return;
  const { skip, skipped } = buildSkipMask(ids, filter);
  if (skipped === rows) return;
  const want = Math.min(rows, heap.capacity + skipped);
  const threads = pickThreads(i8.byteLength);
  if (useBatch(kernels, i8, "i8", rows - skipped, want, q.length, threads)) {
    pushBatchTop(kernels.batch!.topCosI8(i8, quantizeQueryI8(q), want, threads), skip, segIndex, heap);
  } else {
    scanF32Js(seg, segIndex, q, skip, heap);
  }
}

/** Scans the f16 rows of an f16 segment in TypeScript (usearch's JS binding takes no f16). Throws TypeError otherwise. */
export function scanF16(seg: MappedSegment, segIndex: number, q: Float32Array, filter: ScanFilter, heap: TopK): void {
  const { ids, f16 } = seg;
  if (f16 === undefined) throw new TypeError(`${seg.path} is not an f16 segment`);
  const dims = q.length;
  const { skip } = buildSkipMask(ids, filter);
  for (let row = 0, off = 0; row < ids.length; row++, off += dims) {
    if (skip !== undefined && skip[row] !== 0) continue;
    const score = dotF16At(q, f16, off);
    if (score > heap.threshold()) heap.push(score, segIndex, row);
  }
}

/**
 * Scans one segment with the loop for its element type: f32 and i8 through scanF32 / scanI8 (batch kernel or
 * TypeScript loop), f16 always in TypeScript (~1,160 ms per 100k×1024, kept only for measurement).
 */
export function scanSegment(
  seg: MappedSegment,
  segIndex: number,
  q: Float32Array,
  kernels: DotKernels,
  filter: ScanFilter,
  heap: TopK,
): void {
  const type = seg.header.elementType;
  if (type === "f32") scanF32(seg, segIndex, q, kernels, filter, heap);
  else if (type === "i8") scanI8(seg, segIndex, q, kernels, filter, heap);
  else scanF16(seg, segIndex, q, filter, heap);
}
