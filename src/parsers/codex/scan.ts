/**
 * Finding Codex rollouts by file stats alone (docs/formats.md §3.1) and naming the unit each becomes.
 * A root is a Codex home (`$CODEX_HOME`, `~/.codex`: only `sessions/` and `archived_sessions/` are walked),
 * a `sessions/` folder, any folder holding rollouts at some depth (copies, sample folders), or one file.
 * Inside a Codex home only `rollout-*.jsonl` are rollouts; elsewhere any `*.jsonl` but `history.jsonl` /
 * `session_index.jsonl` is a candidate, confirmed by `listUnits` from its first line.
 * The home's prompt history `history.jsonl` is listed as one more container (read by ./history.ts, never a rollout).
 * One container = one file. Its fingerprint is the file's stats plus those of the `session_index.jsonl` that
 * titles it, so a rename makes `listUnits` run; the unit's change key then holds only the file's stats and a
 * hash of its own title, so only the renamed thread is re-parsed (and resumed: no new bytes to decode).
 */
import { closeSync, openSync, readSync, statSync, type Stats } from "node:fs";
import { basename, dirname } from "node:path";
import { fsReason, isMissingError, statFingerprint } from "../file-stats.ts";
import { TreeWalk, visitRoots } from "../shared/tree-walk.ts";
import type { ParserHooks, ScanResult, SourceContainer, SourceUnit } from "../types.ts";
import { historyFileName } from "./history.ts";
import { codexHomeOf, readTitles, sessionIndexName, sessionIndexPath } from "./session-index.ts";

/** Folder names never holding rollouts (Codex auxiliary state, vendored trees); the watcher may skip them too. */
export const skippedDirs: ReadonlySet<string> = new Set([
  "node_modules",
  ".git",
  "log",
  "logs",
  "shell_snapshots",
  "plugins",
  "skills",
  "memories",
  "cache",
  "tmp",
  "rules",
  "vendor_imports",
]);

/** Deepest folder level walked below a root. */
export const maxDepth = 16;

/** Side files that are never rollouts. */
const sideFiles = new Set([historyFileName, sessionIndexName]);

const uuidInName = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.jsonl$/i;

/** The thread uuid at the end of a `rollout-<local time>-<uuid>.jsonl` name, or null. */
export function uuidOfName(path: string): string | null {
  const name = basename(path);
  return name.startsWith("rollout-") ? (uuidInName.exec(name)?.[1] ?? null) : null;
}

/** Mutable state of one scan: the shared bookkeeping plus the `session_index.jsonl` stats per Codex home. */
class CodexWalk extends TreeWalk {
  /** `session_index.jsonl` stats per Codex home ("-" when absent), taken once per scan. */
  readonly indexStats = new Map<string, string>();
}

/**
 * Every rollout (candidate) below `roots`, with a stats-only fingerprint
 * `<file stats>|index:<session_index.jsonl stats or ->`.
 * @returns containers unique by file identity, sorted by path; missing roots; unreadable paths (never throws)
 */
export function scanCodexRoots(roots: readonly string[]): ScanResult {
  const walk = new CodexWalk();
  const missingRoots = visitRoots(roots, walk, (root, stat) => {
    if (stat.isDirectory()) walkDir(root, 0, walk, false, stat);
    else if (stat.isFile() && basename(root) === historyFileName) walk.addFileContainer("codex", root);
    else if (stat.isFile() && root.endsWith(".jsonl") && !sideFiles.has(basename(root))) addFile(root, walk, stat);
  });
  return walk.result(missingRoots);
}

function walkDir(dir: string, depth: number, walk: CodexWalk, inHome: boolean, known?: Stats): void {
  const entries = walk.enterDir(dir, known);
  if (!entries) return;
  // A Codex home: only its session folders hold rollouts.
  const homeFolders = entries.filter(
    (entry) =>
      (entry.name === "sessions" || entry.name === "archived_sessions") &&
      (entry.isDirectory() || entry.isSymbolicLink()),
  );
  const history = entries.find((entry) => entry.name === historyFileName && (entry.isFile() || entry.isSymbolicLink()));
  // The prompt history of a Codex home (also one whose rollouts were all deleted: then it is all that is left).
  if (
    history &&
    (homeFolders.length > 0 || basename(dir) === ".codex" || entries.some((entry) => entry.name === sessionIndexName))
  ) {
    walk.addFileContainer("codex", `${dir}/${historyFileName}`);
  }
  if (
    homeFolders.length > 0 &&
    entries.some(
      (entry) => entry.name === sessionIndexName || entry.name === historyFileName || entry.name === "sessions",
    )
  ) {
    for (const folder of homeFolders) walkDir(`${dir}/${folder.name}`, depth + 1, walk, true);
    return;
  }
  const isSessionTree = inHome || basename(dir) === "sessions" || basename(dir) === "archived_sessions";
  for (const entry of entries) {
    const path = `${dir}/${entry.name}`;
    if (entry.isFile() || entry.isSymbolicLink()) {
      if (!entry.name.endsWith(".jsonl") || sideFiles.has(entry.name)) continue;
      if (isSessionTree && !entry.name.startsWith("rollout-")) continue;
      addFile(path, walk);
    }
  }
  if (depth >= maxDepth) return;
  for (const entry of entries) {
    if (entry.isFile() || skippedDirs.has(entry.name)) continue;
    if (entry.isDirectory() || entry.isSymbolicLink()) walkDir(`${dir}/${entry.name}`, depth + 1, walk, isSessionTree);
  }
}

