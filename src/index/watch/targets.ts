/**
 * What the watcher (watch.ts, issue 10) watches for each source root: a few folders, never each file. An
 * inotify (Linux) or FSEvents (macOS) watch on a folder reports writes to the files in it, so folders are
 * enough; chokidar's default would add one watch per session file (≈ 30,000 on the 20k generated corpus).
 * Claude Code: the projects folder and the folders below it, except auxiliary folders and session folders
 * (`<uuid>/` with subagents/ and tool-results/), which are watched only once their own transcript changed
 * while watching ("hot"): a sub-agent runs inside a live session, whose transcript gets the Task call first.
 * OpenCode: each data folder (databases and their -wal), JSON storage (message/ and part/ children only when
 * hot: each new message makes a new part folder), the legacy project/ tree. A root that does not exist yet is
 * "pending": its nearest existing ancestor is watched (that folder only) until the next component appears.
 * Every other agent (Codex CLI, Gemini CLI, Cursor, Aider): the data folder as one tree, folders only, as deep as its
 * parser's watch layout says, and the file names whose writes start a cycle (parsers/types.ts `WatchLayout`; Aider:
 * each project folder alone, depth 0, and histories deeper below an `--aider-dir` root are found by the next search's
 * freshness check instead). Which layout a source has is its parser's to say (issue 39): no source is named here.
 */
import { statSync, type Stats } from "node:fs";
import { basename, dirname, join, resolve, sep } from "node:path";
import {
  claudeMaxDepth,
  claudeSkippedDirs,
  opencodeDbNamePattern,
  parserFor,
  parsers,
  type SourceId,
  type SourceRootMap,
} from "../../parsers/index.ts";

/** How a target's folder relates to its root. */
export type WatchTargetKind =
  | "claude-tree" // a Claude projects folder, or any folder holding transcripts at some depth
  | "claude-file" // the folder of a root that is one .jsonl file
  | "opencode-data" // an OpenCode data folder: its databases and -wal files, not log/, snapshot/, ...
  | "opencode-storage" // a JSON storage folder (formats.md §2.2)
  | "opencode-legacy" // the legacy `project/` tree (formats.md §2.3)
  | "opencode-file" // the folder of a root that is one .db file
  | "agent-tree" // a Codex CLI, Gemini CLI or Cursor data folder (or any folder holding their session files at some depth), or an Aider project folder (depth 0)
  | "pending"; // the nearest existing ancestor of a root that does not exist yet

/** One folder to watch (with chokidar), and why. */
export interface WatchTarget {
  source: SourceId;
  /** The root as configured (absolute). */
  root: string;
  kind: WatchTargetKind;
  /** The folder watched; it existed when the plan was made. */
  path: string;
  /** Folder levels below `path` that are watched (chokidar `depth`); 0 = `path` only. */
  depth: number;
  /** For `*-file` targets, the file; for `pending`, the missing root. */
  file?: string;
}

/** What one file-system event under a target asks for. */
export interface EventEffect {
  /** Something a parser reads changed: run an index cycle (debounced). */
  index: boolean;
  /** The set of folders to watch may have changed (a root or container appeared or vanished): plan again. */
  replan: boolean;
  /** A folder that should now be watched although the plan leaves it out (a session folder, a new message folder). */
  hot?: string;
}

/** OpenCode database names, as the scan finds them. */
const opencodeDbName = opencodeDbNamePattern;

/** A Claude session id: session folders `<id>/` sit next to `<id>.jsonl` (formats.md §1.1). */
const sessionIdName = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const none: EventEffect = { index: false, replan: false };
const indexOnly: EventEffect = { index: true, replan: false };

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    return null;
  }
}

const isDir = (path: string) => statOrNull(path)?.isDirectory() ?? false;

/** True when `path` is `folder` or below it. */
export function isWithin(path: string, folder: string): boolean {
  return path === folder || path.startsWith(folder.endsWith(sep) ? folder : `${folder}${sep}`);
}

/** The nearest existing ancestor folder of a missing path (at worst the file-system root). */
function nearestExistingAncestor(path: string): string {
  let current = dirname(path);
  while (current !== dirname(current) && !isDir(current)) current = dirname(current);
  return current;
}

function pendingTarget(source: SourceId, root: string): WatchTarget {
  return { source, root, kind: "pending", path: nearestExistingAncestor(root), depth: 0, file: root };
}

