/**
 * Public surface of src/native: the scan kernels (usearch batch, simsimd pairwise, TypeScript fallback) and the
 * memory-mapped vector store.
 * Other layers import from ".", never from the files behind it.
 */
export {
  createDotKernels,
  jsKernels,
  loadDotKernels,
  type DotKernels,
  type KernelLoaders,
  type KernelName,
  type ScanLoop,
} from "./kernels.ts";
export type { AddonLoader, SimsimdAddon } from "./simsimd.ts";
export type { BatchKernel, UsearchAddon, UsearchLoader } from "./usearch.ts";
export {
  openVectorStore,
  VectorStore,
  type VectorStoreOptions,
  type VectorStoreStats,
  type ModelMismatch,
  type SegmentDigest,
  type UnusableSegment,
} from "./vector-store.ts";
export { buildIdFilter, MAX_VECTOR_ID } from "./vector-rows.ts";
export type { VectorLevel } from "./segment-dir.ts";
export type { ElementType } from "./vector-file.ts";
export type { VectorHit } from "./vector-scan.ts";
