/**
 * The simsimd N-API addon as a pairwise f32 dot product. Since the batch scan moved to usearch (usearch.ts), it only
 * re-scores the few candidates of a search (≤ k × rescoreFactor rows); kernels.ts falls back to TypeScript without it.
 * The addon is loaded through a STATIC RELATIVE require of the prebuilt `.node` file, never through the package
 * entry: in a `bun build --compile` binary the package entry silently falls back to JS on any other machine,
 * while a static relative require embeds the addon (runtime-notes §3, measured 2026-11 on the 2-vCPU EPYC box).
 * simsimd 6.5.5 ships linux-x64 and linux-arm64 prebuilds only, accepts Float32/Float64/Int8/Uint8 arrays, and
 * `inner` returns the dot product as a double (runtime-notes §3). Its linux-arm64 prebuild is in fact the x86-64
 * file (same md5 f0f0bb1c…, `file` says x86-64; checked 2026-11-23), so on arm64 it fails to load and kernels.ts
 * uses TypeScript for the re-score; the branch stays so a fixed simsimd release works without a code change.
 */

/** Set by `bun build --define` in scripts/build.ts to the release target ("linux-x64", "darwin-arm64", …). */
declare const RECALL_NATIVE_TARGET: string | undefined;

/** The slice of the simsimd addon used here: `inner` is the dot product (runtime-notes §3). */
export interface SimsimdAddon {
  inner(a: Float32Array, b: Float32Array): number;
}

/** Loads the simsimd addon; throws when there is no prebuild for this platform or it fails to load. */
export type AddonLoader = () => SimsimdAddon;

/** Loads the prebuilt simsimd addon of this platform (or of the build's target). Throws when there is none. */
export function requireSimsimd(): SimsimdAddon {
  // Static string literals so `bun build --compile` embeds the addon; the define drops the other target's branch.
  const target =
    typeof RECALL_NATIVE_TARGET === "string" ? RECALL_NATIVE_TARGET : `${process.platform}-${process.arch}`;
  if (target === "linux-arm64") return require("../../node_modules/simsimd/prebuilds/linux-arm64/simsimd.node");
  if (target === "linux-x64") return require("../../node_modules/simsimd/prebuilds/linux-x64/simsimd.node");
  throw new Error(`no simsimd prebuild for ${target}`);
}

/**
 * Returns simsimd's f32 dot product (a double; both arrays of equal length) from `loadAddon` after a self-test.
 * Throws when loading fails or the self-test returns a wrong value.
 */
export function loadSimsimdDot(loadAddon: AddonLoader): (a: Float32Array, b: Float32Array) => number {
  const addon = loadAddon();
  const probe = addon.inner(new Float32Array([1, 2]), new Float32Array([3, 4]));
  if (probe !== 11) throw new Error(`simsimd self-test returned ${probe}, expected 11`);
  // The N-API function needs no `this`; passing it unwrapped saves a JS frame per call.
  return addon.inner;
}