/** A Claude Code projects root (`WatchLayout` kind `claude-projects`). */
function claudeTargets(source: SourceId, root: string): WatchTarget[] {
  const stats = statOrNull(root);
  if (!stats) return [pendingTarget(source, root)];
  if (stats.isFile())
    return root.endsWith(".jsonl")
      ? [{ source, root, kind: "claude-file", path: dirname(root), depth: 0, file: root }]
      : [];
  // A `.claude` folder: only its projects/ holds transcripts (the scan does the same).
  const projects = join(root, "projects");
  const path = isDir(projects) ? projects : root;
  return [{ source, root, kind: "claude-tree", path, depth: claudeMaxDepth }];
}

/**
 * A root of a source whose parser watches it as one tree (parsers/types.ts `WatchLayout` kind `tree`): the folder
 * `depth` levels deep (a file root: its folder alone); a missing root is waited for unless its layout says it stays gone.
 */
function agentTreeTargets(source: SourceId, root: string): WatchTarget[] {
  const layout = parserFor(source).watch;
  if (layout.kind !== "tree") return [];
  const stats = statOrNull(root);
  if (!stats) return layout.missingRootPending ? [pendingTarget(source, root)] : [];
  if (stats.isFile()) return [{ source, root, kind: "agent-tree", path: dirname(root), depth: 0 }];
  return [{ source, root, kind: "agent-tree", path: root, depth: layout.depth }];
}

/** Whether a write to a file named `name` in an `agent-tree` target of `source` starts an index cycle (its parser says). */
function isAgentSessionFile(source: SourceId, name: string): boolean {
  const layout = parserFor(source).watch;
  return layout.kind === "tree" && layout.isSessionFile(name);
}

/** An OpenCode data, storage or legacy root (`WatchLayout` kind `opencode-data`). */
function opencodeTargets(source: SourceId, root: string): WatchTarget[] {
  const stats = statOrNull(root);
  if (!stats) return [pendingTarget(source, root)];
  if (stats.isFile())
    return root.endsWith(".db")
      ? [{ source, root, kind: "opencode-file", path: dirname(root), depth: 0, file: root }]
      : [];
  if (basename(root) === "storage") {
    const legacy = /[\\/]project[\\/][^\\/]+[\\/]storage$/.test(root);
    return [
      {
        source,
        root,
        kind: legacy ? "opencode-legacy" : "opencode-storage",
        path: root,
        depth: legacy ? claudeMaxDepth : 2,
      },
    ];
  }
  // The folders a root may stand for, as the scan reads them: itself, <root>/opencode, <root>/.local/share/opencode.
  const dirs = [root, ...[join(root, "opencode"), join(root, ".local", "share", "opencode")].filter(isDir)];
  return dirs.flatMap((dir): WatchTarget[] => [
    { source, root, kind: "opencode-data", path: dir, depth: 0 },
    ...(isDir(join(dir, "storage"))
      ? [{ source, root, kind: "opencode-storage" as const, path: join(dir, "storage"), depth: 2 }]
      : []),
    ...(isDir(join(dir, "project"))
      ? [
          {
            source,
            root,
            kind: "opencode-legacy" as const,
            path: join(dir, "project"),
            depth: claudeMaxDepth,
          },
        ]
      : []),
  ]);
}

/** The targets of one root, by the watch layout its source's parser declares. */
function targetsOf(source: SourceId, root: string): WatchTarget[] {
  const layout = parserFor(source).watch;
  switch (layout.kind) {
    case "claude-projects":
      return claudeTargets(source, root);
    case "opencode-data":
      return opencodeTargets(source, root);
    case "tree":
      return agentTreeTargets(source, root);
    default:
      return layout satisfies never;
  }
}

/**
 * The folders to watch for the given roots, from their current state on disk (a few stats per root).
 * Targets are unique by kind and path; roots that are files of another type (not .jsonl / .db) get none.
 * Example: `{ "claude-code": ["~/.claude/projects"], opencode: ["~/.local/share/opencode"] }` with both
 * present → a `claude-tree` at projects/ (depth 16) and an `opencode-data` at the data folder (depth 0);
 * with the OpenCode one missing → a `pending` target at `~/.local/share` (depth 0).
 */
