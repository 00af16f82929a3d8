/**
 * sha256 of a model file, cached in a sidecar keyed by size and mtime, so the 639 MB default model is hashed
 * once (~1–2 s) rather than on every search. The sidecar of a file in recall's models folder is
 * `<file>.sha256.json` beside it; for a file the user gave by path (anywhere else: a shared or read-only folder,
 * another tool's models) it is `<models folder>/hashes/<sha256 of the path>.json`, so recall never writes next
 * to a file it does not own. An unwritable folder only skips the cache.
 */
import { existsSync, mkdirSync, readFileSync, type Stats, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { EmbedError } from "../errors.ts";

interface HashSidecar {
  /** the model file the hash is of (sidecars under `hashes/` are named by a hash of it) */
  path?: string;
  sizeBytes: number;
  mtimeMs: number;
  sha256: string;
}

/**
 * Where the hash of `path` is cached (see the module doc).
 * Examples: `<models>/qwen3.gguf` → `<models>/qwen3.gguf.sha256.json`; `/data/m.gguf` → `<models>/hashes/<64 hex>.json`.
 */
export function hashSidecarPath(path: string, modelsFolder: string): string {
  const file = resolve(path);
  return dirname(file) === resolve(modelsFolder)
    ? `${file}.sha256.json`
    : join(modelsFolder, "hashes", `${hashText(file)}.json`);
}

/**
 * Returns the lower-case hex sha256 of the file at `path`, reusing the sidecar when size and mtime match.
 * @param modelsFolder recall's models folder (`<cache>/models`), where hashes of files outside it are cached
 * @throws EmbedError(MODEL_MISSING) when the file cannot be read
 */
export async function hashModelFile(path: string, modelsFolder: string): Promise<string> {
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch (cause) {
    throw new EmbedError("MODEL_MISSING", `model file not found: ${path}`, { cause, hint: "run `recall model pull`" });
  }
  const sidecarPath = hashSidecarPath(path, modelsFolder);
  if (existsSync(sidecarPath)) {
    try {
      const cached = JSON.parse(readFileSync(sidecarPath, "utf8")) as HashSidecar;
      const samePath = cached.path === undefined || cached.path === resolve(path);
      if (
        samePath &&
        cached.sizeBytes === stat.size &&
        cached.mtimeMs === stat.mtimeMs &&
        /^[0-9a-f]{64}$/.test(cached.sha256)
      )
        return cached.sha256;
    } catch {
      // a corrupt sidecar is recomputed below
    }
  }
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
  const sha256 = hasher.digest("hex");
  try {
    mkdirSync(dirname(sidecarPath), { recursive: true, mode: 0o700 });
    writeFileSync(
      sidecarPath,
      JSON.stringify({
        path: resolve(path),
        sizeBytes: stat.size,
        mtimeMs: stat.mtimeMs,
        sha256,
      } satisfies HashSidecar),
      { mode: 0o600 },
    );
  } catch {
    // read-only model folder: hash again next time
  }
  return sha256;
}

/** sha256 hex of a string (remote fingerprints hash "remote:<url>#<model>"). */
export function hashText(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}
