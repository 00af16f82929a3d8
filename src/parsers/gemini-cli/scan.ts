/**
 * Finding Gemini CLI chat files by file stats alone (docs/formats.md §4.1). A root is a `.gemini`
 * folder (only its `tmp/` is walked), a `tmp/` folder, any folder holding `chats/` folders at some
 * depth (copies of `.gemini` inside repositories), or one chat file. Containers are the files directly
 * in a `chats/` folder and one level below it (`chats/<parentSessionId>/<id>.json[l]` sub-agents,
 * `chats/skill-extraction-<hex>/`), plus each project folder's prompt log `logs.json` (read by ./logs.ts). Nothing else
 * outside `chats/` is ever listed: not checkpoints, and never credentials (`oauth_creds.json`,
 * `google_accounts.json`, which live at the `.gemini` top level that the walk does not enter).
 * A folder reached twice (links, overlapping roots) is walked once.
 */
import type { Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import { statFingerprint } from "../file-stats.ts";
import { rescanPlaced, TreeWalk, visitRoots } from "../shared/tree-walk.ts";
import type { ScanResult, WatchedPath } from "../types.ts";

/** Folder names never walked: auxiliary state of a project folder (§4.1) and the usual heavy trees. */
export const skippedDirs: ReadonlySet<string> = new Set([
  "node_modules",
  ".git",
  "checkpoints",
  "tool-outputs",
  "tool_output",
  "memory",
  "plans",
  "logs",
  "extensions",
  "commands",
  "skills",
  "tracker",
  "tasks",
  "antigravity",
  "antigravity-browser-profile",
]);

/** Deepest folder level walked below a root while looking for `chats/` folders. */
export const maxDepth = 12;

/** The prompt log inside a `tmp/<project-id>/` folder (§4.1), read by ./logs.ts. */
export const logsFileName = "logs.json";

/** The file `tmp/<project>/.project_root` holding the project path (CLI ≥ 0.29, §4.1). */
export const projectRootFileName = ".project_root";

/** The registry of project paths `.gemini/projects.json` (CLI ≥ 0.29, §4.1), read by ./projects.ts. */
export const registryFileName = "projects.json";

/**
 * The `.gemini` folder of a project folder `…/.gemini/tmp/<project-id>`, or null when the project folder is not
 * directly in a `tmp/` folder (e.g. a chat file given alone as a root).
 * Examples: `/h/.gemini/tmp/app` → `/h/.gemini`; `/x` → null.
 */
export function geminiDirOf(projectDir: string): string | null {
  const tmp = dirname(projectDir);
  return basename(tmp) === "tmp" ? dirname(tmp) : null;
}

/** True for a chat file name: `*.json` / `*.jsonl` (the format is decided by content when parsing). */
export function isChatFileName(name: string): boolean {
  return name.endsWith(".json") || name.endsWith(".jsonl");
}

/**
 * The project folder (`tmp/<project-id>`) of a chat file: the parent of its `chats/` folder; for a
 * file given directly as a root outside any `chats/` folder, its own folder.
 * Examples: `/h/.gemini/tmp/app/chats/session-x.json` → `/h/.gemini/tmp/app`;
 *   `/h/.gemini/tmp/app/chats/<parent>/ab12cd.jsonl` → `/h/.gemini/tmp/app`; `/x/s.json` → `/x`.
 */
export function projectDirOf(chatPath: string): string {
  const folder = dirname(chatPath);
  if (basename(folder) === "chats") return dirname(folder);
  if (basename(dirname(folder)) === "chats") return dirname(dirname(folder));
  return folder;
}

/** Mutable state of one scan: the shared bookkeeping plus the `.project_root` and registry stamps. */
class GeminiWalk extends TreeWalk {
  /** Project stamp per project folder (see {@link rootStampOf}), computed once. */
  readonly rootStamps = new Map<string, string>();
  /** `projects.json` fingerprint per `.gemini` folder, computed once. */
  readonly registryStamps = new Map<string, string>();
}

/**
 * Every chat file below `roots`, with a stats-only fingerprint: the file's {@link statFingerprint} plus
 * `|root<fingerprint of tmp/<project>/.project_root>`, or, when that file is absent, `|root-` followed by
 * `reg<fingerprint of .gemini/projects.json>` (`reg-` when absent; nothing for a folder outside a `tmp/`): the
 * registry is what names a hash folder's project (./projects.ts), so a project path that appears or changes
 * re-parses the project's sessions.
 * Cost: one readdir + one stat per folder, one stat per chat file, one or two per project folder.
 * @returns containers sorted by path; missing roots; paths that exist but cannot be read. Never throws.
 */
export function scanGeminiRoots(roots: readonly string[]): ScanResult {
  const walk = new GeminiWalk();
  const missingRoots = visitRoots(roots, walk, (root, stat) => {
    if (stat.isDirectory()) walkDir(root, 0, walk, stat);
    else if (stat.isFile() && isChatFileName(basename(root))) addFile(root, walk, stat);
  });
  return walk.result(missingRoots);
}

/**
 * Walk again the changed folders of the last whole walk of `roots` (Parser.rescanFolders, issue 42: a new chat changes
 * only its `chats/` folder), each as the whole walk entered it: a `chats/` folder below a root as one, a folder right
 * inside one (sub-agents) for its chat files, any other folder at its depth below its root.
 * @returns the containers and watched paths below those folders, or undefined when a folder is a root or lies below
 *   no root or two: only a whole walk is exact then
 */
export function rescanGeminiFolders(roots: readonly string[], folders: readonly WatchedPath[]): ScanResult | undefined {
  const walk = new GeminiWalk();
  return rescanPlaced(walk, roots, folders, (folder, place) => {
    const stat = walk.statOrNote(folder.path);
    if (!stat?.isDirectory()) return; // gone: nothing below it now
    if (place.names.length >= 2 && place.names.at(-2) === "chats") walkChatFolder(folder.path, walk, stat);
    else if (basename(folder.path) === "chats") walkChats(folder.path, walk, stat);
    else walkDir(folder.path, place.names.length, walk, stat);
  });
}

function walkDir(dir: string, depth: number, walk: GeminiWalk, stat: Stats): void {
  const entries = walk.enterDir(dir, stat);
  if (!entries) return;
  // A `.gemini` folder: only `tmp/` holds chats (the rest is settings, history, credentials).
  const tmp = entries.find((entry) => entry.name === "tmp" && (entry.isDirectory() || entry.isSymbolicLink()));
  if (tmp && (depth === 0 || basename(dir) === ".gemini")) {
    const tmpStat = walk.statOrNote(join(dir, "tmp"));
    if (tmpStat?.isDirectory()) walkDir(join(dir, "tmp"), depth + 1, walk, tmpStat);
    return;
  }
  // A project folder (`tmp/<project-id>/`, it holds `chats/` or `.project_root`): its prompt log `logs.json`.
  if (
    entries.some((entry) => entry.name === logsFileName && entry.isFile()) &&
    (basename(dirname(dir)) === "tmp" ||
      entries.some((entry) => entry.name === "chats" || entry.name === projectRootFileName))
  ) {
    // Its fingerprint covers the folder's `.project_root`, which gives these sessions their project.
    walk.addFileContainer("gemini-cli", join(dir, logsFileName), `|root${rootStampOf(dir, walk)}`);
  }
  if (depth >= maxDepth) return;
  for (const entry of entries) {
    if (entry.isFile() || skippedDirs.has(entry.name)) continue;
    const path = join(dir, entry.name);
    const entryStat = entry.isDirectory() || entry.isSymbolicLink() ? walk.statOrNote(path) : undefined;
    if (!entryStat?.isDirectory()) continue;
    if (entry.name === "chats") walkChats(path, walk, entryStat);
    else walkDir(path, depth + 1, walk, entryStat);
  }
}

/** A `chats/` folder: its chat files and those one folder below (sub-agents, skill extraction). */
function walkChats(dir: string, walk: GeminiWalk, stat: Stats): void {
  const entries = walk.enterDir(dir, stat);
  if (!entries) return;
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isFile()) {
      if (isChatFileName(entry.name)) addFile(path, walk);
      continue;
    }
    const entryStat = entry.isDirectory() || entry.isSymbolicLink() ? walk.statOrNote(path) : undefined;
    if (entryStat) walkChatFolder(path, walk, entryStat);
  }
}

