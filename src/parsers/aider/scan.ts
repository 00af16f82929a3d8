/**
 * Finding Aider chat histories by file stats alone (docs/formats.md §6). Aider appends every chat to
 * `.aider.chat.history.md` in the git root of the project it runs in (aider/args.py `--chat-history-file`
 * default), so a root is any folder (an `--aider-dir` folder, or a project folder another source knows)
 * holding that file at its top or a few folders below it, or the history file itself (any name).
 * Cost for a folder without the file: one readdir of the root, then one readdir per sub-folder down to
 * {@link maxDepth} (hidden, dependency and build folders skipped by name); no stat per ordinary file.
 * One container = one history file; its fingerprint is the file's stats plus those of the
 * `.aider.input.history` beside it (prompt times, input-history.ts): `<stats>|input:<stats or ->`.
 */
import type { Stats } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { statFingerprint } from "../file-stats.ts";
import { TreeWalk, visitRoots } from "../shared/tree-walk.ts";
import type { ScanResult } from "../types.ts";
import { inputHistoryFileName } from "./input-history.ts";

/** The history file name aider writes by default (aider/args.py `--chat-history-file`). */
export const historyFileName = ".aider.chat.history.md";

/** Deepest folder level walked below a root (the root is level 0): monorepos keep projects a few levels down. */
export const maxDepth = 6;

/**
 * Folder names never walked: version control, dependency, virtual-env, build and cache trees, which
 * never hold a project's own history file and can be huge. Other hidden folders are skipped too
 * (see {@link isWalkedDirName}).
 */
export const skippedDirs: ReadonlySet<string> = new Set([
  "node_modules",
  "bower_components",
  "vendor",
  "venv",
  "env",
  "__pycache__",
  "site-packages",
  "dist",
  "build",
  "target",
  "out",
  "coverage",
  "Pods",
  "DerivedData",
]);

/** True for a folder name the walk enters: not in {@link skippedDirs}, not hidden (`.git`, `.venv`, `.cache`). */
export function isWalkedDirName(name: string): boolean {
  return !name.startsWith(".") && !skippedDirs.has(name);
}

/**
 * Every `.aider.chat.history.md` below `roots` (and every root that is a file), with a stats-only
 * fingerprint (`statFingerprint`: size, mtime, ctime, inode; plus the input history's, see above).
 * Relative roots are resolved against the working directory first.
 * @returns containers unique by file identity, sorted by absolute path; roots that do not exist (absolute);
 *   paths that exist but cannot be read. Never throws.
 */
export function scanAiderRoots(roots: readonly string[]): ScanResult {
  const walk = new TreeWalk();
  // Absolute paths: a session's project path and id derive from its file's path.
  const missingRoots = visitRoots(
    roots.map((root) => resolve(root)),
    walk,
    (root, stats) => {
      if (stats.isDirectory()) walkDir(root, 0, walk, stats);
      else if (stats.isFile()) addFile(root, walk, stats);
    },
  );
  return walk.result(missingRoots);
}

function walkDir(dir: string, depth: number, walk: TreeWalk, known?: Stats): void {
  const entries = walk.enterDir(dir, known);
  if (!entries) return;
  for (const entry of entries) {
    if (entry.name === historyFileName && (entry.isFile() || entry.isSymbolicLink()))
      addFile(join(dir, entry.name), walk);
  }
  if (depth >= maxDepth) return;
  for (const entry of entries) {
    if (!(entry.isDirectory() || entry.isSymbolicLink()) || !isWalkedDirName(entry.name)) continue;
    const path = join(dir, entry.name);
    const stats = entry.isSymbolicLink() ? walk.statOrNote(path) : undefined;
    if (entry.isSymbolicLink() && !stats?.isDirectory()) continue;
    walkDir(path, depth + 1, walk, stats);
  }
}

function addFile(path: string, walk: TreeWalk, known?: Stats): void {
  const stats = walk.newFile(path, known);
  if (!stats) return;
  const input = walk.statOrNote(join(dirname(path), inputHistoryFileName));
  const inputStamp = input?.isFile() ? statFingerprint(input) : "-";
  walk.found.push({
    source: "aider",
    path,
    fingerprint: `${statFingerprint(stats)}|input:${inputStamp}`,
    sizeBytes: stats.size,
  });
}
