/**
 * Finding GitHub Copilot CLI event logs by file stats alone, and naming the session each holds
 * (docs/formats/copilot-cli.md). A root is a Copilot home (`~/.copilot`: only its `session-state/` is walked), a
 * `session-state/` folder, one session folder, any folder holding those at some depth (a copy), or one file.
 * Two layouts, both read (wesm/agentsview internal/parser/discovery.go `DiscoverCopilotSessions`, commit aea2eb12):
 * `session-state/<session id>/events.jsonl` (CLI 0.0.4xx and 1.x) and `session-state/<session id>.jsonl` (the flat
 * files of earlier 0.0.3xx builds). One container = one file = one unit; its change key is its stats.
 */
import type { Stats } from "node:fs";
import { basename, dirname } from "node:path";
import { fsReason, isMissingError, statFingerprint } from "../file-stats.ts";
import { asObject } from "../shared/fields.ts";
import { readHead } from "../shared/read-head.ts";
import { rejectFile } from "../shared/skips.ts";
import { LargestCopies } from "../shared/largest-copy.ts";
import { rescanPlaced, TreeWalk, visitRoots } from "../shared/tree-walk.ts";
import type { ParserHooks, ScanResult, SourceContainer, SourceUnit, WatchedPath } from "../types.ts";

/** The event log of a session folder. */
export const eventsFileName = "events.jsonl";

/** The folder of a Copilot home that holds the sessions. */
export const sessionStateDir = "session-state";

/** Folder names never holding event logs: a session's own side folders, vendored trees. */
export const skippedDirs: ReadonlySet<string> = new Set([
  "checkpoints",
  "files",
  "node_modules",
  ".git",
  "logs",
  "pkg",
  "skills",
  "agents",
]);

/** Deepest folder level walked below a root. */
export const maxDepth = 8;

/**
 * Every event log below `roots`, fingerprinted by its stats.
 * @returns containers unique by file identity, sorted by path; missing roots; unreadable paths (never throws)
 */
export function scanCopilotRoots(roots: readonly string[]): ScanResult {
  const walk = new TreeWalk();
  const missingRoots = visitRoots(roots, walk, (root, stats) => {
    if (stats.isDirectory()) walkDir(root, 0, walk, stats);
    else if (stats.isFile() && root.endsWith(".jsonl")) addFile(root, walk, stats);
  });
  return walk.result(missingRoots);
}

/**
 * Walk again the changed folders of the last whole walk of `roots` (Parser.rescanFolders, issue 42: a new session
 * changes only `session-state/`), each at its depth below its one root, as the whole walk entered it.
 * @returns the containers and watched paths below those folders, or undefined when a folder is a root or lies below
 *   no root or two: only a whole walk is exact then
 */
export function rescanCopilotFolders(
  roots: readonly string[],
  folders: readonly WatchedPath[],
): ScanResult | undefined {
  const walk = new TreeWalk();
  return rescanPlaced(walk, roots, folders, (folder, place) => walkDir(folder.path, place.names.length, walk));
}

function walkDir(dir: string, depth: number, walk: TreeWalk, known?: Stats): void {
  const entries = walk.enterDir(dir, known);
  if (!entries) return;
  const state = entries.find(
    (entry) => entry.name === sessionStateDir && (entry.isDirectory() || entry.isSymbolicLink()),
  );
  if (state) {
    // A Copilot home: only its sessions (not its config, logs or installed packages).
    walkDir(`${dir}/${sessionStateDir}`, depth + 1, walk);
    return;
  }
  const flat = basename(dir) === sessionStateDir;
  let isSessionFolder = false;
  for (const entry of entries) {
    if (!(entry.isFile() || entry.isSymbolicLink())) continue;
    if (entry.name === eventsFileName) {
      isSessionFolder = true;
      addFile(`${dir}/${entry.name}`, walk);
    } else if (flat && entry.name.endsWith(".jsonl")) addFile(`${dir}/${entry.name}`, walk);
  }
  if (isSessionFolder || depth >= maxDepth) return;
  for (const entry of entries) {
    if (entry.isFile() || skippedDirs.has(entry.name)) continue;
    if (entry.isDirectory() || entry.isSymbolicLink()) walkDir(`${dir}/${entry.name}`, depth + 1, walk);
  }
}

