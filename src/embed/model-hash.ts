/**
 * sha256 of a model file, cached in a `<file>.sha256.json` sidecar keyed by size and mtime, so the 639 MB
 * default model is hashed once (~1–2 s) rather than on every search. An unwritable folder only skips the cache.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { EmbedError } from "../errors.ts";

interface HashSidecar {
  sizeBytes: number;
  mtimeMs: number;
  sha256: string;
}

/**
 * Returns the lower-case hex sha256 of the file at `path`, reusing the sidecar when size and mtime match.
 * @throws EmbedError(MODEL_MISSING) when the file cannot be read
 */
export async function hashModelFile(path: string): Promise<string> {
  let stat;
  try {
    stat = statSync(path);
  } catch (cause) {
    throw new EmbedError("MODEL_MISSING", `model file not found: ${path}`, { cause, hint: "run `recall model pull`" });
  }
  const sidecarPath = `${path}.sha256.json`;
  if (existsSync(sidecarPath)) {
    try {
      const cached = JSON.parse(readFileSync(sidecarPath, "utf8")) as HashSidecar;
      if (cached.sizeBytes === stat.size && cached.mtimeMs === stat.mtimeMs && /^[0-9a-f]{64}$/.test(cached.sha256)) return cached.sha256;
    } catch {
      // a corrupt sidecar is recomputed below
    }
  }
  const hasher = new Bun.CryptoHasher("sha256");
  for await (const chunk of Bun.file(path).stream()) hasher.update(chunk);
  const sha256 = hasher.digest("hex");
  try {
    writeFileSync(sidecarPath, JSON.stringify({ sizeBytes: stat.size, mtimeMs: stat.mtimeMs, sha256 } satisfies HashSidecar));
  } catch {
    // read-only model folder: hash again next time
  }
  return sha256;
}

/** sha256 hex of a string (remote fingerprints hash "remote:<url>#<model>"). */
export function hashText(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}
