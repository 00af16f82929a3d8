/**
 * Finding Zed's `threads.db` by file stats alone, and listing the threads inside (docs/formats/zed.md). A root is the
 * `threads` folder, Zed's data folder above it, any folder holding `threads.db` a few levels down, or the file itself.
 * One container = one database (fingerprint: the stats of the db and its `-wal`); one unit per thread row, its change
 * key the row's `updated_at` and stored size.
 */
import type { Stats } from "node:fs";
import { basename, join } from "node:path";
import { statFingerprint } from "../file-stats.ts";
import { describeSqliteError } from "../shared/readonly-sqlite.ts";
import { TreeWalk, visitRoots } from "../shared/tree-walk.ts";
import type { ParserHooks, ScanResult, SourceContainer, SourceUnit } from "../types.ts";
import { listThreads, openThreadsDatabase } from "./database.ts";

/** The database file of Zed's agent threads. */
export const threadsDatabaseName = "threads.db";

/** Deepest folder level walked below a root: `zed/threads/threads.db` is 1. */
const maxDepth = 3;

/** Folders of Zed's data folder that never hold threads and can be large. */
const skippedDirs: ReadonlySet<string> = new Set([
  "extensions",
  "languages",
  "node",
  "copilot",
  "prettier",
  "logs",
  "node_modules",
  ".git",
]);

function addDatabase(walk: TreeWalk, path: string, known?: Stats): void {
  const stats = walk.newFile(path, known);
  if (!stats) return;
  const wal = walk.statOrNote(`${path}-wal`);
  walk.found.push({
    source: "zed",
    path,
    fingerprint: `db${statFingerprint(stats)}|wal${wal ? statFingerprint(wal) : "-"}`,
    sizeBytes: stats.size,
  });
}

function walkDir(walk: TreeWalk, dir: string, depth: number, known?: Stats): void {
  const entries = walk.enterDir(dir, known);
  if (!entries) return;
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.name === threadsDatabaseName && (entry.isFile() || entry.isSymbolicLink())) addDatabase(walk, path);
    else if (depth < maxDepth && !skippedDirs.has(entry.name) && (entry.isDirectory() || entry.isSymbolicLink()))
      walkDir(walk, path, depth + 1);
  }
}

/**
 * Every `threads.db` below `roots`. Stats only; never throws.
 * @returns containers sorted by path; missing roots; paths that exist but cannot be read
 */
export function scanZedRoots(roots: readonly string[]): ScanResult {
  const walk = new TreeWalk();
  const missingRoots = visitRoots(roots, walk, (root, stats) => {
    if (stats.isFile()) {
      if (basename(root) === threadsDatabaseName) addDatabase(walk, root, stats);
    } else walkDir(walk, root, 0, stats);
  });
  return walk.result(missingRoots);
}

/**
 * One unit per thread row: key `<db path>#<thread id>`, session id = the thread id, change key `<updated_at>|<stored
 * bytes>`, `locator.threadId`. A database that cannot be read now is reported through `onUnavailable`.
 */
export function listZedUnits(containers: readonly SourceContainer[], hooks: ParserHooks = {}): SourceUnit[] {
  const units: SourceUnit[] = [];
  for (const container of containers) {
    let rows: ReturnType<typeof listThreads>;
    try {
      rows = listThreads(openThreadsDatabase(container.path));
    } catch (error) {
      hooks.onUnavailable?.(container.path, describeSqliteError(error));
      continue;
    }
    for (const row of rows)
      units.push({
        source: "zed",
        key: `${container.path}#${row.id}`,
        sessionId: row.id,
        containerPath: container.path,
        changeKey: `${row.updatedAt}|${row.size}`,
        locator: { threadId: row.id },
      });
  }
  return units;
}
