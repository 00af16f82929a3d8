/**
 * Cursor scan: roots → one container per `state.vscdb` (docs/formats.md §5), stats only. A root is a
 * Cursor `User` folder (holding `workspaceStorage/<hash>/state.vscdb` and `globalStorage/state.vscdb`),
 * the `Cursor` folder above it, any folder holding `state.vscdb` files a few levels down (the corpus
 * keeps one at its top), or a `state.vscdb` file. Fingerprint = stats of the db, its `-wal` and the
 * `workspace.json` beside it (the project path), so any write Cursor makes moves it.
 */
import type { Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import { statFingerprint } from "../file-stats.ts";
import { TreeWalk, visitRoots } from "../shared/tree-walk.ts";
import type { ScanResult } from "../types.ts";

/** The database file name Cursor (as VS Code) uses for workspace and global state. */
export const stateDatabaseName = "state.vscdb";

/** Deepest folder level searched below a root: `Cursor/User/workspaceStorage/<hash>/state.vscdb` is 4. */
const maxDepth = 5;

/** Folders of a Cursor profile that never hold chat databases and can be large. */
const skippedFolders = new Set([
  "node_modules",
  ".git",
  "History",
  "logs",
  "CachedData",
  "CachedExtensionVSIXs",
  "extensions",
  "Cache",
  "Code Cache",
  "GPUCache",
]);

/** Stats fingerprint of one database container: `db<stats>|wal<stats>|ws<stats of workspace.json>` ("-" when absent). */
export function fingerprintStateDatabase(path: string, walk = new TreeWalk()): string {
  const stamp = (file: string) => {
    const stats = walk.statOrNote(file);
    return stats ? statFingerprint(stats) : "-";
  };
  return `db${stamp(path)}|wal${stamp(`${path}-wal`)}|ws${stamp(join(dirname(path), "workspace.json"))}`;
}

function addDatabase(walk: TreeWalk, path: string, stats?: Stats): void {
  const known = walk.newFile(path, stats);
  if (!known) return;
  walk.found.push({ source: "cursor", path, fingerprint: fingerprintStateDatabase(path, walk), sizeBytes: known.size });
}

function walkFolder(walk: TreeWalk, dir: string, depth: number, known?: Stats): void {
  const entries = walk.enterDir(dir, known);
  if (!entries) return;
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.name === stateDatabaseName && (entry.isFile() || entry.isSymbolicLink())) addDatabase(walk, path);
    else if (depth < maxDepth && !skippedFolders.has(entry.name) && (entry.isDirectory() || entry.isSymbolicLink()))
      walkFolder(walk, path, depth + 1);
  }
}

/**
 * Find every `state.vscdb` below the roots. Stats only; never throws.
 * @returns containers sorted by path; missing roots; folders/files that exist but cannot be read
 */
export function scanCursorRoots(roots: string[]): ScanResult {
  const walk = new TreeWalk();
  const missingRoots = visitRoots(roots, walk, (root, stats) => {
    if (stats.isFile()) {
      if (basename(root) === stateDatabaseName || root.endsWith(".vscdb")) addDatabase(walk, root, stats);
    } else walkFolder(walk, root, 1, stats);
  });
  return walk.result(missingRoots);
}
