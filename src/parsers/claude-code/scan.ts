/**
 * Finding Claude Code transcripts by file stats alone (docs/formats.md §1.1, §1.8, §1.10) and naming
 * the unit each one becomes. A root is a `.claude` folder (only its `projects/` is walked), a
 * `projects` folder, any copy or archive of them (transcripts at any depth), or one `.jsonl` file.
 * Side files are never sessions: `history.jsonl`, `*.json` (sessions-index, meta, todos), `memory/*.md`,
 * `tool-results/`, `file-history/` and the other auxiliary folders are skipped by name.
 */
import { readdirSync, statSync, type Dirent } from "node:fs";
import { basename, dirname } from "node:path";
import type { ScanResult, SourceContainer, SourceUnit } from "../types.ts";

/** Folder names below a root that never hold transcripts (auxiliary state, §1.1). */
const skippedDirs = new Set([
  "tool-results", "file-history", "todos", "shell-snapshots", "session-env", "paste-cache", "debug",
  "telemetry", "statsig", "memory", "plans", "tasks", "node_modules", ".git",
]);

/** Deepest folder level walked below a root (guards against symlink loops). */
const maxDepth = 16;

/** Kind of transcript file, from its path only. */
export type AgentKind = "main" | "task" | "acompact" | "aside_question";

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
  const kind: AgentKind = stem.startsWith("agent-acompact-") ? "acompact" : stem.startsWith("agent-aside_question-") ? "aside_question" : "task";
  return { stem, kind, parentFromPath };
}

/**
 * Every transcript below `roots`, with a stats-only fingerprint `<size>:<mtimeMs>`.
 * Cost: one readdir per folder and one stat per transcript. Session folders (`<id>/` next to `<id>.jsonl`)
 * are only entered through their `subagents/` folder, which saves a readdir per ≥ 2.1 session.
 * Measured 2026-11 on the 2-core EPYC dev VM: see scripts/bench/parse-claude.ts (`claude-scan-*`).
 * @returns containers deduplicated (overlapping roots) and sorted by path, plus the roots that do not
 *   exist or cannot be read. Never throws; unreadable sub-folders are skipped.
 */
export function scanClaudeRoots(roots: readonly string[]): ScanResult {
  const found: SourceContainer[] = [];
  const seen = new Set<string>();
  const missingRoots: string[] = [];
  for (const root of roots) {
    const stat = statSync(root, { throwIfNoEntry: false });
    if (!stat) missingRoots.push(root);
    else if (stat.isDirectory()) walk(root.length > 1 && root.endsWith("/") ? root.slice(0, -1) : root, 0, found, seen);
    else if (isTranscriptName(basename(root))) addFile(root, found, seen);
  }
  found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { containers: found, missingRoots, unavailable: [] };
}

function isTranscriptName(name: string): boolean {
  return name.endsWith(".jsonl") && name !== "history.jsonl";
}

function walk(dir: string, depth: number, found: SourceContainer[], seen: Set<string>): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  // A `.claude` folder (or a root holding `projects/`): only `projects/` holds transcripts.
  if (depth === 0 || dir.endsWith("/.claude")) {
    const projects = entries.find((entry) => entry.name === "projects" && (entry.isDirectory() || entry.isSymbolicLink()));
    if (projects) return walk(`${dir}/projects`, depth + 1, found, seen);
  }
  const stems = new Set<string>();
  for (const entry of entries) {
    if (!entry.isFile() || !isTranscriptName(entry.name)) continue;
    addFile(`${dir}/${entry.name}`, found, seen);
    stems.add(entry.name.slice(0, -6));
  }
  if (depth >= maxDepth) return;
  for (const entry of entries) {
    if (entry.isFile() || skippedDirs.has(entry.name)) continue;
    const path = `${dir}/${entry.name}`;
    if (stems.has(entry.name)) walkSubagents(`${path}/subagents`, found, seen);
    else if (entry.isDirectory()) walk(path, depth + 1, found, seen);
    else if (entry.isSymbolicLink()) walkLink(path, entry.name, depth, found, seen);
  }
}

/** The `subagents/` folder of a session folder (§1.1): agent transcripts only, no deeper folders. */
function walkSubagents(dir: string, found: SourceContainer[], seen: Set<string>): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) if (isTranscriptName(name)) addFile(`${dir}/${name}`, found, seen);
}

function walkLink(path: string, name: string, depth: number, found: SourceContainer[], seen: Set<string>): void {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (stat?.isDirectory()) walk(path, depth + 1, found, seen);
  else if (stat?.isFile() && isTranscriptName(name)) addFile(path, found, seen);
}

function addFile(path: string, found: SourceContainer[], seen: Set<string>): void {
  if (seen.has(path)) return;
  // May vanish between readdir and stat (a session being rotated): then it is not a container.
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat?.isFile()) return;
  seen.add(path);
  found.push({ source: "claude-code", path, fingerprint: `${stat.size}:${stat.mtimeMs}`, sizeBytes: stat.size });
}

/**
 * The unit of one transcript file. `sessionId` is the file stem: the Claude session id for main files,
 * `agent-<agentId>` for sub-agent files (never equal to a parent's UUID). `locator` carries
 * `isSubagent`, `agentKind` and `parentFromPath` (nested layout only).
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
 */
export function listClaudeUnits(containers: readonly SourceContainer[]): SourceUnit[] {
  const best = new Map<string, SourceContainer>();
  for (const container of containers) {
    const info = describePath(container.path);
    const identity = info.kind === "main" ? info.stem : `${info.parentFromPath ?? basename(dirname(container.path))}/${info.stem}`;
    const current = best.get(identity);
    if (!current || isPreferred(container, current)) best.set(identity, container);
  }
  return [...best.values()].map(unitForContainer);
}

function isPreferred(candidate: SourceContainer, current: SourceContainer): boolean {
  if (candidate.sizeBytes !== current.sizeBytes) return candidate.sizeBytes > current.sizeBytes;
  const mtime = (fingerprint: string) => Number(fingerprint.split(":")[1] ?? 0);
  return mtime(candidate.fingerprint) > mtime(current.fingerprint);
}
