/**
 * Release files next to the binaries: `recall-<os>-<arch>.tar.gz` (one file, `recall`, at the top level),
 * its `.sha256` (sha256sum format: "<hex>  <file name>"), and the Homebrew formula filled with the real
 * checksums (template: packaging/homebrew/recall.rb).
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { run } from "./runtime.ts";
import type { BuildTarget } from "./targets.ts";

/** Archive file name of a target, e.g. "recall-linux-x64.tar.gz" (install.sh and the formula use the same). */
export function archiveName(target: BuildTarget): string {
  return `recall-${target.id}.tar.gz`;
}

/** Returns the sha256 (hex) of a file. */
export function hashFile(path: string): string {
  return new Bun.CryptoHasher("sha256").update(readFileSync(path)).digest("hex");
}

/**
 * Packs `binaryDir/recall` into `distDir/<archiveName>` (owner 0, mode kept, entries sorted) and writes
 * `<archive>.sha256`. Needs GNU tar (the Linux build machine; --owner/--group are GNU options).
 * @returns the archive path and its sha256
 */
export function writeArchive(binaryDir: string, distDir: string, target: BuildTarget): { path: string; sha256: string } {
  const path = join(distDir, archiveName(target));
  run(["tar", "-czf", path, "--owner=0", "--group=0", "--numeric-owner", "-C", binaryDir, "recall"]);
  const sha256 = hashFile(path);
  writeFileSync(`${path}.sha256`, `${sha256}  ${basename(path)}\n`);
  return { path, sha256 };
}

/**
 * Fills the formula template: `@@VERSION@@`, `@@BASE_URL@@`, and `@@SHA256_<OS>_<ARCH>@@` for each built target
 * (targets not built in this run keep their placeholder, and the returned list names them).
 * @returns the formula text and the target ids still missing a checksum
 */
export function fillFormula(template: string, version: string, baseUrl: string, checksums: Record<string, string>): { text: string; missing: string[] } {
  let text = template.replaceAll("@@VERSION@@", version).replaceAll("@@BASE_URL@@", baseUrl);
  const missing: string[] = [];
  for (const id of ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64"]) {
    const key = `@@SHA256_${id.toUpperCase().replace("-", "_")}@@`;
    if (checksums[id]) text = text.replaceAll(key, checksums[id]!);
    else missing.push(id);
  }
  return { text, missing };
}

/** Writes `distDir/recall.rb` from the template with the checksums of `distDir/*.sha256` files present. */
export function writeFormula(repo: string, distDir: string, version: string, baseUrl: string): { path: string; missing: string[] } {
  const checksums: Record<string, string> = {};
  for (const id of ["darwin-arm64", "darwin-x64", "linux-arm64", "linux-x64"]) {
    const file = join(distDir, `recall-${id}.tar.gz.sha256`);
    if (existsSync(file)) checksums[id] = readFileSync(file, "utf8").split(/\s+/)[0]!;
  }
  const template = readFileSync(join(repo, "packaging", "homebrew", "recall.rb"), "utf8");
  const { text, missing } = fillFormula(template, version, baseUrl, checksums);
  const path = join(distDir, "recall.rb");
  writeFileSync(path, text);
  return { path, missing };
}
