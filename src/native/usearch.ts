/**
 * The batch scan kernel: usearch's `exactSearch`, which scores a whole segment (a rowCount × dims matrix) against
 * one query and returns its top rows in ONE N-API call. Owns only the loading, the self-test and the calling
 * convention; which rows to keep (filters, top-k across segments) is vector-scan.ts's job.
 * Format facts, read from usearch 2.26.2's own sources (`javascript/usearch.ts`, `javascript/lib.cpp`, and
 * `include/usearch/index_plugins.hpp` `exact_search_t`) in its npm tarball, 2026-11-23:
 * - the addon's `exactSearch(dataset, queries, dims, count, metric, threads)` takes Float32Array, Float64Array or
 *   Int8Array (the query's type picks the kernel) and returns [keys BigUint64Array, distances Float32Array,
 *   counts BigUint64Array]; keys are row offsets, best first; metric "ip" gives 1 − dot, "cos" gives 1 − cosine;
 * - it reads from the start of the typed array's ArrayBuffer and ignores `byteOffset`, so every array passed here
 *   must have byteOffset 0 (vector-file.ts maps each block on its own for that);
 * - `count` above the row count is undefined behaviour (std::partial_sort past the end): callers clamp it;
 * - each row's distance is computed on its own and the partial sort runs on one thread, so the result does not
 *   depend on the thread count (tested in test/native/usearch.test.ts).
 * Loaded through a STATIC RELATIVE require of the prebuilt `.node` (runtime-notes §3: the package entry's loader
 * hard-codes node_modules' absolute path in a compiled binary, exactly like simsimd's).
 */
import { availableParallelism } from "node:os";

/** Set by `bun build --define` in scripts/build.ts to the release target ("linux-x64", "darwin-arm64", …). */
declare const RECALL_NATIVE_TARGET: string | undefined;

/** The slice of the usearch 2.26.2 addon used here (see the module doc for the argument and result facts). */
export interface UsearchAddon {
  exactSearch(
    dataset: Float32Array | Int8Array,
    queries: Float32Array | Int8Array,
    dims: number,
    count: number,
    metric: "ip" | "cos",
    threads: number,
  ): [keys: BigUint64Array, distances: Float32Array, counts: BigUint64Array];
}

/** Loads the usearch addon; throws when there is no prebuild for this platform or it fails to load. */
export type UsearchLoader = () => UsearchAddon;

/** The best rows of one batch call, best first: `rows[i]` is a row index of the segment, `scores[i]` its score. */
export interface BatchTop {
  /** Row indices (0 … rowCount−1), `count` entries, ordered by score descending. */
  readonly rows: Uint32Array;
  /** f32 rows: dot product; i8 rows: cosine of the int8 row and int8 query. Float32 precision (~1e-7 absolute). */
  readonly scores: Float32Array;
}

/** A whole-matrix scan kernel (usearch). Every matrix and query must have byteOffset 0 (see the module doc). */
export interface BatchKernel {
  readonly name: "usearch";
  /**
   * Returns the `count` rows of `matrix` (rowCount × q.length f32, row-major) with the highest dot product with `q`.
   * `count` must be in 1 … rowCount; `threads` ≥ 1 (the result is the same for any value).
   * Throws RangeError on a bad count or a non-zero byteOffset.
   */
  topDotF32(matrix: Float32Array, q: Float32Array, count: number, threads: number): BatchTop;
  /**
   * Returns the `count` int8 rows of `matrix` (rowCount × q8.length) with the highest cosine to `q8`. The cosine
   * of the int8 vectors is used (not dot × per-row scale): it ranks the same up to quantization noise and needs no
   * per-row scale inside the kernel. Same preconditions as topDotF32.
   */
  topCosI8(matrix: Int8Array, q8: Int8Array, count: number, threads: number): BatchTop;
}

/** Loads the prebuilt usearch addon of this platform (or of the build's target). Throws when there is none. */
export function requireUsearch(): UsearchAddon {
  // Static string literals so `bun build --compile` embeds the addon; the define makes every other target's branch
  // dead code, so a binary embeds only its own platform's prebuild (4.5 MB linux-x64, 2.0 MB linux-arm64,
  // 2.2 MB darwin universal; the tarball also has win32-x64, which is not a release target).
  const target =
    typeof RECALL_NATIVE_TARGET === "string" ? RECALL_NATIVE_TARGET : `${process.platform}-${process.arch}`;
  if (target === "linux-x64") return require("../../node_modules/usearch/prebuilds/linux-x64/usearch.node");
  if (target === "linux-arm64") return require("../../node_modules/usearch/prebuilds/linux-arm64/usearch.node");
  if (target === "darwin-arm64" || target === "darwin-x64")
    return require("../../node_modules/usearch/prebuilds/darwin-arm64+x64/usearch.node");
  throw new Error(`no usearch prebuild for ${target}`);
}

