/**
 * Crush scan: roots → one container per `crush.db` (docs/formats/crush.md), fingerprinted by the stats of the
 * database and its `-wal`. A root is Crush's global data folder, whose `projects.json {projects:[{path, data_dir,
 * last_accessed}]}` names each project's data folder (`internal/projects/projects.go` at 37f36e93; Crush's own
 * `crush stats` reads the projects' databases the same way), any folder holding `crush.db` files a few levels down (a
 * project folder's `.crush/`, a copy), or one `crush.db`. Reading `projects.json` is the one content read: it is a
 * small list, and it is watched, so a new project makes the next check walk again.
 */
import { readFileSync, type Stats } from "node:fs";
import { join } from "node:path";
import { statFingerprint } from "../file-stats.ts";
import { asObject } from "../shared/fields.ts";
import { TreeWalk, visitRoots } from "../shared/tree-walk.ts";
import type { ScanResult } from "../types.ts";

/** The database file name Crush writes in a data folder (`internal/db/connect.go`). */
export const crushDatabaseName = "crush.db";

/** The project list in Crush's global data folder. */
export const projectsFileName = "projects.json";

/** Deepest folder level searched below a root: `<copy>/<project>/.crush/crush.db` is 2. */
const maxDepth = 3;

/** Folders that never hold Crush's databases and can be large. */
const skippedFolders = new Set(["node_modules", ".git"]);

/** `db<stats>|wal<stats or ->`: the database and its WAL. */
function fingerprintOf(walk: TreeWalk, path: string, stats: Stats): string {
  const wal = walk.statOrNote(`${path}-wal`);
  return `db${statFingerprint(stats)}|wal${wal ? statFingerprint(wal) : "-"}`;
}

function addDatabase(walk: TreeWalk, path: string, known?: Stats): void {
  const stats = walk.newFile(path, known);
  if (stats) walk.addContainer("crush", path, stats, fingerprintOf(walk, path, stats));
}

/** The data folders `projects.json` names; [] when it is unreadable or not Crush's list. */
function projectDataFolders(path: string): string[] {
  try {
    const list = asObject(JSON.parse(readFileSync(path, "utf8")))?.projects;
    if (!Array.isArray(list)) return [];
    return list
      .map((project) => asObject(project)?.data_dir)
      .filter((dir): dir is string => typeof dir === "string" && dir.length > 0);
  } catch {
    return [];
  }
}

function walkFolder(walk: TreeWalk, dir: string, depth: number, known?: Stats): void {
  const entries = walk.enterDir(dir, known);
  if (!entries) return;
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.name === crushDatabaseName && (entry.isFile() || entry.isSymbolicLink())) addDatabase(walk, path);
    else if (entry.name === projectsFileName && depth === 0) {
      walk.watchPath(path, walk.statOrNote(path));
      for (const dataDir of projectDataFolders(path)) {
        const database = join(dataDir, crushDatabaseName);
        const stats = walk.statOrNote(database);
        walk.watchPath(database, stats);
        if (stats) addDatabase(walk, database, stats);
      }
    } else if (depth < maxDepth && !skippedFolders.has(entry.name) && (entry.isDirectory() || entry.isSymbolicLink()))
      walkFolder(walk, path, depth + 1);
  }
}

/**
 * Every Crush database below or named by `roots`, stats only but for `projects.json`.
 * @returns containers sorted by path, missing roots, unreadable paths, watched paths (never throws)
 */
export function scanCrushRoots(roots: readonly string[]): ScanResult {
  const walk = new TreeWalk();
  const missingRoots = visitRoots(roots, walk, (root, stats) => {
    if (stats.isDirectory()) walkFolder(walk, root, 0, stats);
    else if (stats.isFile()) addDatabase(walk, root, stats);
  });
  return walk.result(missingRoots);
}
