/**
 * The stats-only scan of agents that keep one session per file in one folder tree (pi, Factory Droid): a root is the
 * agent's data folder (then only its sessions folder is walked), any folder holding session files at some depth (a
 * copy), or one session file. One container = one file, fingerprinted by its own stats (file-stats.ts) and those of
 * the side file the agent keeps next to it, if any (Factory Droid's `<id>.settings.json`), so `scan([container.path])`
 * gives the same container (the quick freshness check, `Parser.scansContainerPaths`).
 */
import { statSync, type Stats } from "node:fs";
import { basename } from "node:path";
import { statFingerprint } from "../file-stats.ts";
import type { Parser, ScanResult, SourceId } from "../types.ts";
import { rescanPlaced, TreeWalk, visitRoots } from "./tree-walk.ts";

/** What one agent's session tree looks like. */
export interface SessionTree {
  source: SourceId;
  /** The folder of the agent's data folder that holds the sessions (`sessions`): when a root has it, only it is walked. */
  sessionsFolder: string;
  /** Whether a file name is a session file (e.g. ends with `.jsonl`). */
  isSessionFile(name: string): boolean;
  /** Deepest folder level walked below a root (0: the root's own files only). */
  maxDepth: number;
  /**
   * The path of the side file whose stats join a session file's fingerprint (`|side:<stats or ->`), watched so the next
   * check sees it appear; absent (or undefined for a file) when the agent keeps none.
   */
  sideFileOf?(sessionPath: string): string | undefined;
}

/** Folders never holding sessions (vendored trees, version control). */
const skippedDirs: ReadonlySet<string> = new Set(["node_modules", ".git"]);

/**
 * The `scan` and `rescanFolders` of an agent whose sessions are such a tree: spread into its `Parser`.
 * `rescanFolders` (issue 42) walks a changed folder again at its depth below its one root, as the whole walk did.
 */
export function sessionTreeScans(tree: SessionTree): Pick<Parser, "scan" | "rescanFolders"> {
  return {
    scan: (roots) => scanSessionTree(tree, roots),
    rescanFolders(roots, folders) {
      const walk = new TreeWalk();
      return rescanPlaced(walk, roots, folders, (folder, place) =>
        walkDir(tree, folder.path, place.names.length, walk),
      );
    },
  };
}

/**
 * Every session file below `roots`, with its stats as fingerprint.
 * @returns containers unique by file identity, sorted by path; missing roots; unreadable paths; watched folders
 *   (never throws)
 */
function scanSessionTree(tree: SessionTree, roots: readonly string[]): ScanResult {
  const walk = new TreeWalk();
  const missingRoots = visitRoots(roots, walk, (root, stats) => {
    if (stats.isDirectory()) walkDir(tree, root, 0, walk, stats);
    else if (stats.isFile() && tree.isSessionFile(basename(root))) addFile(tree, root, walk, stats);
  });
  return walk.result(missingRoots);
}

function walkDir(tree: SessionTree, dir: string, depth: number, walk: TreeWalk, known?: Stats): void {
  const entries = walk.enterDir(dir, known);
  if (!entries) return;
  const sessions = entries.find(
    (entry) => entry.name === tree.sessionsFolder && (entry.isDirectory() || entry.isSymbolicLink()),
  );
  if (depth === 0 && sessions) {
    walkDir(tree, `${dir}/${sessions.name}`, 1, walk);
    return;
  }
  for (const entry of entries) {
    if ((entry.isFile() || entry.isSymbolicLink()) && tree.isSessionFile(entry.name)) {
      addFile(tree, `${dir}/${entry.name}`, walk);
    }
  }
  if (depth >= tree.maxDepth) return;
  for (const entry of entries) {
    if (entry.isFile() || skippedDirs.has(entry.name)) continue;
    if (entry.isDirectory() || entry.isSymbolicLink()) walkDir(tree, `${dir}/${entry.name}`, depth + 1, walk);
  }
}

function addFile(tree: SessionTree, path: string, walk: TreeWalk, known?: Stats): void {
  const stats = walk.newFile(path, known);
  if (!stats) return;
  let fingerprint = statFingerprint(stats);
  const side = tree.sideFileOf?.(path);
  if (side !== undefined) {
    let sideStats: Stats | undefined;
    try {
      sideStats = statSync(side);
    } catch {
      sideStats = undefined; // missing or unreadable: the session file alone is read
    }
    walk.watchPath(side, sideStats);
    fingerprint += `|side:${sideStats ? statFingerprint(sideStats) : "-"}`;
  }
  walk.addContainer(tree.source, path, stats, fingerprint);
}