function addFile(path: string, walk: TreeWalk, known?: Stats): void {
  const stats = walk.newFile(path, known);
  if (stats) walk.addContainer("copilot-cli", path, stats, statFingerprint(stats));
}

/** Bytes read from a log's start to find its first event (a `session.start` line is ~1 KB). */
const headBytes = 64 * 1024;

/** What the first line of a candidate file says. */
export type EventLogHead =
  /** A Copilot CLI event (`{type: "<family>.<kind>", data: {…}}`); `sessionId` from a `session.start`, else null. */
  { kind: "events"; sessionId: string | null } | { kind: "empty" } | { kind: "other" };

/**
 * The first JSON line of a candidate file. A Copilot event has a string `type` holding a dot and an object `data`
 * (github/copilot-sdk nodejs/src/generated/session-events.ts, every event interface).
 * Examples: `{"type":"session.start","data":{"sessionId":"0465…"},…}` → events `0465…`;
 *   `{"type":"user.message","data":{"content":"hi"}}` → events null; `{"role":"user"}` → other; `` → empty.
 * @throws the fs error when the file cannot be read
 */
export function probeEventLog(path: string): EventLogHead {
  const head = readHead(path, headBytes);
  const newline = head.text.indexOf("\n");
  const first = (newline < 0 ? head.text : head.text.slice(0, newline)).trim();
  if (first.length === 0) return head.whole && head.text.trim().length === 0 ? { kind: "empty" } : { kind: "other" };
  let value: Record<string, unknown> | undefined;
  try {
    value = asObject(JSON.parse(first));
  } catch {
    // A first line longer than the head (or still being written): judged by its opening.
    return /^\{\s*"type"\s*:\s*"[a-z_]+\.[a-z_.]+"/.test(first)
      ? { kind: "events", sessionId: null }
      : { kind: "other" };
  }
  const data = asObject(value?.data);
  if (!value || typeof value.type !== "string" || !value.type.includes(".") || !data) return { kind: "other" };
  const id = value.type === "session.start" && typeof data.sessionId === "string" ? data.sessionId : "";
  return { kind: "events", sessionId: id.length > 0 ? id : null };
}

/** The session id a file's place names: the folder of an `events.jsonl`, else the file name without `.jsonl`. */
export function sessionIdOfPath(path: string): string {
  return basename(path) === eventsFileName ? basename(dirname(path)) : basename(path, ".jsonl");
}

/**
 * Units of all containers, one per session id: the `session.start` event's `sessionId`, else the id the path names
 * ({@link sessionIdOfPath}). Two files of one session (a copy beside the original) become one unit: the larger wins
 * (event logs are append-only), the first listed of equals. A file whose first line is no Copilot event is reported through
 * `onRejected` (`empty file`, `not a Copilot CLI event log`); one that cannot be read through `onUnavailable`.
 */
export function listCopilotUnits(containers: readonly SourceContainer[], hooks: ParserHooks = {}): SourceUnit[] {
  const best = new LargestCopies();
  for (const container of containers) {
    let head: EventLogHead;
    try {
      head = probeEventLog(container.path);
    } catch (error) {
      if (!isMissingError(error)) hooks.onUnavailable?.(container.path, fsReason(error));
      continue;
    }
    if (head.kind !== "events") {
      rejectFile(hooks, container.path, head.kind === "empty" ? "empty file" : "not a Copilot CLI event log");
      continue;
    }
    const sessionId = head.sessionId ?? sessionIdOfPath(container.path);
    best.offer(sessionId, container);
  }
  return best.units("copilot-cli");
}
