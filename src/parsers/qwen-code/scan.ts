/**
 * Finding Qwen Code chat files by file stats alone, and naming the session each holds (docs/formats/qwen-code.md).
 * Qwen Code writes one JSONL file per session, `<sessionId>.jsonl`, in a project's `chats/` folder:
 * `projects/<cwd with every non-alphanumeric character as "-">/chats/` (QwenLM/qwen-code
 * `packages/core/src/config/storage.ts` `getProjectDir`, commit 96a2647e) and, in early versions,
 * `tmp/<sha256 of the project path>/chats/` (`chatRecordingService.ts` at commit 1ef51670). A root is a Qwen home
 * (only its `projects/` and `tmp/` are walked), a `chats/` folder, any folder holding those at some depth, or one file.
 * One container = one file = one unit.
 */
import type { Stats } from "node:fs";
import { basename } from "node:path";
import { fsReason, isMissingError, statFingerprint } from "../file-stats.ts";
import { asObject } from "../shared/fields.ts";
import { readHead } from "../shared/read-head.ts";
import { rejectFile } from "../shared/skips.ts";
import { LargestCopies } from "../shared/largest-copy.ts";
import { rescanPlaced, TreeWalk, visitRoots } from "../shared/tree-walk.ts";
import type { ParserHooks, ScanResult, SourceContainer, SourceUnit, WatchedPath } from "../types.ts";
import { isQwenCodeChat } from "../gemini-cli/qwen-code.ts";

/** The folder of a project that holds its chat files. */
export const chatsDir = "chats";

/** The folders of a Qwen home that hold projects. */
const homeFolders = new Set(["projects", "tmp"]);

/** Folder names never holding chats: Qwen's other state, vendored trees. */
export const skippedDirs: ReadonlySet<string> = new Set([
  "node_modules",
  ".git",
  "checkpoints",
  "debug",
  "ide",
  "bin",
  "extensions",
  "skills",
  "commands",
  "history",
  "arena",
  "todos",
]);

/** Deepest folder level walked below a root. */
export const maxDepth = 8;

/**
 * Every chat file below `roots` (a `*.jsonl` in a `chats/` folder, or a file given as a root), fingerprinted by its
 * stats. @returns containers unique by file identity, sorted by path; missing roots; unreadable paths (never throws)
 */
export function scanQwenRoots(roots: readonly string[]): ScanResult {
  const walk = new TreeWalk();
  const missingRoots = visitRoots(roots, walk, (root, stats) => {
    if (stats.isDirectory()) walkDir(root, 0, walk, stats);
    else if (stats.isFile() && root.endsWith(".jsonl")) addFile(root, walk, stats);
  });
  return walk.result(missingRoots);
}

/**
 * Walk again the changed folders of the last whole walk of `roots` (Parser.rescanFolders, issue 42: a new chat changes
 * only its `chats/` folder), each at its depth below its one root, as the whole walk entered it.
 * @returns the containers and watched paths below those folders, or undefined when a folder is a root or lies below
 *   no root or two: only a whole walk is exact then
 */
export function rescanQwenFolders(roots: readonly string[], folders: readonly WatchedPath[]): ScanResult | undefined {
  const walk = new TreeWalk();
  return rescanPlaced(walk, roots, folders, (folder, place) => walkDir(folder.path, place.names.length, walk));
}

function walkDir(dir: string, depth: number, walk: TreeWalk, known?: Stats): void {
  const entries = walk.enterDir(dir, known);
  if (!entries) return;
  const home = entries.filter(
    (entry) => homeFolders.has(entry.name) && (entry.isDirectory() || entry.isSymbolicLink()),
  );
  if (home.length > 0 && entries.some((entry) => entry.name === "settings.json" || entry.name === "projects")) {
    // A Qwen home: only its project folders.
    for (const folder of home) walkDir(`${dir}/${folder.name}`, depth + 1, walk);
    return;
  }
  if (basename(dir) === chatsDir) {
    for (const entry of entries)
      if ((entry.isFile() || entry.isSymbolicLink()) && entry.name.endsWith(".jsonl"))
        addFile(`${dir}/${entry.name}`, walk);
    return;
  }
  if (depth >= maxDepth) return;
  for (const entry of entries) {
    if (entry.isFile() || skippedDirs.has(entry.name)) continue;
    if (entry.isDirectory() || entry.isSymbolicLink()) walkDir(`${dir}/${entry.name}`, depth + 1, walk);
  }
}

function addFile(path: string, walk: TreeWalk, known?: Stats): void {
  const stats = walk.newFile(path, known);
  if (stats) walk.addContainer("qwen-code", path, stats, statFingerprint(stats));
}

/** Bytes read from a chat's start to find its first record (a record line is ~1 KB; a long prompt more). */
const headBytes = 64 * 1024;

/**
 * The session id of a chat file from its first record (`sessionId`), else the file name without `.jsonl` (Qwen names
 * the file after the session); "" for an empty file, null when the first line is no Qwen Code `ChatRecord`
 * (gemini-cli/qwen-code.ts `isQwenCodeChat`: the check Gemini CLI's scan uses to turn such files away).
 * @throws the fs error when the file cannot be read
 */
export function probeChat(path: string): string | null {
  const head = readHead(path, headBytes);
  if (head.whole && head.text.trim().length === 0) return "";
  if (!isQwenCodeChat(head.text)) return null;
  const newline = head.text.indexOf("\n");
  try {
    const first = asObject(JSON.parse(newline < 0 ? head.text : head.text.slice(0, newline)));
    if (typeof first?.sessionId === "string" && first.sessionId.length > 0) return first.sessionId;
  } catch {
    // isQwenCodeChat parsed it already; unreachable in practice
  }
  return basename(path, ".jsonl");
}

/**
 * Units of all containers, one per session id; two files of one session (a copy beside the original) become one: the
 * larger wins (chats are append-only). An empty file (Qwen creates it before the first message) or one whose first
 * line is no `ChatRecord` is reported through `onRejected` (`empty file`, `not a Qwen Code chat`); one that cannot be
 * read through `onUnavailable`.
 */
export function listQwenUnits(containers: readonly SourceContainer[], hooks: ParserHooks = {}): SourceUnit[] {
  const best = new LargestCopies();
  for (const container of containers) {
    let sessionId: string | null;
    try {
      sessionId = probeChat(container.path);
    } catch (error) {
      if (!isMissingError(error)) hooks.onUnavailable?.(container.path, fsReason(error));
      continue;
    }
    if (!sessionId) {
      rejectFile(hooks, container.path, sessionId === "" ? "empty file" : "not a Qwen Code chat");
      continue;
    }
    best.offer(sessionId, container);
  }
  return best.units("qwen-code");
}