export function planWatchTargets(roots: SourceRootMap): WatchTarget[] {
  const all = parsers.flatMap((parser) =>
    (roots[parser.id] ?? []).map((root) => resolve(root)).flatMap((root) => targetsOf(parser.id, root)),
  );
  const seen = new Set<string>();
  return all.filter((target) => {
    const key = targetKey(target);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/** Identity of a target: two plans that yield the same key watch the same thing. */
export function targetKey(target: WatchTarget): string {
  return `${target.source}\t${target.kind}\t${target.path}\t${target.file ?? ""}`;
}

/**
 * The chokidar `ignored` predicate of a target: true for what must not be watched. Files are never watched
 * (their folder's watch reports them); `stats` is absent on chokidar's first, name-only check.
 * @param hot folders watched because they became active while watching
 * @param recallHome never watched, so the index's own writes cannot trigger a cycle
 */
export function isIgnored(
  target: WatchTarget,
  path: string,
  stats: Stats | undefined,
  hot: ReadonlySet<string>,
  recallHome: string,
): boolean {
  if (path === target.path) return false;
  if (isWithin(path, recallHome)) return true;
  if (stats && !stats.isDirectory()) return true;
  switch (target.kind) {
    case "claude-tree": {
      const name = basename(path);
      if (claudeSkippedDirs.has(name)) return true;
      return sessionIdName.test(name) && !hot.has(path);
    }
    case "opencode-storage": {
      const parent = dirname(path);
      return (parent === join(target.path, "message") || parent === join(target.path, "part")) && !hot.has(path);
    }
    case "opencode-legacy":
      return false;
    case "agent-tree":
      return claudeSkippedDirs.has(basename(path));
    case "claude-file":
    case "opencode-data":
    case "opencode-file":
    case "pending":
      return true; // the folder itself only
    default:
      return target.kind satisfies never;
  }
}

/**
 * What an event on `path` (a file or folder inside, or equal to, `target.path`) asks for.
 * Examples (claude-tree at /p): `/p/x/<uuid>.jsonl` → index, hot `/p/x/<uuid>`; `/p/x/sessions-index.json` → nothing;
 * `/p` itself (vanished) → replan. opencode-data at /d: `/d/opencode.db-wal` → index; `/d/opencode.db-shm` and
 * `/d/log/...` → nothing; `/d/storage` → index and replan. pending for /h/.claude/projects at /h: `/h/.claude` → replan.
 */
export function eventEffect(target: WatchTarget, path: string): EventEffect {
  if (path === target.path && target.kind !== "pending") return { index: true, replan: true };
  const name = basename(path);
  switch (target.kind) {
    case "claude-tree": {
      if (name.endsWith(".jsonl")) {
        if (name === "history.jsonl") return none;
        const stem = name.slice(0, -6);
        return sessionIdName.test(stem) ? { index: true, replan: false, hot: join(dirname(path), stem) } : indexOnly;
      }
      if (name.endsWith(".meta.json")) return indexOnly;
      // projects/ appeared in a `.claude` root watched as a whole: watch projects/ instead (as the scan reads it).
      if (name === "projects" && dirname(path) === target.root && target.path === target.root)
        return { index: true, replan: true };
      // A session folder appeared or changed (subagents/ or tool-results/ being created): its session is active.
      if (sessionIdName.test(name)) return { index: true, replan: false, hot: path };
      // A folder appeared or vanished (names of folders that may hold transcripts carry no dot).
      return !name.includes(".") && !claudeSkippedDirs.has(name) ? indexOnly : none;
    }
    case "claude-file":
    case "opencode-file":
      return path === target.file || path === `${target.file}-wal` ? indexOnly : none;
    case "opencode-data":
      if (dirname(path) !== target.path) return none;
      if (opencodeDbName.test(name) || (name.endsWith("-wal") && opencodeDbName.test(name.slice(0, -4))))
        return indexOnly;
      return ["storage", "project", "opencode", ".local"].includes(name) ? { index: true, replan: true } : none;
    case "opencode-storage": {
      const parent = dirname(path);
      if (parent === join(target.path, "message") || parent === join(target.path, "part"))
        return { index: true, replan: false, hot: path };
      return name.endsWith(".json") || !name.includes(".") ? indexOnly : none;
    }
    case "opencode-legacy":
      return name.endsWith(".json") || !name.includes(".") ? indexOnly : none;
    case "agent-tree":
      if (isAgentSessionFile(target.source, name)) return indexOnly;
      return target.depth > 0 && !name.includes(".") ? indexOnly : none; // a folder appeared in a watched tree
    case "pending": {
      // Only the next component of the missing root matters; its arrival moves the watch down (or to the root).
      const missing = target.file!;
      return path === target.path || (isWithin(missing, path) && dirname(path) === target.path)
        ? { index: false, replan: true }
        : none;
    }
    default:
      return target.kind satisfies never;
  }
}
