/**
 * Finding Claude Code transcripts by file stats alone (docs/formats.md §1.1, §1.8, §1.10) and naming
 * the unit each one becomes. A root is a `.claude` folder (only its `projects/` is walked), a
 * `projects` folder, any copy or archive of them (transcripts at any depth), or one `.jsonl` file.
 * Side files are never transcripts: `*.json` (sessions-index, meta, todos), `memory/*.md`, `tool-results/`,
 * `file-history/` and the other auxiliary folders are skipped by name. The prompt history `history.jsonl` of a config
 * folder (next to its `projects/`, §1.10) is listed as one more container, read by ./history.ts.
 * Symbolic links are followed once: a folder or file reached twice (same device + inode) is walked or
 * listed once, so link cycles and links to a parent folder cost nothing (issue 9).
 */
import { statSync, type Stats } from "node:fs";
import { basename, dirname, join } from "node:path";
import { statFingerprint } from "../file-stats.ts";
import { rescanPlaced, TreeWalk, visitRoots } from "../shared/tree-walk.ts";
import { historyFileName } from "./history.ts";
import { inlineSidechainRoots, sidechainSessionId, sidechainUnitKey } from "./sidechains.ts";
import type { ScanResult, SourceContainer, SourceUnit, WatchedPath } from "../types.ts";

/** Folder names below a root that never hold transcripts (auxiliary state, §1.1); the watcher skips them too. */
export const skippedDirs: ReadonlySet<string> = new Set([
  "tool-results",
  "file-history",
  "todos",
  "shell-snapshots",
  "session-env",
  "paste-cache",
  "debug",
  "telemetry",
  "statsig",
  "memory",
  "plans",
  "tasks",
  "node_modules",
  ".git",
]);

/** Deepest folder level walked below a root (a guard for very deep real trees; links are deduplicated). */
export const maxDepth = 16;

/**
 * Kind of transcript, from its path only; `sidechain` is an inline sub-agent chain inside a main file (≤ 1.0.x,
 * sidechains.ts), which has a unit of its own but no file.
 */
export type AgentKind = "main" | "task" | "acompact" | "aside_question" | "sidechain";

/** What a transcript path says about itself (no content read). */
export interface PathInfo {
  /** File stem: the session id of a main file; `agent-<agentId>` for sub-agent files. */
  stem: string;
  kind: AgentKind;
  /** Nested `<session>/subagents/agent-*.jsonl`: the `<session>` folder name; else null. */
  parentFromPath: string | null;
}

/**
 * Classify a transcript path.
 * Examples: `/p/x/0a1b.jsonl` → main; `/p/x/agent-3ea04571.jsonl` → task, parent null;
 *   `/p/x/S/subagents/agent-acompact-a8.jsonl` → acompact, parent `S`.
 */
export function describePath(path: string): PathInfo {
  const stem = basename(path).replace(/\.jsonl$/, "");
  const nested = basename(dirname(path)) === "subagents";
  const parentFromPath = nested ? basename(dirname(dirname(path))) : null;
  if (!stem.startsWith("agent-")) return { stem, kind: "main", parentFromPath: null };
  const kind: AgentKind = stem.startsWith("agent-acompact-")
    ? "acompact"
    : stem.startsWith("agent-aside_question-")
      ? "aside_question"
      : "task";
  return { stem, kind, parentFromPath };
}

/**
 * The main transcript a nested sub-agent file belongs to: `<dir>/<session>.jsonl` for
 * `<dir>/<session>/subagents/agent-*.jsonl`; null for main files and flat agent files.
 */
export function parentTranscriptPath(path: string): string | null {
  const { parentFromPath } = describePath(path);
  return parentFromPath === null ? null : join(dirname(dirname(dirname(path))), `${parentFromPath}.jsonl`);
}

/**
 * Where the copy agents of a main transcript live (`<dir>/<session>/subagents/`, §1.8): their change key holds the
 * parent's stats, so they are listed again whenever it changes. Null for sub-agent files and the prompt history.
 */
