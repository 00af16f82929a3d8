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
import { statSync, type Stats } from "node:fs";
import { basename, dirname } from "node:path";
import { fsReason, isMissingError, statFingerprint } from "../file-stats.ts";
import { rejectFile } from "../shared/skips.ts";
import { rescanPlaced, TreeWalk, visitRoots } from "../shared/tree-walk.ts";
import { readHead } from "../shared/read-head.ts";
import type { ParserHooks, ScanResult, SourceContainer, SourceUnit, WatchedPath } from "../types.ts";
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

/**
 * Walk again the changed folders of the last whole walk of `roots` (Parser.rescanFolders, issue 42: a new rollout
 * changes only its `sessions/YYYY/MM/DD/` folder), each at its depth below its root and inside a session tree when a
 * folder from the root down to it is `sessions/` or `archived_sessions/`, as the whole walk entered it.
 * @returns the containers and watched paths below those folders, or undefined when a folder is a root or lies below
 *   no root or two: only a whole walk is exact then
 */
export function rescanCodexFolders(roots: readonly string[], folders: readonly WatchedPath[]): ScanResult | undefined {
  const walk = new CodexWalk();
  return rescanPlaced(walk, roots, folders, (folder, place) => {
    const above = [basename(place.root), ...place.names.slice(0, -1)];
    const inSessionTree = above.some((name) => name === "sessions" || name === "archived_sessions");
    walkDir(folder.path, place.names.length, walk, inSessionTree);
  });
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

/** Bytes read first from a rollout's start to find its header line (a `session_meta` line runs to ~30 KB, §3.2). */
export const headFirstBytes = 8 * 1024;

/** Most bytes read to find the end of the first line (more only decides by the line's opening keys). */
export const headProbeBytes = 256 * 1024;

/** What a candidate file's first JSON line says. */
export type RolloutHead =
  /** A Codex header: `session_meta` (`payload.id` / `session_id`) or a legacy unwrapped `{id, timestamp, …}` (§3.3). */
  | { kind: "header"; threadId: string | null }
  /** Nothing but whitespace. */
  | { kind: "empty" }
  /** Its first JSON line is something else (another tool's JSONL, a rollout that lost its header). */
  | { kind: "other" };

/** The opening of a `session_meta` line (serde writes `timestamp`, optionally `ordinal`, then `type`). */
const sessionMetaOpening =
  /^\{\s*"timestamp"\s*:\s*"[^"]*"\s*,\s*(?:"ordinal"\s*:\s*\d+\s*,\s*)?"type"\s*:\s*"session_meta"/;
const payloadIdOpening =
  /"payload"\s*:\s*\{\s*(?:"session_id"\s*:\s*"[^"]*"\s*,\s*)?"(?:id|session_id)"\s*:\s*"([^"]+)"/;
const legacyOpening = /^\{\s*"id"\s*:\s*"([^"]+)"/;

/**
 * The first JSON line of a candidate file, as the parse will read it: blank lines and lines that are not JSON are
 * passed over (the parse skips them too). A first line longer than {@link headProbeBytes} is judged by its opening; an
 * unfinished last line at the end of the file (no "\n", not yet JSON) is the header being written.
 * Examples: `{"timestamp":"…","type":"session_meta","payload":{"id":"019c…"}}` → header `019c…`;
 *   `{"id":"0198…","timestamp":"…","instructions":"…"}` → header `0198…`; `{"type":"user",…}` → other; `` → empty.
 * @throws the fs error when the file cannot be read
 */
export function probeRolloutHead(path: string): RolloutHead {
  let head = readHead(path, headFirstBytes);
  if (!head.whole && !head.text.includes("\n")) head = readHead(path, headProbeBytes);
  const lines = head.text.split("\n");
  let blank = true;
  for (const [index, raw] of lines.entries()) {
    const line = raw.trim();
    if (line.length === 0) continue;
    blank = false;
    const isLast = index === lines.length - 1; // no "\n" after it: cut by the read, or still being written
    if (isLast && !head.whole) return headerByOpening(line);
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      if (!isLast) continue; // a broken line: the parse skips it too
      // The header being written (Codex writes it first): taken as the header to come, the parse reads it when whole.
      const opening = headerByOpening(line);
      return opening.kind === "header" ? opening : { kind: "header", threadId: null };
    }
    return headerOf(value);
  }
  return blank && head.whole ? { kind: "empty" } : { kind: "other" };
}

function headerOf(value: unknown): RolloutHead {
  const line =
    value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const payload = line.payload as Record<string, unknown> | undefined;
  const idOf = (id: unknown) => (typeof id === "string" && id.length > 0 ? id : null);
  if (line.type === "session_meta") return { kind: "header", threadId: idOf(payload?.id) ?? idOf(payload?.session_id) };
  if (line.payload === undefined && line.type === undefined && idOf(line.id) !== null)
    return { kind: "header", threadId: idOf(line.id) };
  return { kind: "other" };
}

function headerByOpening(line: string): RolloutHead {
  if (sessionMetaOpening.test(line)) return { kind: "header", threadId: payloadIdOpening.exec(line)?.[1] ?? null };
  const legacy = legacyOpening.exec(line);
  return legacy ? { kind: "header", threadId: legacy[1] as string } : { kind: "other" };
}

/**
 * Units of all containers, one per thread. Session id: the uuid of a `rollout-…-<uuid>.jsonl` name (Codex
 * names the file after the thread id, codex-rs/rollout recorder), else the header's thread id.
 * A file whose first JSON line is no Codex header holds no thread (Codex's own listing leaves such files out too) and
 * is reported through `onRejected` (issue 26): `empty file`, `no session_meta line`, or `no thread id` for a header
 * without an id in a file not named after its thread.
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
    let head: RolloutHead;
    try {
      head = probeRolloutHead(container.path);
    } catch (error) {
      if (!isMissingError(error)) hooks.onUnavailable?.(container.path, fsReason(error));
      continue;
    }
    const sessionId = head.kind === "header" ? (uuidOfName(container.path) ?? head.threadId) : null;
    if (sessionId === null) {
      rejectFile(hooks, container.path, rejectionOf(head));
      continue;
    }
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

/** Why a file with this head holds no thread (one phrase per cause). */
function rejectionOf(head: RolloutHead): string {
  if (head.kind === "empty") return "empty file";
  return head.kind === "header" ? "no thread id" : "no session_meta line";
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
