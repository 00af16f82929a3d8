/**
 * Opening the embedding model for a command, lazily and at most once: `index` may download the
 * default model on first use (when online); a search only uses a model that is already present, so
 * a query never triggers a download. The opener owns the embedder and disposes it.
 */
import { EmbedError } from "../errors.ts";
import { openEmbedder, resolveEmbedConfig, type EmbedConfig, type Embedder } from "../embed/index.ts";
import { existsSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { asRecallPaths, makePrivateDirs, modelsDir, type RecallPaths } from "../index/index.ts";

/**
 * After a failed automatic download, `recall index` does not try again for this long (ms), so an
 * offline laptop does not pay a network timeout on every run; `recall model pull` always tries.
 */
export const autoDownloadRetryMs = 60 * 60 * 1000;

const failureMarker = (paths: RecallPaths) => join(modelsDir(paths), ".auto-download-failed");

function recentlyFailed(paths: RecallPaths): boolean {
  try {
    return Date.now() - statSync(failureMarker(paths)).mtimeMs < autoDownloadRetryMs;
  } catch {
    return false;
  }
}

/** A memoized embedder opener. */
export interface EmbedderOpener {
  open(): Promise<Embedder>;
  /**
   * Identity of the configured model without loading it (`embedConfigKey`), or undefined when the configuration is
   * invalid (`open` then throws the reason). An index run compares it with the stored one to notice a model change.
   */
  configKey(): string | undefined;
  dispose(): Promise<void>;
}

/** The configuration fields that decide which vectors a model writes (never the API key, the offline flag or a download URL). */
const identityFields = [
  "kind",
  "name",
  "modelPath",
  "url",
  "model",
  "queryPrefix",
  "documentPrefix",
  "maxTokens",
] as const;

/**
 * A stable one-line identity of an embedding configuration, e.g.
 * `{"kind":"remote","url":"http://127.0.0.1:8080/v1/embeddings","model":"default","queryPrefix":"","documentPrefix":"","maxTokens":512}`.
 * Equal keys mean the same model files or endpoint with the same prefixes; a different key makes the next index run load
 * the model and compare its fingerprint (embed/types.ts) with the stored one.
 */
export function embedConfigKey(config: EmbedConfig): string {
  const picked: Record<string, unknown> = {};
  for (const field of identityFields)
    if (field in config) picked[field] = (config as unknown as Record<string, unknown>)[field];
  return JSON.stringify(picked);
}

/**
 * Create an opener.
 * @param home the recall folders (models in `<cache>/models`, `.env` in `<config>`; HistoryContext.paths), or one
 *   folder holding both (RECALL_HOME)
 * @param allowDownload fetch a missing preset model (index only; never during a search)
 */
export function createEmbedderOpener(
  home: string | RecallPaths,
  modelFlag: string | undefined,
  allowDownload: boolean,
  env = process.env,
): EmbedderOpener {
  const paths = asRecallPaths(home);
  let pending: Promise<Embedder> | undefined;
  return {
    open() {
      pending ??= (async () => {
        const config = resolveEmbedConfig({ env, home: paths, modelFlag });
        const missing = config.kind === "local" && !existsSync(config.modelPath);
        if (missing && (!allowDownload || recentlyFailed(paths))) {
          const why = allowDownload
            ? "its last automatic download failed less than an hour ago"
            : "it is not downloaded";
          throw new EmbedError("MODEL_MISSING", `the embedding model ${config.name} is missing: ${why}`, {
            hint: `run \`recall model pull ${config.name}\``,
          });
        }
        try {
          const embedder = await openEmbedder({ env, home: paths, modelFlag, config });
          if (missing) rmSync(failureMarker(paths), { force: true });
          return embedder;
        } catch (error) {
          if (missing && error instanceof EmbedError && error.code === "MODEL_DOWNLOAD") {
            makePrivateDirs(modelsDir(paths));
            writeFileSync(failureMarker(paths), new Date().toISOString(), { mode: 0o600 });
          }
          throw error;
        }
      })();
      return pending;
    },
    configKey() {
      try {
        return embedConfigKey(resolveEmbedConfig({ env, home: paths, modelFlag }));
      } catch {
        return undefined;
      }
    },
    async dispose() {
      if (!pending) return;
      try {
        await (await pending).dispose();
      } catch {
        // opening failed: nothing to dispose
      }
    },
  };
}

/**
 * One model for a long-lived process (`recall mcp`, `recall ui`, `recall watch`), shared by the watcher's embedding
 * phase and the searches' vector leg (one copy in memory; node-llama-cpp serializes calls per context). A failed open
 * is tried again next time (the model may be pulled meanwhile), and `dispose` lets the watcher free it after its idle
 * time; the next search or phase opens it again. Never downloads.
 */
export function sharedModelOpener(home: string | RecallPaths, modelFlag: string | undefined): EmbedderOpener {
  let opener: EmbedderOpener | undefined;
  return {
    open() {
      const current = (opener ??= createEmbedderOpener(home, modelFlag, false));
      return current.open().catch((error: unknown) => {
        if (opener === current) opener = undefined;
        throw error;
      });
    },
    configKey() {
      return (opener ??= createEmbedderOpener(home, modelFlag, false)).configKey();
    },
    async dispose() {
      const released = opener;
      opener = undefined;
      await released?.dispose();
    },
  };
}
