/**
 * Where the embedding helper of one (index, model) listens: `<cache>/helpers/embed-<key>.sock`, in a folder made
 * 0700 (recall's cache folder is private to its user), so only that user can connect. The key is the first 16 hex
 * digits of sha256 over the index folder, the model file's path, size and modification time, and recall's version:
 * a new model file, another index or an upgraded recall never talks to an old helper.
 */
import { statSync } from "node:fs";
import { join } from "node:path";
import type { RecallPaths } from "../../home/paths.ts";
import type { LocalEmbedConfig } from "../config.ts";

/**
 * Longest socket path used, in bytes: `sun_path` holds 104 bytes on macOS and 108 on Linux, including the NUL.
 * A longer cache path gets no helper (searches load the model themselves).
 */
export const maxSocketPathBytes = 100;

/** Folder of the helpers' sockets and logs: `<cache>/helpers`. */
export function helpersDir(paths: RecallPaths): string {
  return join(paths.cache, "helpers");
}

/**
 * The socket path for `config`'s model serving the index in `recallHome`.
 * @returns undefined when the model file cannot be read (the in-process load will report it) or the path would
 *          exceed {@link maxSocketPathBytes}
 */
export function helperSocketPath(
  paths: RecallPaths,
  recallHome: string,
  config: LocalEmbedConfig,
  version: string,
): string | undefined {
  const stat = statSync(config.modelPath, { throwIfNoEntry: false });
  if (!stat) return undefined;
  const key = new Bun.CryptoHasher("sha256")
    .update(JSON.stringify([recallHome, config.modelPath, stat.size, stat.mtimeMs, version]))
    .digest("hex")
    .slice(0, 16);
  const path = join(helpersDir(paths), `embed-${key}.sock`);
  return Buffer.byteLength(path) <= maxSocketPathBytes ? path : undefined;
}