function callTop(
  addon: UsearchAddon,
  matrix: Float32Array | Int8Array,
  q: Float32Array | Int8Array,
  count: number,
  metric: "ip" | "cos",
  threads: number,
): BatchTop {
  const dims = q.length;
  const rowCount = dims > 0 ? Math.floor(matrix.length / dims) : 0;
  if (!Number.isInteger(count) || count < 1 || count > rowCount)
    throw new RangeError(`usearch count ${count} is not in 1..${rowCount}`);
  if (matrix.byteOffset !== 0 || q.byteOffset !== 0)
    throw new RangeError("usearch reads from the buffer start: pass arrays with byteOffset 0");
  const [keys, distances] = addon.exactSearch(matrix, q, dims, count, metric, threads);
  // Keys are u64 row offsets < 2^32: their low words (little-endian on every release target) are the rows,
  // read without converting `count` BigInts.
  const words = new Uint32Array(keys.buffer, keys.byteOffset, 2 * count);
  const rows = new Uint32Array(count);
  const scores = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    rows[i] = words[2 * i]!;
    scores[i] = 1 - distances[i]!;
  }
  return { rows, scores };
}

/** Returns the kernel over a loaded addon (no self-test; see createBatchKernel). */
function wrapAddon(addon: UsearchAddon): BatchKernel {
  return {
    name: "usearch",
    topDotF32: (matrix, q, count, threads) => callTop(addon, matrix, q, count, "ip", threads),
    topCosI8: (matrix, q8, count, threads) => callTop(addon, matrix, q8, count, "cos", threads),
  };
}

/** Throws unless the kernel ranks a 3-row f32 and i8 matrix as expected (catches a wrong addon or calling convention). */
function selfTest(kernel: BatchKernel): void {
  const f32 = kernel.topDotF32(new Float32Array([1, 0, 0, 1, 1, 1]), new Float32Array([1, 2]), 3, 1);
  if (f32.rows.join() !== "2,1,0" || Math.abs(f32.scores[0]! - 3) > 1e-5)
    throw new Error(`usearch self-test returned rows ${f32.rows.join()} scores ${f32.scores.join()}`);
  const i8 = kernel.topCosI8(new Int8Array([1, 0, 0, 1, -1, 1]), new Int8Array([1, 2]), 2, 1);
  if (i8.rows.join() !== "1,0") throw new Error(`usearch int8 self-test returned rows ${i8.rows.join()}`);
}

/**
 * Returns the usearch batch kernel from `loadAddon` after a self-test, or undefined after calling `onWarning` with
 * a one-line reason when loading or the self-test fails. Never throws, never prints, never caches.
 */
export function createBatchKernel(
  loadAddon: UsearchLoader,
  onWarning?: (message: string) => void,
): BatchKernel | undefined {
  try {
    const kernel = wrapAddon(loadAddon());
    selfTest(kernel);
    return kernel;
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    onWarning?.(`usearch native addon unavailable (${reason}); the vector scan uses the slower TypeScript loop`);
    return undefined;
  }
}

/** Bytes a scan must read before a second thread pays off; below it the thread start (~1.5 ms) costs more. */
const BYTES_PER_THREAD = 64 * 1024 * 1024;

/**
 * Returns how many threads a scan of `bytes` should use: one per started 64 MiB, at most the core count and at
 * most 4 (the scan is memory-bound). Measured on 100k rows, 2-vCPU EPYC, 2026-11-23: f32 × 1024
 * (410 MB) 43 → 23 ms with 2 threads, f32 × 384 (154 MB) 15.5 → 9.2 ms, i8 × 384 (38 MB) 3.1 → 3.8 ms (worse),
 * any 32-dim segment ~1.9 → 3.4 ms (worse). Results do not depend on it.
 */
export function pickThreads(bytes: number): number {
  const cores = Math.max(1, Math.min(4, availableParallelism()));
  return Math.min(cores, Math.max(1, Math.ceil(bytes / BYTES_PER_THREAD)));
}