function addFile(path: string, walk: CodexWalk, known?: Stats): void {
  const stat = walk.newFile(path, known);
  if (!stat) return;
  const home = codexHomeOf(path);
  let index = "-";
  if (home !== null) {
    const cached = walk.indexStats.get(home);
    index = cached ?? indexFingerprint(home, walk);
    walk.indexStats.set(home, index);
  }
  walk.addContainer("codex", path, stat, `${statFingerprint(stat)}|index:${index}`);
}

/** Stats of a Codex home's `session_index.jsonl` (titles of every rollout there), watched: a change re-lists them all. */
function indexFingerprint(home: string, walk: CodexWalk): string {
  let stats: Stats | undefined;
  try {
    stats = statSync(sessionIndexPath(home));
  } catch {
    stats = undefined;
  }
  walk.watchPath(sessionIndexPath(home), stats);
  return stats ? statFingerprint(stats) : "-";
}

/** The file part of a container fingerprint (before `|index:`). */
export const fileFingerprintOf = (container: SourceContainer): string =>
  container.fingerprint.split("|index:")[0] as string;

/** Bytes read from the start of a file without a uuid name to find its `session_meta` (first lines run to ~30 KB). */
export const headProbeBytes = 256 * 1024;

/**
 * Thread id of a rollout from its first line (`session_meta.payload.id` / `session_id`, or a legacy
 * header's `id`), or null when the first line is not a Codex header.
 * @throws the fs error when the file cannot be read
 */
export function probeThreadId(path: string): string | null {
  const fd = openSync(path, "r");
  let head: Buffer;
  try {
    const buffer = Buffer.allocUnsafe(headProbeBytes);
    const n = readSync(fd, buffer, 0, headProbeBytes, 0);
    head = buffer.subarray(0, n);
  } finally {
    closeSync(fd);
  }
  const end = head.indexOf(10);
  try {
    const first = JSON.parse(head.toString("utf8", 0, end < 0 ? head.length : end)) as Record<string, unknown>;
    const payload = first.payload as Record<string, unknown> | undefined;
    const id =
      first.type === "session_meta"
        ? (payload?.id ?? payload?.session_id)
        : first.payload === undefined && first.type === undefined
          ? first.id
          : undefined;
    return typeof id === "string" && id.length > 0 ? id : null;
  } catch {
    return null;
  }
}

/**
 * Units of all containers, one per thread. Session id: the uuid of a `rollout-…-<uuid>.jsonl` name (Codex
 * names the file after the thread id, codex-rs/rollout recorder), else the first line's thread id (files
 * whose first line is not a Codex header are not sessions and are left out).
 * An archived and a live copy of one thread (or any two copies) become ONE unit: the larger file wins
 * (rollouts are append-only, so the larger one holds every line of the smaller), then the later mtime,
 * then the live copy (not under `archived_sessions/`).
 * Titles are read once per Codex home from `session_index.jsonl` into `locator.indexTitle`; the change key is
 * `<file stats>|title:<hash of title or ->`; `locator.isArchived` says whether the winner lies in `archived_sessions/`.
 * Unreadable files or indexes are reported through `onUnavailable`.
 */
export function listCodexUnits(containers: readonly SourceContainer[], hooks: ParserHooks = {}): SourceUnit[] {
  const best = new Map<string, { container: SourceContainer; sessionId: string }>();
  for (const container of containers) {
    let sessionId = uuidOfName(container.path);
    if (sessionId === null) {
      try {
        sessionId = probeThreadId(container.path);
      } catch (error) {
        if (isMissingError(error)) continue;
        hooks.onUnavailable?.(container.path, fsReason(error));
        continue;
      }
    }
    if (sessionId === null) continue;
    const current = best.get(sessionId);
    if (!current || isPreferred(container, current.container)) best.set(sessionId, { container, sessionId });
  }
  const titlesByHome = new Map<string, Map<string, string> | null>();
  const units: SourceUnit[] = [];
  for (const { container, sessionId } of best.values()) {
    const home = codexHomeOf(container.path);
    let title: string | null = null;
    if (home !== null) {
      if (!titlesByHome.has(home)) titlesByHome.set(home, loadTitles(home, hooks));
      const titles = titlesByHome.get(home);
      if (titles === null) continue; // index unreadable: keep what is stored, retry next run
      title = titles?.get(sessionId) ?? null;
    }
    const titleKey = title === null ? "-" : Bun.hash(title).toString(16);
    units.push({
      source: "codex",
      key: container.path,
      sessionId,
      containerPath: container.path,
      changeKey: `${fileFingerprintOf(container)}|title:${titleKey}`,
      locator: { indexTitle: title, isArchived: basename(dirname(container.path)) === "archived_sessions" },
    });
  }
  return units;
}

function loadTitles(home: string, hooks: ParserHooks): Map<string, string> | null {
  try {
    return readTitles(home).titles;
  } catch (error) {
    hooks.onUnavailable?.(sessionIndexPath(home), fsReason(error));
    return null;
  }
}

function isPreferred(candidate: SourceContainer, current: SourceContainer): boolean {
  if (candidate.sizeBytes !== current.sizeBytes) return candidate.sizeBytes > current.sizeBytes;
  const mtime = (container: SourceContainer) => Number(container.fingerprint.split(":")[1] ?? 0);
  if (mtime(candidate) !== mtime(current)) return mtime(candidate) > mtime(current);
  return current.path.includes("/archived_sessions/") && !candidate.path.includes("/archived_sessions/");
}
