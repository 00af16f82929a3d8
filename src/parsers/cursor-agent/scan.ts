/**
 * Finding cursor-agent chat stores by file stats alone, and naming the chat each holds (docs/formats/cursor-agent.md).
 * A chat is a folder `<chats>/<md5 of the workspace path>/<chat id>/` holding `store.db` (WAL mode: `-wal` and `-shm`
 * beside it). A root is the `chats` folder, the `.cursor` folder above it (only its `chats/` is walked), any folder
 * holding chat folders a few levels down, or one `store.db`. One container = one store = one unit; its fingerprint holds
 * the stats of the db and of its `-wal`, where cursor-agent's writes land first.
 */
import type { Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import { statFingerprint } from "../file-stats.ts";
import { describeSqliteError } from "../shared/readonly-sqlite.ts";
import { rejectFile } from "../shared/skips.ts";
import { rescanPlaced, TreeWalk, visitRoots } from "../shared/tree-walk.ts";
import type { ParserHooks, ScanResult, SourceContainer, SourceUnit, WatchedPath } from "../types.ts";
import { readChatMeta, withChatStore } from "./store.ts";

/** The store file of a chat folder. */
export const storeFileName = "store.db";

/** Deepest folder level walked below a root: `.cursor/chats/<hash>/<id>/store.db` is 3. */
const maxDepth = 4;

/** Folders of `~/.cursor` that never hold chats and can be large. */
const skippedDirs: ReadonlySet<string> = new Set(["extensions", "node_modules", ".git", "projects", "ai-tracking"]);

/**
 * List one store with the fingerprint `db<stats>|wal<stats or ->` (any write cursor-agent makes moves it) and, as its
 * modification time, the later of the two files' (writes land in the `-wal` first): the freshness check re-stats the
 * stores written in the last day by path.
 */
function addStore(walk: TreeWalk, path: string, known?: Stats): void {
  const stats = walk.newFile(path, known);
  if (!stats) return;
  const wal = walk.statOrNote(`${path}-wal`);
  walk.found.push({
    source: "cursor-agent",
    path,
    fingerprint: `db${statFingerprint(stats)}|wal${wal ? statFingerprint(wal) : "-"}`,
    sizeBytes: stats.size,
    mtimeMs: Math.max(stats.mtimeMs, wal?.mtimeMs ?? 0),
  });
}

function walkDir(walk: TreeWalk, dir: string, depth: number, known?: Stats): void {
  const entries = walk.enterDir(dir, known);
  if (!entries) return;
  const chats = entries.find((entry) => entry.name === "chats" && (entry.isDirectory() || entry.isSymbolicLink()));
  if (chats && basename(dir) === ".cursor") {
    walkDir(walk, join(dir, "chats"), depth + 1); // the .cursor folder: only its chats
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.name === storeFileName && (entry.isFile() || entry.isSymbolicLink())) addStore(walk, path);
    else if (depth < maxDepth && !skippedDirs.has(entry.name) && (entry.isDirectory() || entry.isSymbolicLink()))
      walkDir(walk, path, depth + 1);
  }
}

/**
 * Every `store.db` below `roots`. Stats only; never throws.
 * @returns containers sorted by path; missing roots; paths that exist but cannot be read; the folders read (watched)
 */
export function scanCursorAgentRoots(roots: readonly string[]): ScanResult {
  const walk = new TreeWalk();
  const missingRoots = visitRoots(roots, walk, (root, stats) => {
    if (stats.isFile()) {
      if (basename(root) === storeFileName) addStore(walk, root, stats);
    } else walkDir(walk, root, 0, stats);
  });
  return walk.result(missingRoots);
}

/**
 * Parser.rescanFolders (issue 42): walk the changed folders again, each at its depth below its one root, as the whole
 * walk did: a new chat costs its workspace's folder, a `-wal` coming or going costs its chat's folder.
 * @returns undefined when a folder is a root or lies below two roots (walk whole)
 */
export function rescanCursorAgentFolders(
  roots: readonly string[],
  folders: readonly WatchedPath[],
): ScanResult | undefined {
  const walk = new TreeWalk();
  return rescanPlaced(walk, roots, folders, (folder, place) => walkDir(walk, folder.path, place.names.length));
}

/**
 * One unit per store: session id = the chat folder's name (cursor-agent's chat id, which `meta` repeats as `agentId`),
 * change key = the container's fingerprint. A store that cannot be opened now is reported through `onUnavailable`; one
 * without chat metadata through `onRejected` (`no chat metadata (meta key 0)`).
 */
export function listCursorAgentUnits(containers: readonly SourceContainer[], hooks: ParserHooks = {}): SourceUnit[] {
  const units: SourceUnit[] = [];
  for (const container of containers) {
    let meta: ReturnType<typeof readChatMeta>;
    try {
      meta = withChatStore(container.path, readChatMeta);
    } catch (error) {
      hooks.onUnavailable?.(container.path, describeSqliteError(error));
      continue;
    }
    if (!meta?.latestRootBlobId) {
      rejectFile(hooks, container.path, "no chat metadata (meta key 0)");
      continue;
    }
    units.push({
      source: "cursor-agent",
      key: container.path,
      sessionId: basename(dirname(container.path)),
      containerPath: container.path,
      changeKey: container.fingerprint,
    });
  }
  return units;
}
