/**
 * Writes `recall-embedded.json`: every embedded file with its size and sha256, and a hash per group, which the
 * binary uses to name, verify and reuse its extraction folders (src/binary/embedded-files.ts).
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import {
  hashBytes,
  hashFileList,
  manifestFileName,
  type EmbeddedFileEntry,
  type EmbeddedGroup,
  type EmbeddedManifest,
} from "../../src/binary/embedded-files.ts";

/** Every file below `dir`, as paths relative to it with `/` separators, sorted. */
export function listFilesRecursive(dir: string, base = dir): string[] {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory()
        ? listFilesRecursive(path, base)
        : [relative(base, path).split("\\").join("/")];
    });
}

/** Hashes every file of one group folder. */
export function describeGroup(groupDir: string): { hash: string; files: EmbeddedFileEntry[] } {
  const files = listFilesRecursive(groupDir).map((path) => {
    const bytes = readFileSync(join(groupDir, path));
    return { path, sizeBytes: bytes.length, sha256: hashBytes(bytes) };
  });
  return { hash: hashFileList(files), files };
}

/**
 * Writes `<embedDir>/recall-embedded.json` for the groups found in `embedDir` and returns it.
 * @param embedDir holds one folder per group: node-llama-cpp/, examples/, skill/
 */
export function writeManifest(embedDir: string, recallVersion: string, target: string): EmbeddedManifest {
  const groupNames: EmbeddedGroup[] = ["node-llama-cpp", "examples", "skill"];
  const groups = Object.fromEntries(
    groupNames.map((group) => [group, describeGroup(join(embedDir, group))]),
  ) as EmbeddedManifest["groups"];
  const manifest: EmbeddedManifest = { format: 1, recallVersion, target, groups };
  writeFileSync(join(embedDir, manifestFileName), `${JSON.stringify(manifest, null, 1)}\n`);
  return manifest;
}
