/**
 * Finding VS Code chat session files by file stats alone (docs/formats/copilot-chat.md). A root is a VS Code `User`
 * folder, the user data folder above it, any folder holding `chatSessions/` folders a few levels down, or one session
 * file. Session files are the `.json` and `.jsonl` files of a `chatSessions/` or `emptyWindowChatSessions/` folder; in a
 * workspace folder (one holding `workspace.json`) only `chatSessions/` is walked, never the extensions' storage beside
 * it. One container = one file = one unit; its fingerprint holds the file's stats and those of the `workspace.json`
 * beside its folder (the project).
 */
import type { Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fsReason, isMissingError, statFingerprint } from "../file-stats.ts";
import { readHead } from "../shared/read-head.ts";
import { rejectFile } from "../shared/skips.ts";
import { rescanPlaced, TreeWalk, visitRoots } from "../shared/tree-walk.ts";
import type { ParserHooks, ScanResult, SourceContainer, SourceUnit, WatchedPath } from "../types.ts";

/** Folders holding session files: a workspace's, and the one of windows without a folder. */
export const sessionDirNames: ReadonlySet<string> = new Set(["chatSessions", "emptyWindowChatSessions"]);

/** The manifest of a workspace storage folder, naming its folder or workspace file. */
export const workspaceFileName = "workspace.json";

/** Deepest folder level walked below a root: `Code/User/workspaceStorage/<id>/chatSessions` is 4. */
const maxDepth = 5;

/** Folders of a VS Code profile that never hold chat sessions and can be large. */
const skippedDirs: ReadonlySet<string> = new Set([
  "node_modules",
  ".git",
  "History",
  "logs",
  "CachedData",
  "CachedExtensionVSIXs",
  "CachedProfilesData",
  "extensions",
  "Cache",
  "Code Cache",
  "GPUCache",
  "snippets",
]);

const isSessionFile = (name: string): boolean => name.endsWith(".json") || name.endsWith(".jsonl");

function addFile(walk: TreeWalk, path: string, known?: Stats): void {
  const stats = walk.newFile(path, known);
  if (!stats) return;
  const manifest = walk.statOrNote(join(dirname(dirname(path)), workspaceFileName));
  const ws = manifest ? statFingerprint(manifest) : "-";
  walk.addContainer("copilot-chat", path, stats, `${statFingerprint(stats)}|ws:${ws}`);
}

function walkDir(walk: TreeWalk, dir: string, depth: number, known?: Stats): void {
  const entries = walk.enterDir(dir, known);
  if (!entries) return;
  if (sessionDirNames.has(basename(dir))) {
    for (const entry of entries)
      if ((entry.isFile() || entry.isSymbolicLink()) && isSessionFile(entry.name)) addFile(walk, join(dir, entry.name));
    return;
  }
  const isWorkspace = entries.some((entry) => entry.name === workspaceFileName);
  for (const entry of entries) {
    if (!(entry.isDirectory() || entry.isSymbolicLink())) continue;
    if (sessionDirNames.has(entry.name)) walkDir(walk, join(dir, entry.name), depth + 1);
    else if (!isWorkspace && depth < maxDepth && !skippedDirs.has(entry.name))
      walkDir(walk, join(dir, entry.name), depth + 1);
  }
}

/**
 * Every chat session file below `roots`. Stats only; never throws. A root may be one session file: the freshness
 * check (index/plan/freshness.ts) re-stats the last day's sessions by path.
 * @returns containers sorted by path; missing roots; paths that exist but cannot be read; the folders read (watched)
 */
export function scanCopilotChatRoots(roots: readonly string[]): ScanResult {
  const walk = new TreeWalk();
  const missingRoots = visitRoots(roots, walk, (root, stats) => {
    if (stats.isFile()) {
      if (isSessionFile(root)) addFile(walk, root, stats);
    } else walkDir(walk, root, 0, stats);
  });
  return walk.result(missingRoots);
}

/**
 * Parser.rescanFolders (issue 42): walk the changed folders again, each at its depth below its one root, as the whole
 * walk did: a new chat, or VS Code adding or removing its own files in a workspace folder, costs that workspace's
 * folder alone. @returns undefined when a folder is a root or lies below two roots (walk whole)
 */
export function rescanCopilotChatFolders(
  roots: readonly string[],
  folders: readonly WatchedPath[],
): ScanResult | undefined {
  const walk = new TreeWalk();
  return rescanPlaced(walk, roots, folders, (folder, place) => walkDir(walk, folder.path, place.names.length));
}

/** Bytes read from a file's start to tell a session file from any other JSON. */
const headBytes = 4096;

/**
 * What a candidate file holds, from its head: `session` for a serialized chat (`{…"requests"…` or `"sessionId"`) or a
 * mutation log whose first entry is the initial state (`{"kind":0,"v":{…`), `empty`, or `other`.
 * @throws the fs error when the file cannot be read
 */
export function probeSessionFile(path: string): "session" | "empty" | "other" {
  const head = readHead(path, headBytes);
  const text = head.text.trimStart();
  if (!text) return head.whole ? "empty" : "other";
  if (path.endsWith(".jsonl")) return /^\{\s*"kind"\s*:\s*0\s*,/.test(text) ? "session" : "other";
  return text.startsWith("{") && /"(requests|sessionId|creationDate)"\s*:/.test(text) ? "session" : "other";
}

/**
 * One unit per session id (the file name without its extension, as VS Code names it): when a `.json` and a `.jsonl`
 * of one session sit side by side (a build that moved to the log), the `.jsonl` wins. Files that are no session are
 * reported through `onRejected`; unreadable ones through `onUnavailable`.
 */
export function listCopilotChatUnits(containers: readonly SourceContainer[], hooks: ParserHooks = {}): SourceUnit[] {
  const units = new Map<string, { unit: SourceUnit; preferred: boolean }>();
  for (const container of containers) {
    let kind: ReturnType<typeof probeSessionFile>;
    try {
      kind = probeSessionFile(container.path);
    } catch (error) {
      if (!isMissingError(error)) hooks.onUnavailable?.(container.path, fsReason(error));
      continue;
    }
    if (kind !== "session") {
      rejectFile(hooks, container.path, kind === "empty" ? "empty file" : "not a VS Code chat session");
      continue;
    }
    const sessionId = basename(container.path).replace(/\.jsonl?$/, "");
    const key = `${dirname(container.path)}/${sessionId}`;
    const preferred = container.path.endsWith(".jsonl");
    const known = units.get(key);
    if (known?.preferred && !preferred) continue;
    units.set(key, {
      preferred,
      unit: {
        source: "copilot-chat",
        key: container.path,
        sessionId,
        containerPath: container.path,
        changeKey: container.fingerprint,
      },
    });
  }
  return [...units.values()].map(({ unit }) => unit);
}
