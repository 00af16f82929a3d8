/**
 * One call from configuration to a ready Embedder: resolve local vs remote, fetch a missing preset model,
 * load it. Callers (index, search) catch EmbedError and fall back to keyword-only search.
 */
import type { RecallPaths } from "../home/paths.ts";
import { loadEnvWithDotEnv, resolveEmbedConfig, type EmbedConfig } from "./config.ts";
import { createLocalEmbedder, type LocalEmbedderOptions } from "./local-embedder.ts";
import { ensureModel, type DownloadProgressHook } from "./model-files.ts";
import { createRemoteEmbedder, type RemoteEmbedderOptions } from "./remote-embedder.ts";
import { remoteOptionsFromEnv } from "./remote-options.ts";
import type { Embedder } from "./types.ts";

/** Options of `openEmbedder`. */
export interface OpenEmbedderOptions {
  env: Record<string, string | undefined>;
  /** the recall folders (models in `<cache>/models`, `.env` in `<config>`), or one folder holding both (RECALL_HOME) */
  home: string | RecallPaths;
  /** `--model` value */
  modelFlag?: string | undefined;
  /** already resolved config (skips resolveEmbedConfig) */
  config?: EmbedConfig;
  onDownloadProgress?: DownloadProgressHook;
  local?: LocalEmbedderOptions;
  remote?: RemoteEmbedderOptions;
}

/**
 * Resolves the config, ensures the model file (downloading a preset if allowed) and creates the embedder.
 * @throws UsageError (bad model name/URL, bad EMBEDDINGS_BATCH / EMBEDDINGS_CONCURRENCY / EMBEDDINGS_TIMEOUT_MS); EmbedError (MODEL_MISSING, MODEL_DOWNLOAD, EMBED_FAILED, ENDPOINT_UNREACHABLE)
 */
export async function openEmbedder(options: OpenEmbedderOptions): Promise<Embedder> {
  const config =
    options.config ?? resolveEmbedConfig({ env: options.env, home: options.home, modelFlag: options.modelFlag });
  if (config.kind === "remote")
    return createRemoteEmbedder(config, {
      ...remoteOptionsFromEnv(loadEnvWithDotEnv(options.env, options.home)),
      ...options.remote,
    });
  await ensureModel(config, { onProgress: options.onDownloadProgress });
  return createLocalEmbedder(config, options.local);
}