/** A folder right inside a `chats/` folder (a parent session's sub-agents, a skill extraction): its chat files. */
function walkChatFolder(dir: string, walk: GeminiWalk, stat: Stats): void {
  for (const entry of walk.enterDir(dir, stat) ?? []) {
    if (entry.isFile() && isChatFileName(entry.name)) addFile(join(dir, entry.name), walk);
  }
}

/**
 * Fingerprint of `<projectDir>/.project_root`, or when it is absent "-" plus `reg<fingerprint of the registry>`
 * (`reg-` when absent, nothing outside a `tmp/` folder), once per folder and scan.
 */
function rootStampOf(projectDir: string, walk: GeminiWalk): string {
  let rootStamp = walk.rootStamps.get(projectDir);
  if (rootStamp === undefined) {
    const rootStat = walk.statOrNote(join(projectDir, projectRootFileName));
    walk.watchPath(join(projectDir, projectRootFileName), rootStat); // it names the project of every chat there
    rootStamp = rootStat?.isFile() ? statFingerprint(rootStat) : `-${registryStampOf(projectDir, walk)}`;
    walk.rootStamps.set(projectDir, rootStamp);
  }
  return rootStamp;
}

/** `reg<fingerprint of .gemini/projects.json>` (`reg-` when absent), "" outside a `tmp/` folder; once per `.gemini`. */
function registryStampOf(projectDir: string, walk: GeminiWalk): string {
  const geminiDir = geminiDirOf(projectDir);
  if (geminiDir === null) return "";
  let stamp = walk.registryStamps.get(geminiDir);
  if (stamp === undefined) {
    const path = join(geminiDir, registryFileName);
    const stat = walk.statOrNote(path);
    walk.watchPath(path, stat); // it names the project of every hash folder's chats
    stamp = `reg${stat?.isFile() ? statFingerprint(stat) : "-"}`;
    walk.registryStamps.set(geminiDir, stamp);
  }
  return stamp;
}

function addFile(path: string, walk: GeminiWalk, known?: Stats): void {
  const stat = walk.newFile(path, known);
  if (!stat) return;
  walk.addContainer("gemini-cli", path, stat, `${statFingerprint(stat)}|root${rootStampOf(projectDirOf(path), walk)}`);
}
