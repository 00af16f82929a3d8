/**
 * Dot-product kernels for the vector scan: the simsimd N-API addon when it loads, plain TypeScript otherwise.
 * Owns only the loading and the pairwise kernels; the scan loop, top-k and filters live in vector-scan.ts.
 * The addon is loaded through a STATIC RELATIVE require of the prebuilt `.node` file, never through the package
 * entry: in a `bun build --compile` binary the package entry silently falls back to JS on any other machine,
 * while a static relative require embeds the addon (runtime-notes §3, measured 2026-11 on the 2-vCPU EPYC box).
 * simsimd has no batch call, accepts Float32/Float64/Int8/Uint8 arrays only, and `inner` returns the dot product.
 */

/** A pairwise dot product of two equal-length vectors; returns a double. */
export type DotFn<T> = (a: T, b: T) => number;

/** The kernels the scan uses: f32·f32 and i8·i8 dot products, plus where they came from. */
export interface DotKernels {
  /** "simsimd" when the native addon loaded, "js" for the TypeScript fallback. */
  readonly name: "simsimd" | "js";
  /** f32 dot product (double result); both arrays have the same length (dims). */
  readonly dotF32: DotFn<Float32Array>;
  /** int8 dot product (exact integer, as a double); both arrays have the same length (dims). */
  readonly dotI8: DotFn<Int8Array>;
}

/**
 * Returns the f32 dot product of `a` and `b` (same length) with a 4×-unrolled loop and 4 accumulators.
 * Used for pairwise calls (re-scoring); the full scan uses vector-scan.ts's offset-based 8-accumulator loop.
 */
export function dotF32Js(a: Float32Array, b: Float32Array): number {
  const n = a.length;
  const n4 = n - (n % 4);
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (let j = 0; j < n4; j += 4) {
    s0 += a[j]! * b[j]!;
    s1 += a[j + 1]! * b[j + 1]!;
    s2 += a[j + 2]! * b[j + 2]!;
    s3 += a[j + 3]! * b[j + 3]!;
  }
  for (let j = n4; j < n; j++) s0 += a[j]! * b[j]!;
  return s0 + s1 + (s2 + s3);
}

/**
 * Returns the exact int8 dot product of `a` and `b` (same length) in plain TypeScript. The same loop as
 * dotF32Js on purpose: one function fed two typed-array kinds goes polymorphic in the JIT (measured 18x
 * slower for f32/f16, see vector-scan.ts), so each element type keeps its own copy.
 */
export function dotI8Js(a: Int8Array, b: Int8Array): number {
  const n = a.length;
  const n4 = n - (n % 4);
  let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  for (let j = 0; j < n4; j += 4) {
    s0 += a[j]! * b[j]!;
    s1 += a[j + 1]! * b[j + 1]!;
    s2 += a[j + 2]! * b[j + 2]!;
    s3 += a[j + 3]! * b[j + 3]!;
  }
  for (let j = n4; j < n; j++) s0 += a[j]! * b[j]!;
  return s0 + s1 + (s2 + s3);
}

/** The fallback kernels, also used by tests to compare with simsimd. */
export const jsKernels: DotKernels = { name: "js", dotF32: dotF32Js, dotI8: dotI8Js };

function requireAddon(): SimsimdAddon {
  // Both paths are static string literals so `bun build --compile` embeds both prebuilt addons (runtime-notes §3).
  if (process.platform !== "linux") throw new Error(`no simsimd prebuild for ${process.platform}-${process.arch}`);
  if (process.arch === "arm64") return require("../../node_modules/simsimd/prebuilds/linux-arm64/simsimd.node");
  if (process.arch === "x64") return require("../../node_modules/simsimd/prebuilds/linux-x64/simsimd.node");
  throw new Error(`no simsimd prebuild for ${process.platform}-${process.arch}`);
}

/** Loads the native addon; throws when there is no prebuild for this platform or it fails to load. */
export type AddonLoader = () => SimsimdAddon;

/** The slice of the simsimd addon used here: `inner` is the dot product (runtime-notes §3). */
export interface SimsimdAddon {
  inner(a: Float32Array | Int8Array, b: Float32Array | Int8Array): number;
}

/**
 * Returns simsimd kernels from `loadAddon` after a self-test, or the TypeScript fallback after calling
 * `onWarning` with a one-line reason when loading or the self-test fails. Never throws, never prints, never caches.
 */
export function createDotKernels(loadAddon: AddonLoader, onWarning?: (message: string) => void): DotKernels {
  try {
    const addon = loadAddon();
    const probe = addon.inner(new Float32Array([1, 2]), new Float32Array([3, 4]));
    if (probe !== 11) throw new Error(`simsimd self-test returned ${probe}, expected 11`);
    // The N-API function needs no `this`; passing it unwrapped saves a JS frame per row.
    const inner = addon.inner as DotFn<Float32Array> & DotFn<Int8Array>;
    return { name: "simsimd", dotF32: inner, dotI8: inner };
  } catch (error) {
    const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
    onWarning?.(`simsimd native addon unavailable (${reason}); using the slower TypeScript dot product`);
    return jsKernels;
  }
}

let cached: DotKernels | undefined;

/**
 * Returns the process-wide dot kernels: simsimd through the static relative require, else the TypeScript fallback
 * (each call then reports the one-line reason to `onWarning`). The simsimd result is cached. Never throws or prints.
 * Set RECALL_NO_SIMSIMD=1 to force the fallback without a warning (benches, comparisons).
 */
export function loadDotKernels(onWarning?: (message: string) => void): DotKernels {
  if (cached) return cached;
  if (process.env.RECALL_NO_SIMSIMD === "1") return jsKernels;
  const kernels = createDotKernels(requireAddon, onWarning);
  if (kernels.name === "simsimd") cached = kernels;
  return kernels;
}
