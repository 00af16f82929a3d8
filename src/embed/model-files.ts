/**
 * Model files under `<cache>/models/` (`$XDG_CACHE_HOME/recall/models`, or RECALL_HOME/models; src/home/paths.ts): download (`recall model pull`), listing, and `ensureModel`, which the
 * indexer calls before loading. Downloads use fetch with HTTP Range resume into `<file>.part`, renamed when
 * complete and its GGUF header checks out. (node-llama-cpp's createModelDownloader goes through ipull with
 * parallel connections and its own resume metadata; a plain fetch keeps offline rules and request counts exact.)
 */
import { closeSync, existsSync, openSync, readdirSync, renameSync, rmSync, statSync, writeSync } from "node:fs";
import { dirname, join } from "node:path";
import { EmbedError, UsageError } from "../errors.ts";
import { asRecallPaths, makePrivateDirs, modelsDir, type RecallPaths } from "../home/paths.ts";
import { resolveEmbedConfig, type LocalEmbedConfig } from "./config.ts";
import { readGgufModelInfo, type GgufModelInfo } from "./gguf-header.ts";
import { modelPresets } from "./presets.ts";

/** Download progress in bytes; totalBytes is undefined when the server sends no length. */
export type DownloadProgressHook = (downloadedBytes: number, totalBytes: number | undefined) => void;

/** Options of `downloadFile`. */
export interface DownloadOptions {
  onProgress?: DownloadProgressHook;
  /** connection attempts, each resuming where the last stopped; default 4 */
  maxAttempts?: number;
  /** abort an attempt when no byte arrives for this long, in ms; default 60000 */
  stallTimeoutMs?: number;
  /** hex sha256 the finished file must have (a pinned preset); a mismatch deletes it and throws MODEL_DOWNLOAD */
  expectedSha256?: string;
}

/** Hex sha256 of a file, streamed (about 1 s per 600 MB here). */
async function sha256OfFile(path: string): Promise<string> {
  const hasher = new Bun.CryptoHasher("sha256");
  const reader = Bun.file(path).stream().getReader();
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) hasher.update(chunk.value);
  return hasher.digest("hex");
}

