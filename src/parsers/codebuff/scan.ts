/**
 * Finding Codebuff chats by file stats alone (docs/formats/codebuff.md). The CLI saves each chat as a folder
 * `<data dir>/projects/<project folder name>/chats/<chat id>/` holding `chat-messages.json` (the chat as its screen shows
 * it: read) and `run-state.json` (the agent's state: its project root is read), both rewritten whole after each run;
 * the chat id is the chat's start time, `new Date().toISOString()` with `:` replaced by `-`: CodebuffAI/codebuff
 * `cli/src/utils/run-state-storage.ts` `saveChatState` (commit 0b40fb03) and `cli/src/project-files.ts` (commit
 * 0794d3f3). A root is a data dir (only its `projects/` is walked), a `projects/` folder, a project's folder, a chat's
 * folder, any folder holding those at some depth (a copy), or one `chat-messages.json`. One container = one
 * `chat-messages.json`; its fingerprint is its stats plus those of the `run-state.json` beside it.
 */
import type { Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import { statFingerprint } from "../file-stats.ts";
import { sideFingerprint } from "../shared/side-file.ts";
import { LargestCopies } from "../shared/largest-copy.ts";
import { TreeWalk, visitRoots } from "../shared/tree-walk.ts";
import type { ScanResult, SourceContainer, SourceUnit } from "../types.ts";

/** The chat as the screen shows it. */
export const messagesFileName = "chat-messages.json";

/** The agent's state beside it. */
export const runStateFileName = "run-state.json";

/** Folder names never holding chats: vendored trees, version control, the CLI's own logs. */
const skippedDirs: ReadonlySet<string> = new Set(["node_modules", ".git", "logs"]);

/** Deepest folder level walked below a root. */
export const maxDepth = 8;

/**
 * Every chat's `chat-messages.json` below `roots`, fingerprinted `<stats>|run:<run-state.json stats or ->`.
 * @returns containers unique by file identity, sorted by path; missing roots; unreadable paths (never throws)
 */
export function scanCodebuffRoots(roots: readonly string[]): ScanResult {
  const walk = new TreeWalk();
  const missingRoots = visitRoots(roots, walk, (root, stats) => {
    if (stats.isDirectory()) walkDir(root, 0, walk, stats);
    else if (stats.isFile() && basename(root) === messagesFileName) addFile(root, walk, stats);
  });
  return walk.result(missingRoots);
}

function walkDir(dir: string, depth: number, walk: TreeWalk, known?: Stats): void {
  const entries = walk.enterDir(dir, known);
  if (!entries) return;
  const has = (name: string) => entries.some((entry) => entry.name === name);
  if (has(messagesFileName)) {
    addFile(join(dir, messagesFileName), walk);
    return; // a chat folder
  }
  if (basename(dir) !== "projects" && has("projects") && !has("chats")) {
    walkDir(join(dir, "projects"), depth + 1, walk); // a data dir: only its projects
    return;
  }
  if (depth >= maxDepth) return;
  for (const entry of entries) {
    if (entry.isFile() || skippedDirs.has(entry.name)) continue;
    if (entry.isDirectory() || entry.isSymbolicLink()) walkDir(join(dir, entry.name), depth + 1, walk);
  }
}

function addFile(path: string, walk: TreeWalk, known?: Stats): void {
  const stats = walk.newFile(path, known);
  if (!stats) return;
  const runState = sideFingerprint(join(dirname(path), runStateFileName), walk);
  walk.addContainer("codebuff", path, stats, `${statFingerprint(stats)}|run:${runState}`);
}

/**
 * Units of all containers, one per chat id (the chat folder's name, which `codebuff --continue` takes). Two copies of
 * one chat become one unit: the larger file wins (a chat only grows). No content is read here.
 */
export function listCodebuffUnits(containers: readonly SourceContainer[]): SourceUnit[] {
  const best = new LargestCopies();
  for (const container of containers) {
    const id = basename(dirname(container.path));
    best.offer(id, container);
  }
  return best.units("codebuff");
}