export function copyAgentsPrefix(containerPath: string): string | null {
  if (!isTranscriptName(basename(containerPath)) || describePath(containerPath).kind !== "main") return null;
  return `${containerPath.slice(0, -".jsonl".length)}/subagents/`;
}

/** A symbolic link met during the walk, followed after every real path (so real paths win). */
interface PendingLink {
  path: string;
  name: string;
  depth: number;
}

/** Mutable state of one scan: the shared bookkeeping plus the links still to follow. */
class ClaudeWalk extends TreeWalk {
  readonly links: PendingLink[] = [];

  /**
   * The result, once the links met are followed: after every real path, so real paths win; links found while following
   * links are appended and followed too, and walked identities stop cycles.
   */
  override result(missingRoots: string[]): ScanResult {
    for (let i = 0; i < this.links.length; i++) followLink(this.links[i]!, this);
    return super.result(missingRoots);
  }
}

/**
 * Every transcript below `roots`, with a stats-only fingerprint (file-stats.ts `statFingerprint`; a nested
 * sub-agent's also covers its `.meta.json`, which gives its title).
 * Cost: one readdir and one stat per folder, one stat per transcript. Session folders (`<id>/` next to
 * `<id>.jsonl`) are only entered through their `subagents/` folder, which saves a readdir per ≥ 2.1 session.
 * Links: followed once, after the real tree, skipped when their target was already walked (dev + ino).
 * Measured 2026-11 on the 2-core dev VM: see scripts/bench/parse-claude.ts (`claude-scan-*`).
 * @returns containers deduplicated by identity (overlapping roots, links, hard links) and sorted by path;
 *   roots that do not exist in `missingRoots`; roots, folders and files that exist but cannot be read
 *   (permission denied, symbolic link loop, i/o error) in `unavailable`, sorted by path. Never throws.
 */
export function scanClaudeRoots(roots: readonly string[]): ScanResult {
  const walk = new ClaudeWalk();
  const missingRoots = visitRoots(roots, walk, (root, stat) => {
    if (stat.isDirectory()) {
      walkDir(root, 0, walk, stat);
      // The default root is `<config>/projects`: the config folder's prompt history sits next to it.
      if (basename(root) === "projects") walk.addFileContainer("claude-code", join(dirname(root), historyFileName));
    } else if (isTranscriptName(basename(root))) addFile(root, walk, undefined, stat);
    else if (basename(root) === historyFileName) walk.addFileContainer("claude-code", root);
  });
  return walk.result(missingRoots); // follows the links met (ClaudeWalk.result)
}

/**
 * Walk again the changed folders of the last whole walk of `roots` (Parser.rescanFolders, issue 42), each as the
 * whole walk entered it: a folder below one root at the depth of its path below that root, a session's `subagents/`
 * (`owner` set) as its session's folder listing would. A folder below another changed one is covered by it.
 * @returns the containers and watched paths below those folders, or undefined when a folder is a root, lies below
 *   no root or below two (overlapping roots: which one walked it first decides), or is a sub-agent folder whose
 *   session transcript is gone: only a whole walk is exact then
 */
export function rescanClaudeFolders(roots: readonly string[], folders: readonly WatchedPath[]): ScanResult | undefined {
  const walk = new ClaudeWalk();
  return rescanPlaced(walk, roots, folders, (folder, place) => {
    if (folder.owner === undefined) walkDir(folder.path, place.names.length, walk);
    else if (statOrUndefined(folder.owner)?.isFile()) walkSubagents(folder.path, folder.owner, walk);
    else return false;
  });
}

/**
 * Parser.restatContainers: the records `scanClaudeRoots(paths)` gives stored containers (transcripts, prompt
 * histories) whose paths are known, listed by the walk's own `addFile` and `addFileContainer`, one stat each (two for a
 * nested sub-agent with its `.meta.json`) without visiting each path as a root and sorting the result: the quick
 * freshness check re-stats every recent transcript before each search (issue 42: for the 136 of the real corpus, copied
 * onto the machine the same day, a cold search from the binary took 0.24–0.27 ms less than through `scan`; p50 of 40
 * rounds of scripts/compare-binaries.ts, two sets, 2-core Xeon, 2026-11-30).
 * @returns one container per path, in the given order; undefined when a path is gone, cannot be stat'ed, is no file,
 *   is neither a transcript nor a prompt history, or is the same file (device + inode) as another path: the walk would
 *   list it once or not at all, so only a whole scan can tell
 */