/** Streams one HTTP response body into `fd`, reporting each chunk's size. Throws on a dropped or stalled connection. */
async function writeBody(
  response: Response,
  fd: number,
  onBytes: (count: number) => void,
  stallTimeoutMs: number,
): Promise<void> {
  const reader = response.body!.getReader();
  for (;;) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stalled = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no data for ${stallTimeoutMs} ms`)), stallTimeoutMs);
    });
    const chunk = await Promise.race([reader.read(), stalled]).finally(() => clearTimeout(timer));
    if (chunk.done) return;
    writeSync(fd, chunk.value);
    onBytes(chunk.value.length);
  }
}

/** Total size from Content-Range ("bytes 100-199/200") or Content-Length plus the resume offset. */
function readTotalBytes(response: Response, offsetBytes: number): number | undefined {
  const range = /\/(\d+)\s*$/.exec(response.headers.get("content-range") ?? "");
  if (range) return Number(range[1]);
  const length = response.headers.get("content-length");
  return length === null ? undefined : Number(length) + offsetBytes;
}

/**
 * Downloads `url` to `targetPath` through `<targetPath>.part`, resuming with `Range: bytes=<n>-` after a dropped
 * connection (within this call, and across calls: a leftover .part is resumed). A 200 reply to a range
 * request restarts from zero. The file appears at `targetPath` only when complete.
 * @throws EmbedError(MODEL_DOWNLOAD) on an HTTP error status; when no attempt reaches the server (DNS, refused,
 *   offline: the hint names EMBEDDINGS_URL and --model); or when every attempt ends early (the hint: pull again)
 */
export async function downloadFile(url: string, targetPath: string, options: DownloadOptions = {}): Promise<void> {
  makePrivateDirs(dirname(targetPath));
  const partPath = `${targetPath}.part`;
  const maxAttempts = options.maxAttempts ?? 4;
  let lastError: unknown;
  let answered = false; // did the server answer any attempt (a dropped download can resume; an unreachable host cannot)
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    const offsetBytes = existsSync(partPath) ? statSync(partPath).size : 0;
    let response: Response;
    try {
      response = await fetch(url, { headers: offsetBytes > 0 ? { range: `bytes=${offsetBytes}-` } : {} });
    } catch (error) {
      lastError = error;
      continue;
    }
    answered = true;
    if (response.status === 416) {
      rmSync(partPath, { force: true });
      lastError = new Error("http 416");
      continue;
    }
    if (!response.ok || !response.body) {
      throw new EmbedError("MODEL_DOWNLOAD", `download failed: http ${response.status} for ${url}`);
    }
    const isResumed = response.status === 206 && offsetBytes > 0;
    const totalBytes = readTotalBytes(response, isResumed ? offsetBytes : 0);
    let downloadedBytes = isResumed ? offsetBytes : 0;
    const fd = openSync(partPath, isResumed ? "a" : "w");
    try {
      const onBytes = (count: number) => {
        downloadedBytes += count;
        options.onProgress?.(downloadedBytes, totalBytes);
      };
      await writeBody(response, fd, onBytes, options.stallTimeoutMs ?? 60_000);
    } catch (error) {
      lastError = error;
      continue;
    } finally {
      closeSync(fd);
    }
    if (totalBytes !== undefined && downloadedBytes !== totalBytes) {
      lastError = new Error(`got ${downloadedBytes} of ${totalBytes} bytes`);
      continue;
    }
    if (options.expectedSha256 !== undefined) {
      const actual = await sha256OfFile(partPath);
      if (actual !== options.expectedSha256.toLowerCase()) {
        rmSync(partPath, { force: true });
        throw new EmbedError(
          "MODEL_DOWNLOAD",
          `the download of ${url} is not the pinned file (sha256 ${actual.slice(0, 16)}…, expected ${options.expectedSha256.slice(0, 16)}…); it was deleted`,
          {
            hint: "check RECALL_MODEL_BASE_URL (a mirror must serve the same file), then run `recall model pull` again",
          },
        );
      }
    }
    renameSync(partPath, targetPath);
    return;
  }
  if (!answered)
    throw new EmbedError(
      "MODEL_DOWNLOAD",
      `cannot reach ${new URL(url).host} to download ${url}: ${String(lastError)}`,
      {
        hint: "check the network; or use an embedding server (EMBEDDINGS_URL) or a model file here (--model /path/model.gguf)",
      },
    );
  throw new EmbedError(
    "MODEL_DOWNLOAD",
    `download of ${url} failed after ${maxAttempts} attempts: ${String(lastError)}`,
    {
      hint: "run `recall model pull` again to resume",
    },
  );
}

/**
 * Returns the path of a usable model file, downloading a missing preset when online.
 * @throws EmbedError(MODEL_MISSING) for a missing custom path, or a missing preset under RECALL_OFFLINE=1
 *   (no request is made); EmbedError(MODEL_DOWNLOAD) when the download fails or yields a non-GGUF file
 */
export async function ensureModel(config: LocalEmbedConfig, options: DownloadOptions = {}): Promise<string> {
  if (existsSync(config.modelPath)) return config.modelPath;
  if (!config.downloadUrl) {
    throw new EmbedError("MODEL_MISSING", `model file not found: ${config.modelPath}`);
  }
  if (config.offline) {
    throw new EmbedError(
      "MODEL_MISSING",
      `model ${config.name} is not downloaded and RECALL_OFFLINE=1 forbids downloading it`,
      {
        hint: `run \`recall model pull ${config.name}\` while online`,
      },
    );
  }
  await downloadFile(config.downloadUrl, config.modelPath, { ...options, expectedSha256: config.preset?.sha256 });
  try {
    readGgufModelInfo(config.modelPath);
  } catch (cause) {
    rmSync(config.modelPath, { force: true });
    throw new EmbedError("MODEL_DOWNLOAD", `downloaded file is not a gguf model: ${config.downloadUrl}`, { cause });
  }
  return config.modelPath;
}

/**
 * `recall model pull [name]`: makes sure the named preset (default: the configured model) is in
 * `<cache>/models/`. A present file costs no request.
 * @returns the model path
 * @throws UsageError when `name` is a file path (nothing to pull); EmbedError as ensureModel
 */
export async function pullModel(options: {
  home: string | RecallPaths;
  env: Record<string, string | undefined>;
  name?: string;
  onProgress?: DownloadProgressHook;
}): Promise<string> {
  const config = resolveEmbedConfig({
    env: { ...options.env, EMBEDDINGS_URL: undefined },
    home: options.home,
    modelFlag: options.name,
  });
  if (config.kind !== "local" || !config.preset)
    throw new UsageError(`not a downloadable model: ${options.name}`, "give a preset name");
  return ensureModel(config, { onProgress: options.onProgress });
}

/** One file in `<cache>/models/`. */
export interface ModelFileEntry {
  fileName: string;
  path: string;
  sizeBytes: number;
  /** preset whose file name this is, if any */
  presetName: string | undefined;
  /** GGUF header facts; undefined when the header is unreadable (`error` says why) */
  info: GgufModelInfo | undefined;
  error: string | undefined;
}

/**
 * Lists `.gguf` files in `<cache>/models/` by name (partial `.part` downloads and hash sidecars excluded), reading
 * only their headers (~ms each). A missing folder gives []. `home`: the recall folders, or one folder (RECALL_HOME).
 */
export function listModels(home: string | RecallPaths): ModelFileEntry[] {
  const dir = modelsDir(asRecallPaths(home));
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith(".gguf"))
    .sort()
    .map((fileName) => {
      const path = join(dir, fileName);
      let info: GgufModelInfo | undefined;
      let error: string | undefined;
      try {
        info = readGgufModelInfo(path);
      } catch (cause) {
        error = (cause as Error).message;
      }
      const presetName = Object.values(modelPresets).find((preset) => preset.fileName === fileName)?.name;
      return { fileName, path, sizeBytes: statSync(path).size, presetName, info, error };
    });
}
