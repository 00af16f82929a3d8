/**
 * Finding Grok CLI databases by file stats alone (docs/formats/grok-cli.md). The CLI writes every session to one
 * SQLite database `grok.db` in WAL mode (superagent-ai/grok-cli `src/storage/db.ts`, commit fb97af83). A root is a
 * folder holding `grok.db` (its `~/.grok`, or a copy at some depth) or the database file itself. One container = one
 * database; its fingerprint is the stats of the database and of its `-wal`.
 */
import { statSync, type Stats } from "node:fs";
import { basename, join } from "node:path";
import { statFingerprint } from "../file-stats.ts";
import { TreeWalk, visitRoots } from "../shared/tree-walk.ts";
import type { ScanResult } from "../types.ts";

/** The database's file name. */
export const databaseFileName = "grok.db";

/** Folders of a Grok home, or of a copy, that never hold the database: caches, generated media, vendored trees. */
const skippedDirs: ReadonlySet<string> = new Set([
  "node_modules",
  ".git",
  "cache",
  "generated-media",
  "delegations",
  "computer",
]);

/** Deepest folder level walked below a root. */
export const maxDepth = 4;

/**
 * Every `grok.db` below `roots`, fingerprinted `<db stats>|wal:<-wal stats or ->`.
 * @returns containers unique by file identity, sorted by path; missing roots; unreadable paths (never throws)
 */
export function scanGrokRoots(roots: readonly string[]): ScanResult {
  const walk = new TreeWalk();
  const missingRoots = visitRoots(roots, walk, (root, stats) => {
    if (stats.isDirectory()) walkDir(root, 0, walk, stats);
    else if (stats.isFile() && basename(root) === databaseFileName) addDatabase(root, walk, stats);
  });
  return walk.result(missingRoots);
}

function walkDir(dir: string, depth: number, walk: TreeWalk, known?: Stats): void {
  const entries = walk.enterDir(dir, known);
  if (!entries) return;
  if (entries.some((entry) => entry.name === databaseFileName)) {
    addDatabase(join(dir, databaseFileName), walk);
    return;
  }
  if (depth >= maxDepth) return;
  for (const entry of entries) {
    if (entry.isFile() || skippedDirs.has(entry.name)) continue;
    if (entry.isDirectory() || entry.isSymbolicLink()) walkDir(join(dir, entry.name), depth + 1, walk);
  }
}

function addDatabase(path: string, walk: TreeWalk, known?: Stats): void {
  const stats = walk.newFile(path, known);
  if (!stats) return;
  let wal: Stats | undefined;
  try {
    wal = statSync(`${path}-wal`);
  } catch {
    wal = undefined;
  }
  walk.addContainer("grok-cli", path, stats, `${statFingerprint(stats)}|wal:${wal ? statFingerprint(wal) : "-"}`);
}
