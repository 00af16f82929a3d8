/**
 * Public surface of the embedding layer: the Embedder contract, config resolution (local GGUF vs remote
 * endpoint, offline rule), model presets and files, and both backends. node-llama-cpp is loaded lazily
 * (load-runtime.ts) so commands that never embed start fast. Other layers import from here only.
 */
export { fingerprintString, normalizeVector } from "./types.ts";
export type { Embedder, EmbedHooks, ModelFingerprint, Pooling, QueryEmbedder } from "./types.ts";
export { serveEmbedHelper, type EmbedHelperServerOptions, type HelperExit } from "./helper/server.ts";
export { connectEmbedHelper, stopEmbedHelpers, type HelperConnection } from "./helper/client.ts";
export { helperSocketPath, helpersDir } from "./helper/socket-path.ts";
export type { HelperModel, HelperRoots } from "./helper/protocol.ts";
export {
  cpuDefaultPresetName,
  defaultPresetFor,
  findPreset,
  gpuDefaultPresetName,
  modelPresets,
  presetDownloadUrl,
} from "./presets.ts";
export { detectHardware, type HardwareReport } from "./hardware.ts";
export { recognizeModelFamily, type ModelFamily } from "./model-family.ts";
export type { ModelPreset } from "./presets.ts";
export {
  describeDefaultModel,
  isLoopbackUrl,
  isOffline,
  loadEnvWithDotEnv,
  modelNameOf,
  normalizeEmbeddingsUrl,
  parseDotEnv,
  resolveEmbedConfig,
} from "./config.ts";
export type { EmbedConfig, LocalEmbedConfig, RemoteEmbedConfig } from "./config.ts";
export { downloadFile, ensureModel, listModels, pullModel } from "./model-files.ts";
export type { DownloadOptions, DownloadProgressHook, ModelFileEntry } from "./model-files.ts";
export { readGgufHeader, readGgufModelInfo } from "./gguf-header.ts";
export type { GgufModelInfo } from "./gguf-header.ts";
export { createLocalEmbedder } from "./local-embedder.ts";
export type { LocalEmbedderOptions } from "./local-embedder.ts";
export { createRemoteEmbedder, parseRetryAfterMs } from "./remote-embedder.ts";
export type { RemoteEmbedderOptions } from "./remote-embedder.ts";
export { openEmbedder } from "./open-embedder.ts";
export type { OpenEmbedderOptions } from "./open-embedder.ts";
export { setNativeLogHook } from "./load-runtime.ts";
export { hashModelFile } from "./model-hash.ts";