export function restatClaudeContainers(paths: readonly string[]): SourceContainer[] | undefined {
  const walk = new ClaudeWalk();
  for (const path of paths) {
    const listed = walk.found.length;
    const name = basename(path);
    if (name === historyFileName) walk.addFileContainer("claude-code", path);
    else if (isTranscriptName(name)) addFile(path, walk);
    if (walk.found.length === listed || walk.unavailable.length > 0) return undefined;
  }
  return walk.found;
}

function isTranscriptName(name: string): boolean {
  return name.endsWith(".jsonl") && name !== "history.jsonl";
}

function walkDir(dir: string, depth: number, walk: ClaudeWalk, known?: Stats): void {
  const entries = walk.enterDir(dir, known);
  if (!entries) return;
  // A `.claude` folder (or a root holding `projects/`): only `projects/` holds transcripts.
  if (depth === 0 || dir.endsWith("/.claude")) {
    const projects = entries.find(
      (entry) => entry.name === "projects" && (entry.isDirectory() || entry.isSymbolicLink()),
    );
    if (projects) {
      if (entries.some((entry) => entry.name === historyFileName && entry.isFile()))
        walk.addFileContainer("claude-code", `${dir}/${historyFileName}`);
      walkDir(`${dir}/projects`, depth + 1, walk);
      return;
    }
  }
  const stems = new Set<string>();
  for (const entry of entries) {
    if (!entry.isFile() || !isTranscriptName(entry.name)) continue;
    addFile(`${dir}/${entry.name}`, walk);
    stems.add(entry.name.slice(0, -6));
  }
  if (depth >= maxDepth) return;
  for (const entry of entries) {
    if (entry.isFile() || skippedDirs.has(entry.name)) continue;
    const path = `${dir}/${entry.name}`;
    if (stems.has(entry.name)) walkSubagents(`${path}/subagents`, `${path}.jsonl`, walk);
    else if (entry.isDirectory()) walkDir(path, depth + 1, walk);
    else if (entry.isSymbolicLink()) walk.links.push({ path, name: entry.name, depth });
  }
}

/**
 * The `subagents/` folder of a session folder (§1.1): agent transcripts only, no deeper folders. Watched while its
 * session's transcript (`owner`) is recent: a live session adds agent files there.
 */
function walkSubagents(dir: string, owner: string, walk: ClaudeWalk): void {
  const names = (walk.readOwnedDir(dir, owner) ?? []).map((entry) => entry.name);
  const present = new Set(names);
  for (const name of names) {
    if (isTranscriptName(name)) addFile(`${dir}/${name}`, walk, present.has(`${name.slice(0, -6)}.meta.json`));
  }
}

function followLink(link: PendingLink, walk: ClaudeWalk): void {
  // A dangling link holds nothing; a loop (`a -> a`) or a forbidden target is reported.
  const stat = walk.statOrNote(link.path);
  if (stat?.isDirectory()) walkDir(link.path, link.depth + 1, walk, stat);
  else if (stat?.isFile() && isTranscriptName(link.name)) addFile(link.path, walk, undefined, stat);
}

/**
 * List one transcript. `hasMeta`: whether a nested sub-agent's `.meta.json` exists (known from the
 * folder listing, so an absent one costs no stat); undefined = find out. `known`: the file's stats when the caller
 * took them already (a root given as a file, a link followed: a quick check re-stats every recent transcript so).
 */
function addFile(path: string, walk: ClaudeWalk, hasMeta?: boolean, known?: Stats): void {
  // May vanish between readdir and stat (a session being rotated): then it is not a container.
  const stat = walk.newFile(path, known);
  if (!stat) return;
  walk.addContainer("claude-code", path, stat, fingerprintTranscript(path, stat, hasMeta));
}

