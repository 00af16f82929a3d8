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
import { rescanPlaced, TreeWalk, visitRoots } from "../shared/tree-walk.ts";
import type { ScanResult, WatchedPath } from "../types.ts";

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

/**
 * List one database with the stats-only fingerprint `db<stats>|wal<stats>|ws<stats of workspace.json>` ("-" when
 * absent) and, as its modification time, the later of the db's and its `-wal`'s (writes land in the `-wal` first): the
 * freshness check re-stats the databases written in the last day. Each file is stat'ed once.
 */
function addDatabase(walk: TreeWalk, path: string, stats?: Stats): void {
  const known = walk.newFile(path, stats);
  if (!known) return;
  const wal = walk.statOrNote(`${path}-wal`);
  const workspace = walk.statOrNote(join(dirname(path), "workspace.json"));
  const stamp = (of: Stats | undefined) => (of ? statFingerprint(of) : "-");
  walk.found.push({
    source: "cursor",
    path,
    fingerprint: `db${stamp(known)}|wal${stamp(wal)}|ws${stamp(workspace)}`,
    sizeBytes: known.size,
    mtimeMs: Math.max(known.mtimeMs, wal?.mtimeMs ?? 0),
  });
}

/**
 * A folder whose subfolders hold no chat database: `globalStorage` and a `workspaceStorage/<hash>` folder keep theirs
 * at their top, beside every extension's own storage folder (300 workspaces walked whole: 1,504 folders, 18 ms).
 */
const holdsDatabaseAtTop = (dir: string): boolean =>
  basename(dir) === "globalStorage" || basename(dirname(dir)) === "workspaceStorage";

function walkFolder(walk: TreeWalk, dir: string, depth: number, known?: Stats): void {
  const entries = walk.enterDir(dir, known);
  if (!entries) return;
  const leaf = holdsDatabaseAtTop(dir);
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.name === stateDatabaseName && (entry.isFile() || entry.isSymbolicLink())) addDatabase(walk, path);
    else if (
      !leaf &&
      depth < maxDepth &&
      !skippedFolders.has(entry.name) &&
      (entry.isDirectory() || entry.isSymbolicLink())
    )
      walkFolder(walk, path, depth + 1);
  }
}

/**
 * Find every `state.vscdb` below the roots. Stats only; never throws. A root may be one database: the freshness check
 * (index/plan/freshness.ts) re-stats the last day's databases by path.
 * @returns containers sorted by path; missing roots; folders/files that exist but cannot be read; the folders read
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

/**
 * Parser.rescanFolders (issue 42): walk the changed folders again, each at its depth below its one root, as the whole
 * walk did: a workspace's folder changing (a new database, Cursor's own files coming and going) costs that folder.
 * @returns undefined when a folder is a root or lies below two roots (walk whole)
 */
export function rescanCursorFolders(roots: readonly string[], folders: readonly WatchedPath[]): ScanResult | undefined {
  const walk = new TreeWalk();
  return rescanPlaced(walk, roots, folders, (folder, place) => walkFolder(walk, folder.path, place.names.length + 1));
}
