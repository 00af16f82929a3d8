/**
 * Files embedded in the compiled `recall` binary (scripts/build.ts) and their extraction on first use.
 *
 * A `bun build --compile` binary cannot resolve packages from disk, and node-llama-cpp looks for its native
 * libraries next to its own files (runtime-notes §2), so the build embeds whole folders with `--asset` and this
 * module writes them out into `<cache>/runtime/<group>-<hash12>/` (`$XDG_CACHE_HOME/recall`, or RECALL_HOME;
 * re-creatable, so never in the data folder) the first time a command needs them:
 *   - "node-llama-cpp": the pre-bundled package (dist/index.js, llama/*.json, bins/<platform>/*) — only for
 *     commands that embed;
 *   - "examples": the example history (used when a machine has no agent history);
 *   - "skill": the Claude Code skill (`recall skill install`).
 * The build writes `recall-embedded.json` (an EmbeddedManifest) next to the groups; every file carries its
 * sha256, and a group's folder name carries the hash of its file list, so a new binary never reuses an old
 * extraction. Extraction is atomic: a temp folder is filled, each file checked against its hash, a `.complete`
 * marker written, then the folder is renamed into place; a process that loses the rename race uses the
 * winner's folder. Later runs only stat the marker (no hashing).
 * Embedded files are readable at `/$bunfs/root/<name>` inside the binary (measured with Bun 1.4.5).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { homeFiles, resolveRecallPaths } from "../home/paths.ts";

/** The embedded groups, each extracted into its own folder on demand. */
export type EmbeddedGroup = "node-llama-cpp" | "examples" | "skill";

/** One embedded file: path relative to its group folder, size and sha256 (hex). */
export interface EmbeddedFileEntry {
  path: string;
  sizeBytes: number;
  sha256: string;
}

/** The manifest the build embeds as `recall-embedded.json`. */
export interface EmbeddedManifest {
  /** manifest format version (1) */
  format: 1;
  /** recall's package.json version */
  recallVersion: string;
  /** build target, e.g. "linux-x64", "darwin-arm64" */
  target: string;
  /** per group: sha256 over the sorted "path sha256" lines, and the files */
  groups: Record<EmbeddedGroup, { hash: string; files: EmbeddedFileEntry[] }>;
}

/** Where embedded assets live inside a compiled binary's virtual file system. */
export const embeddedRoot = "/$bunfs/root";

/** File name of the manifest among the embedded assets. */
export const manifestFileName = "recall-embedded.json";

/**
 * Name of the marker file written last into a complete extraction. It is the extractor's own bookkeeping: a copy
 * of an extracted group (the installed skill) leaves it out.
 */
export const completeMarker = ".complete";

/** True only inside a `bun build --compile` executable (its modules live under /$bunfs/). */
export function isCompiledBinary(): boolean {
  return import.meta.path.startsWith("/$bunfs/");
}

let manifestCache: EmbeddedManifest | undefined;

/**
 * Reads the embedded manifest (once per process).
 * @throws Error when not running in a compiled binary or the binary was built without assets
 */
export function readEmbeddedManifest(): EmbeddedManifest {
  if (manifestCache) return manifestCache;
  const path = join(embeddedRoot, manifestFileName);
  if (!isCompiledBinary() || !existsSync(path))
    throw new Error(`no embedded ${manifestFileName}: this is not a recall binary built by scripts/build.ts`);
  manifestCache = JSON.parse(readFileSync(path, "utf8")) as EmbeddedManifest;
  return manifestCache;
}

/** Returns the sha256 (hex) of `bytes`. */
export function hashBytes(bytes: Uint8Array | string): string {
  return new Bun.CryptoHasher("sha256").update(bytes).digest("hex");
}

/** Returns the group hash for a file list: sha256 over sorted `path sha256\n` lines (also used by the build). */
export function hashFileList(files: readonly EmbeddedFileEntry[]): string {
  const lines = files.map((file) => `${file.path} ${file.sha256}\n`).sort();
  return hashBytes(lines.join(""));
}

/**
 * Returns the folder an extraction of `group` lives in: `<cacheHome>/runtime/<group>-<hash12>`.
 * @param cacheHome the cache folder (src/home/paths.ts `RecallPaths.cache`)
 * @param hash the group hash from the manifest (64 hex chars)
 */
export function extractionDir(cacheHome: string, group: EmbeddedGroup, hash: string): string {
  return join(cacheHome, homeFiles.runtime, `${group}-${hash.slice(0, 12)}`);
}

/** Writes the group's files into `tmp`, checking each against the manifest. @throws Error on a hash mismatch */
function writeGroup(group: EmbeddedGroup, files: readonly EmbeddedFileEntry[], tmp: string): void {
  for (const file of files) {
    const bytes = readFileSync(join(embeddedRoot, group, file.path));
    if (bytes.length !== file.sizeBytes || hashBytes(bytes) !== file.sha256) {
      throw new Error(
        `embedded file ${group}/${file.path} does not match its checksum; the recall binary is damaged, download it again`,
      );
    }
    const dest = join(tmp, file.path);
    mkdirSync(dirname(dest), { recursive: true, mode: 0o700 });
    writeFileSync(dest, bytes, { mode: file.path.endsWith(".sh") ? 0o755 : 0o644 });
  }
}

/** True when `dir` holds a complete extraction whose files still have their recorded sizes. */
function isComplete(dir: string, hash: string, files: readonly EmbeddedFileEntry[]): boolean {
  const marker = join(dir, completeMarker);
  if (!existsSync(marker) || readFileSync(marker, "utf8").trim() !== hash) return false;
  return files.every((file) => {
    try {
      return statSync(join(dir, file.path)).size === file.sizeBytes;
    } catch {
      return false;
    }
  });
}

/**
 * Extracts one embedded group (once; later calls and later runs reuse the folder) and returns its folder.
 * Uses `cacheHome` (default: the cache folder, `resolveRecallPaths().cache`) and falls back to
 * `os.tmpdir()/recall-<uid>` when that cannot be written. Costs: "node-llama-cpp" is ~32 MB (~0.2 s the first time, runtime-notes §2); the others
 * are a few hundred KB.
 * @throws Error outside a compiled binary, or when an embedded file fails its checksum
 */
export function extractEmbeddedGroup(group: EmbeddedGroup, cacheHome: string = resolveRecallPaths().cache): string {
  const { hash, files } = readEmbeddedManifest().groups[group];
  try {
    return extractInto(cacheHome, group, hash, files);
  } catch (error) {
    if (error instanceof Error && error.message.includes("checksum")) throw error;
    return extractInto(join(tmpdir(), `recall-${process.getuid?.() ?? "user"}`), group, hash, files);
  }
}

function extractInto(home: string, group: EmbeddedGroup, hash: string, files: readonly EmbeddedFileEntry[]): string {
  const dir = extractionDir(home, group, hash);
  if (isComplete(dir, hash, files)) return dir;
  mkdirSync(dirname(dir), { recursive: true, mode: 0o700 });
  const tmp = `${dir}.tmp-${process.pid}-${Date.now()}`;
  try {
    writeGroup(group, files, tmp);
    writeFileSync(join(tmp, completeMarker), `${hash}\n`);
    if (isComplete(dir, hash, files)) {
      rmSync(tmp, { recursive: true, force: true }); // another process finished first
      return dir;
    }
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true }); // an incomplete or damaged leftover
    renameSync(tmp, dir);
  } catch (error) {
    rmSync(tmp, { recursive: true, force: true });
    // Another process may have won the rename race with an identical extraction.
    if (isComplete(dir, hash, files)) return dir;
    throw error;
  }
  return dir;
}