/** A transcript's fingerprint; a nested sub-agent's adds its `.meta.json` (title source), `meta-` when absent. */
function fingerprintTranscript(path: string, stat: Stats, hasMeta: boolean | undefined): string {
  const own = statFingerprint(stat);
  if (basename(dirname(path)) !== "subagents") return own;
  const meta = hasMeta === false ? undefined : statOrUndefined(path.replace(/\.jsonl$/, ".meta.json"));
  return `${own}|meta${meta ? statFingerprint(meta) : "-"}`;
}

/**
 * The unit of one transcript file. `sessionId` is the file stem: the Claude session id for main files,
 * `agent-<agentId>` for sub-agent files (never equal to a parent's UUID). `locator` carries
 * `isSubagent`, `agentKind` and `parentFromPath` (nested layout only). `changeKey` is the fingerprint;
 * {@link listClaudeUnits} extends it for copy agents.
 */
export function unitForContainer(container: SourceContainer): SourceUnit {
  const info = describePath(container.path);
  return {
    source: "claude-code",
    key: container.path,
    sessionId: info.stem,
    containerPath: container.path,
    changeKey: container.fingerprint,
    locator: { isSubagent: info.kind !== "main", agentKind: info.kind, parentFromPath: info.parentFromPath },
  };
}

/**
 * Units of all containers; when the same session file exists in two places (a copy of `.claude` next to
 * the original), the larger file wins (ties: the later mtime, then the first path).
 * Copy agents (`acompact`, `aside_question`, §1.8) are parsed against their parent's uuids, so their change
 * key also holds the parent transcript's stats (`|parent<fingerprint>`, `|parent-` when it is missing):
 * a change to the parent re-parses them, as a full index would (one stat per copy agent).
 * A main file written by Claude Code ≤ 1.0.x also yields one unit per inline sub-agent chain (sidechains.ts; issue 26),
 * with the file's fingerprint as change key and `sidechainRoot` in the locator.
 */
export function listClaudeUnits(containers: readonly SourceContainer[]): SourceUnit[] {
  const best = new Map<string, SourceContainer>();
  for (const container of containers) {
    const info = describePath(container.path);
    const identity =
      info.kind === "main" ? info.stem : `${info.parentFromPath ?? basename(dirname(container.path))}/${info.stem}`;
    const current = best.get(identity);
    if (!current || isPreferred(container, current)) best.set(identity, container);
  }
  return [...best.values()].flatMap((container) => {
    const unit = unitForContainer(container);
    const kind = unit.locator?.agentKind;
    if (kind === "main") return [unit, ...sidechainUnits(container, unit.sessionId)];
    if (kind !== "acompact" && kind !== "aside_question") return [unit];
    const parentPath = parentTranscriptPath(container.path);
    const parent = parentPath === null ? undefined : statOrUndefined(parentPath);
    return [{ ...unit, changeKey: `${unit.changeKey}|parent${parent?.isFile() ? statFingerprint(parent) : "-"}` }];
  });
}

/** The units of the inline sub-agent chains of a main transcript (none for files written by 2.x or later). */
function sidechainUnits(container: SourceContainer, parentSessionId: string): SourceUnit[] {
  return inlineSidechainRoots(container.path).map((rootUuid) => ({
    source: "claude-code",
    key: sidechainUnitKey(container.path, rootUuid),
    sessionId: sidechainSessionId(rootUuid),
    containerPath: container.path,
    changeKey: container.fingerprint,
    locator: {
      isSubagent: true,
      agentKind: "sidechain",
      parentFromPath: null,
      sidechainRoot: rootUuid,
      parentSessionId,
    },
  }));
}

function statOrUndefined(path: string): Stats | undefined {
  try {
    return statSync(path, { throwIfNoEntry: false });
  } catch {
    return undefined;
  }
}

function isPreferred(candidate: SourceContainer, current: SourceContainer): boolean {
  if (candidate.sizeBytes !== current.sizeBytes) return candidate.sizeBytes > current.sizeBytes;
  const mtime = (fingerprint: string) => Number(fingerprint.split(":")[1] ?? 0);
  return mtime(candidate.fingerprint) > mtime(current.fingerprint);
}
