/**
 * Finding Claude Code transcripts by file stats alone (docs/formats.md §1.1, §1.8, §1.10) and naming
 * the unit each one becomes. A root is a `.claude` folder (only its `projects/` is walked), a
 * `projects` folder, any copy or archive of them (transcripts at any depth), or one `.jsonl` file.
 * Side files are never sessions: `history.jsonl`, `*.json` (sessions-index, meta, todos), `memory/*.md`,
 * `tool-results/`, `file-history/` and the other auxiliary folders are skipped by name.
 */
import { readdirSync, statSync, type Dirent } from "node:fs";
import { basename, dirname, join } from "node:path";
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
 * @returns containers sorted by path and deduplicated (overlapping roots), plus the roots that do not
 *   exist or cannot be read. Never throws; unreadable sub-folders are skipped.
 */
export function scanClaudeRoots(roots: readonly string[]): ScanResult {
  const found = new Map<string, SourceContainer>();
  const missingRoots: string[] = [];
  for (const root of roots) {
    let isDirectory: boolean;
    try {
      isDirectory = statSync(root).isDirectory();
    } catch {
      missingRoots.push(root);
      continue;
    }
    if (isDirectory) walk(root, 0, found);
    else if (isTranscriptName(basename(root))) addFile(root, found);
  }
  const containers = [...found.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { containers, missingRoots };
}

function isTranscriptName(name: string): boolean {
  return name.endsWith(".jsonl") && name !== "history.jsonl";
}

function walk(dir: string, depth: number, found: Map<string, SourceContainer>): void {
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  // A `.claude` folder (or a root holding `projects/`): only `projects/` holds transcripts.
  const projects = entries.find((entry) => entry.name === "projects" && (entry.isDirectory() || entry.isSymbolicLink()));
  if (projects && (depth === 0 || basename(dir) === ".claude")) {
    walk(join(dir, "projects"), depth + 1, found);
    return;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    if (entry.isFile()) {
      if (isTranscriptName(entry.name)) addFile(path, found);
    } else if (entry.isDirectory() || entry.isSymbolicLink()) {
      if (skippedDirs.has(entry.name) || depth >= maxDepth) continue;
      if (entry.isSymbolicLink() && !isDirectoryPath(path)) {
        if (isTranscriptName(entry.name)) addFile(path, found);
        continue;
      }
      walk(path, depth + 1, found);
    }
  }
}

function isDirectoryPath(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function addFile(path: string, found: Map<string, SourceContainer>): void {
  if (found.has(path)) return;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) return;
    found.set(path, { source: "claude-code", path, fingerprint: `${stat.size}:${stat.mtimeMs}`, sizeBytes: stat.size });
  } catch {
    // Vanished between readdir and stat (a session being rotated): not a container.
  }
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
