/**
 * Release files next to the binaries: `recall-<os>-<arch>.tar.gz` (one file, `recall`, at the top level), its
 * `.sha256` (sha256sum format: "<hex>  <file name>"), and the Homebrew tap `homebrew-recall/Formula/recall.rb`
 * filled with every platform's checksum (template: packaging/homebrew/Formula/recall.rb).
 *
 * Archives are reproducible: the same binary gives the same bytes on any machine and day. They are written with the
 * `tar` package (isaacs/node-tar, npm's own), not GNU tar, so a Mac builds them too: one entry (`recall`, 0755), `portable`
 * (no uid/gid/user names, ctime/atime, dev/ino; owner 0), one fixed mtime ({@link releaseTime}), and a gzip header
 * without a timestamp (Node's zlib writes MTIME 0) whose OS byte portable mode sets to 255 "unknown".
 */
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { create as createTar } from "tar";
import type { BuildTarget } from "./targets.ts";

/** Every platform the formula covers, in the order of its `@@SHA256_<OS>_<ARCH>@@` placeholders. */
export const formulaTargets = ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64"] as const;

/** Where releases are downloaded from by default: GitHub's release of tag `v<version>`. */
export const defaultReleaseUrl = (version: string): string =>
  `https://github.com/recall-cli/recall/releases/download/v${version}`;

/**
 * The release base URL the formula points at: `RECALL_RELEASE_URL` when set (install.sh reads the same variable),
 * else {@link defaultReleaseUrl}. A trailing `/` is dropped.
 */
export function releaseUrl(env: Record<string, string | undefined>, version: string): string {
  return (env.RECALL_RELEASE_URL?.trim() || defaultReleaseUrl(version)).replace(/\/+$/, "");
}

/** Archive file name of a target, e.g. "recall-linux-x64.tar.gz" (install.sh and the formula use the same). */
export function archiveName(target: BuildTarget | string): string {
  return `recall-${typeof target === "string" ? target : target.id}.tar.gz`;
}

/** Returns the sha256 (hex) of a file. */
export function hashFile(path: string): string {
  return new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");
}

/** The mtime of archive entries when nothing else says: 2026-01-01T00:00:00Z. */
export const fallbackReleaseTime = new Date(Date.UTC(2026, 0, 1));

/**
 * The one mtime every archive entry gets, so a rebuild of the same commit gives the same archive: `SOURCE_DATE_EPOCH`
 * (seconds; the reproducible-builds.org convention) when set, else the commit time of HEAD in `repo`, else
 * {@link fallbackReleaseTime} (a checkout without git).
 * @throws Error when SOURCE_DATE_EPOCH is set but not a whole number of seconds
 */
export function releaseTime(repo: string, env: Record<string, string | undefined> = process.env): Date {
  const epoch = env.SOURCE_DATE_EPOCH?.trim();
  if (epoch) {
    if (!/^\d+$/.test(epoch)) throw new Error(`SOURCE_DATE_EPOCH must be whole seconds since 1970, got "${epoch}"`);
    return new Date(Number(epoch) * 1000);
  }
  try {
    const seconds = execFileSync("git", ["log", "-1", "--format=%ct"], {
      cwd: repo,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    if (/^\d+$/.test(seconds)) return new Date(Number(seconds) * 1000);
  } catch {
    // not a git checkout, or no git: the fixed date
  }
  return fallbackReleaseTime;
}

/**
 * Packs `binaryDir/recall` into `distDir/<archiveName>` reproducibly (see the file comment) and writes
 * `<archive>.sha256`. The binary is made 0755 first (portable mode keeps the owner's execute bits).
 * @param mtime the entry time, from {@link releaseTime}
 * @returns the archive path and its sha256
 */
export async function writeArchive(
  binaryDir: string,
  distDir: string,
  target: BuildTarget | string,
  mtime: Date,
): Promise<{ path: string; sha256: string }> {
  const path = join(distDir, archiveName(target));
  chmodSync(join(binaryDir, "recall"), 0o755);
  rmSync(path, { force: true });
  await createTar({ file: path, cwd: binaryDir, gzip: { portable: true }, portable: true, mtime, noDirRecurse: true }, [
    "recall",
  ]);
  const sha256 = hashFile(path);
  writeFileSync(`${path}.sha256`, `${sha256}  ${basename(path)}\n`);
  return { path, sha256 };
}

/**
 * Fills the formula template: `@@VERSION@@`, `@@BASE_URL@@`, and `@@SHA256_<OS>_<ARCH>@@` for every target of
 * {@link formulaTargets}.
 * @throws Error naming the targets without a checksum, or any placeholder left over (a generated formula never
 *         carries one)
 */
export function fillFormula(
  template: string,
  version: string,
  baseUrl: string,
  checksums: Record<string, string>,
): string {
  const missing = formulaTargets.filter((id) => !/^[0-9a-f]{64}$/.test(checksums[id] ?? ""));
  if (missing.length > 0) throw new Error(`no archive checksum for ${missing.join(", ")}`);
  let text = template.replaceAll("@@VERSION@@", version).replaceAll("@@BASE_URL@@", baseUrl);
  for (const id of formulaTargets)
    text = text.replaceAll(`@@SHA256_${id.toUpperCase().replace("-", "_")}@@`, checksums[id]!);
  const left = /@@[A-Z0-9_]+@@/.exec(text);
  if (left) throw new Error(`the formula template has a placeholder the build does not fill: ${left[0]}`);
  return text;
}

/** The checksums of the `recall-<target>.tar.gz.sha256` files in `distDir`, by target id (absent ones left out). */
export function readChecksums(distDir: string): Record<string, string> {
  const checksums: Record<string, string> = {};
  for (const id of formulaTargets) {
    const file = join(distDir, `${archiveName(id)}.sha256`);
    if (existsSync(file)) checksums[id] = readFileSync(file, "utf8").split(/\s+/)[0]!;
  }
  return checksums;
}

/**
 * Writes the Homebrew tap `distDir/homebrew-recall/Formula/recall.rb` when `distDir` holds the `.sha256` of every
 * platform's archive (a `--target all` build, or archives from several machines collected in one folder). Publish
 * that folder as the repository `recall-cli/homebrew-recall`; then `brew install recall-cli/recall/recall`.
 * @returns the formula path, or the targets whose archive is missing (then no formula is written, and an older
 *          one in `distDir` is removed)
 */
export function writeFormula(
  repo: string,
  distDir: string,
  version: string,
  baseUrl: string,
): { path: string } | { missing: string[] } {
  const checksums = readChecksums(distDir);
  const missing = formulaTargets.filter((id) => !checksums[id]);
  if (missing.length > 0) {
    rmSync(join(distDir, "homebrew-recall"), { recursive: true, force: true }); // an older one would name older archives
    return { missing };
  }
  const template = readFileSync(join(repo, "packaging", "homebrew", "Formula", "recall.rb"), "utf8");
  const dir = join(distDir, "homebrew-recall", "Formula");
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "recall.rb");
  writeFileSync(path, fillFormula(template, version, baseUrl, checksums));
  return { path };
}
