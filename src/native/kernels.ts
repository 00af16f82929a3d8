/**
 * The kernel set a vector store scores with: a batch scan kernel (usearch, one call per segment) and a pairwise
 * f32 dot product for the re-score (simsimd), each with a TypeScript fallback. Owns loading and naming them;
 * the loops that use them are in vector-scan.ts and vector-store.ts.
 * Per platform (2026-11-23): linux-x64 and linux-arm64 get both addons; darwin gets usearch only (simsimd 6.5.5 has
 * no darwin prebuild), so its pairwise dot is TypeScript, which costs microseconds on ≤ k × rescoreFactor rows.
 */
import { loadSimsimdDot, requireSimsimd, type AddonLoader } from "./simsimd.ts";
import { createBatchKernel, requireUsearch, type BatchKernel, type UsearchLoader } from "./usearch.ts";

/** A pairwise dot product of two equal-length vectors; returns a double. */
export type DotFn<T> = (a: T, b: T) => number;

/** Which native parts loaded: "simsimd+usearch" (Linux), "usearch" (macOS), "simsimd", or "js" (none). */
export type KernelName = "simsimd+usearch" | "simsimd" | "usearch" | "js";

/** The kernels the store uses. */
export interface DotKernels {
  /** Which native addons loaded; `recall doctor` prints it ("dot product: simsimd+usearch"). */
  readonly name: KernelName;
  /** f32 dot product (double result) of two arrays of the same length (dims): simsimd or TypeScript. */
  readonly dotF32: DotFn<Float32Array>;
  /** Whole-segment scan kernel (usearch), or undefined: vector-scan.ts then uses its TypeScript loop. */
  readonly batch: BatchKernel | undefined;
  /**
   * Which scan loop to use: "auto" (default: vector-scan.ts `preferBatch` picks per segment by estimated cost),
   * or "batch" / "js" to force one (tests and benches; "batch" throws when the batch kernel cannot run).
   */
  readonly loop?: ScanLoop;
}

/** See DotKernels.loop. */
export type ScanLoop = "auto" | "batch" | "js";

/**
 * Returns the f32 dot product of `a` and `b` (same length) with a 4×-unrolled loop and 4 accumulators.
 * Used for pairwise calls (re-scoring); the full scan uses vector-scan.ts's offset-based 8-accumulator loop.
 */
export function dotF32Js(a: Float32Array, b: Float32Array): number {
  const n = a.length;
  const n4 = n - (n % 4);
  let s0 = 0,
    s1 = 0,
    s2 = 0,
    s3 = 0;
  for (let j = 0; j < n4; j += 4) {
    s0 += a[j]! * b[j]!;
    s1 += a[j + 1]! * b[j + 1]!;
    s2 += a[j + 2]! * b[j + 2]!;
    s3 += a[j + 3]! * b[j + 3]!;
  }
  for (let j = n4; j < n; j++) s0 += a[j]! * b[j]!;
  return s0 + s1 + (s2 + s3);
}

/** The all-TypeScript kernels: the fallback, and what tests and benches compare the native ones with. */
export const jsKernels: DotKernels = { name: "js", dotF32: dotF32Js, batch: undefined };

/** How to load each addon (tests pass failing or fake loaders). */
export interface KernelLoaders {
  readonly simsimd: AddonLoader;
  readonly usearch: UsearchLoader;
}

/**
 * Returns the kernels `loaders` provide after their self-tests, with TypeScript for whatever fails. Calls
 * `onWarning` with one line when the batch kernel is missing (the scan is then 2–3× slower); a missing simsimd
 * is silent when usearch loaded (macOS: no prebuild; the re-score cost is negligible), else it is warned about
 * too. Never throws, never prints, never caches.
 */
export function createDotKernels(loaders: KernelLoaders, onWarning?: (message: string) => void): DotKernels {
  let simsimdNote = "";
  let dotF32: DotFn<Float32Array> = dotF32Js;
  let hasSimsimd = false;
  try {
    dotF32 = loadSimsimdDot(loaders.simsimd);
    hasSimsimd = true;
  } catch (error) {
    simsimdNote = `simsimd native addon unavailable (${firstLine(error)}); using the TypeScript dot product`;
  }
  const batch = createBatchKernel(loaders.usearch, onWarning);
  if (batch === undefined && simsimdNote) onWarning?.(simsimdNote);
  const name: KernelName = hasSimsimd ? (batch ? "simsimd+usearch" : "simsimd") : batch ? "usearch" : "js";
  return { name, dotF32, batch };
}

function firstLine(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split("\n")[0]!;
}

let cached: DotKernels | undefined;

/**
 * Returns the process-wide kernels through the static relative requires, else TypeScript parts (each call then
 * reports the one-line reason to `onWarning`). Cached once the batch kernel loaded. Never throws or prints.
 * Set RECALL_NO_SIMSIMD=1 (the historical name) to force all-TypeScript kernels without a warning (benches, comparisons).
 */
export function loadDotKernels(onWarning?: (message: string) => void): DotKernels {
  if (cached) return cached;
  if (process.env.RECALL_NO_SIMSIMD === "1") return jsKernels;
  const kernels = createDotKernels({ simsimd: requireSimsimd, usearch: requireUsearch }, onWarning);
  if (kernels.batch !== undefined) cached = kernels;
  return kernels;
}
