/**
 * The freshness rule (issue 14): how a search (and `recall index`) finds what changed without walking a history of
 * tens of thousands of files every time. Most sessions never change once they are a day old; the live one is appended
 * to every few seconds. So a source whose parser can re-stat single containers (`Parser.scansContainerPaths`: Claude
 * Code, Codex, Gemini CLI) is checked in three parts:
 *   1. every folder its last whole scan read, every root and every probed side file (`watched_paths`, written by the
 *      walk): creating, deleting or renaming an entry changes its folder's mtime and ctime on Linux and macOS, so an
 *      unchanged folder means no session file appeared, vanished or was replaced there. A folder owned by one session
 *      (Claude Code `<session>/subagents/`) is checked while that session is recent. A folder that differs (a new
 *      session, a deleted one, a rewrite by rename) is walked again alone when the parser can do that exactly
 *      (`Parser.rescanFolders`, issue 42: a new session at 20,000 costs one project folder, not the history), else the
 *      source is walked whole;
 *   2. every container modified in the last {@link freshnessDefaults.recentWindowMs} (24 h) is re-stat'ed: an
 *      append to a live or recent session is found by the next search and re-indexed from its stored state alone.
 *      When a prompt history (`history.jsonl`) grew, the transcripts of the sessions its new lines name are
 *      re-stat'ed too, however old: a session resumed weeks later is found by the next search;
 *   3. a whole scan when the last one is older than the interval (10 minutes, RECALL_FULL_SCAN_INTERVAL_MS; 0 = always),
 *      when the roots differ from the last whole scan's, or when a container must be retried: this is what finds an
 *      append to a file that had been quiet for a day (a session resumed much later), at most one interval late.
 * Other sources (OpenCode's database, Cursor's and Aider's few files) are scanned whole every time: a handful of stats;
 * OpenCode's JSON storage two stats for each session quiet for a day (opencode/scan.ts `storageRecentWindowMs`).
 * Appending to a file never changes its folder's mtime: that is why part 2 exists. File systems with 1-second
 * timestamps are handled by never trusting a folder whose mtime is within 2 s of its scan (tree-walk.ts).
 */
import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import type { Parser, SourceContainer, WatchedPath } from "../../parsers/index.ts";
import { watchedFingerprint } from "../../parsers/index.ts";
import {
  digestMetaKey,
  isAtOrBelow,
  loadStoredContainersBelow,
  readWholeScanState,
  splitDigest,
} from "./containers.ts";
import { readMeta, withMetaSnapshot } from "../schema.ts";

/** Windows of the freshness rule, in ms. */
export const freshnessDefaults = {
  /** A container modified this recently is re-stat'ed by every check (24 h). */
  recentWindowMs: 24 * 60 * 60 * 1000,
  /** A whole scan is due when the last one is older than this (10 min); env RECALL_FULL_SCAN_INTERVAL_MS overrides. */
  fullScanIntervalMs: 10 * 60 * 1000,
} as const;

/** The whole-scan interval in ms from RECALL_FULL_SCAN_INTERVAL_MS (a whole number ≥ 0), else the default. */
export function fullScanIntervalMs(env: Record<string, string | undefined> = process.env): number {
  const value = Number(env.RECALL_FULL_SCAN_INTERVAL_MS);
  return env.RECALL_FULL_SCAN_INTERVAL_MS !== undefined && Number.isInteger(value) && value >= 0
    ? value
    : freshnessDefaults.fullScanIntervalMs;
}

/** Options of {@link quickCheck}. */
export interface QuickCheckOptions {
  /** Current time, epoch ms (tests move it). */
  nowMs: number;
  /** See {@link fullScanIntervalMs}. */
  fullScanIntervalMs: number;
  /** Containers modified within this many ms are re-stat'ed; default {@link freshnessDefaults.recentWindowMs}. */
  recentWindowMs?: number;
  /** Paths known to have changed (the watcher's events): re-stat'ed when they are stored containers, recent or not. */
  changedPaths?: readonly string[];
}

/** A container whose fingerprint moved, or that appeared in a folder walked again, with the stored row it replaces. */
export interface ChangedContainer {
  container: SourceContainer;
  /** The stored fingerprint; undefined for a container not stored before (new in a folder walked again). */
  previousFingerprint: string | undefined;
}

/** What walking the changed folders again found (Parser.rescanFolders). */
export interface FolderRescan {
  /** The folders walked again (paths of changed watched rows; their stored rows below them are replaced). */
  folders: string[];
  /** The walk's watched paths: stored in place of those at or below {@link folders}. */
  watched: WatchedPath[];
  /** Stored containers below those folders that the walk did not find (their sessions are marked deleted, kept). */
  vanished: SourceContainer[];
}

/** Outcome of {@link quickCheck} for one source. */
export type QuickCheck =
  | { kind: "unchanged"; checkedContainers: number; wholeScanAt: number }
  /** Containers moved, appeared or vanished, or folders changed (`rescan`, whose new stats must be stored). */
  | { kind: "changed"; changed: ChangedContainer[]; wholeScanAt: number; rescan?: FolderRescan }
  /** The source must be scanned whole; `reason` says why (for tests and the bench). */
  | {
      kind: "whole";
      reason: "no quick check" | "roots changed" | "due" | "retry" | "folder changed" | "container vanished";
    };

/**
 * Check one source by the rule above, reading the index and stat'ing paths only (never writes).
 * @param roots the source's roots as the index run scans them
 * @returns `unchanged`, `changed` with the re-stat'ed containers whose fingerprints moved (and what walking the
 *   changed folders again found), or `whole` when only a whole scan can tell
 */
export function quickCheck(
  db: Database,
  parser: Parser,
  roots: readonly string[],
  options: QuickCheckOptions,
): QuickCheck {
  if (!parser.scansContainerPaths) return { kind: "whole", reason: "no quick check" };
  const state = readWholeScanState(db, parser.id);
  if (!state || state.roots.length !== roots.length || state.roots.some((root, i) => root !== roots[i]))
    return { kind: "whole", reason: "roots changed" };
  if (options.nowMs - state.at >= options.fullScanIntervalMs || options.nowMs < state.at)
    return { kind: "whole", reason: "due" };
  if (splitDigest(readMeta(db, digestMetaKey(parser.id)))?.retry !== false) return { kind: "whole", reason: "retry" };

  const recentSince = options.nowMs - (options.recentWindowMs ?? freshnessDefaults.recentWindowMs);
  const recent = db
    .query<StoredRow, [string, number]>(
      "SELECT path, fingerprint, size_bytes FROM containers WHERE source = ? AND mtime_ms >= ?",
    )
    .all(parser.id, recentSince);
  const toCheck = new Map(recent.map((row) => [row.path, row]));
  if (options.changedPaths && options.changedPaths.length > 0) {
    for (const row of storedRows(db, parser, "path", options.changedPaths)) toCheck.set(row.path, row);
  }

  // Folders first: a file added, removed or renamed in one means walking it again, or the whole source.
  const always = db
    .query<WatchedRow, [string]>(
      "SELECT path, fingerprint, owner FROM watched_paths WHERE source = ? AND owner IS NULL",
    )
    .all(parser.id);
  const changedFolders = always.filter((row) => currentFingerprint(row.path) !== row.fingerprint);
  changedFolders.push(...changedOwnedFolders(db, parser, toCheck.keys()));
  const changed: ChangedContainer[] = [];
  let rescan: FolderRescan | undefined;
  if (changedFolders.length > 0) {
    const walked = rescanFolders(db, parser, roots, changedFolders);
    if (walked === undefined) return { kind: "whole", reason: "folder changed" };
    rescan = walked.rescan;
    changed.push(...walked.changed);
    for (const path of walked.covered) toCheck.delete(path);
  }

  const moved = restat(parser, toCheck);
  if (moved === undefined) return { kind: "whole", reason: "container vanished" };
  changed.push(...moved);
  // A prompt history that grew names the sessions typed in: re-stat their transcripts too, however old (a resume).
  const named = moved.flatMap(
    ({ container }) => parser.sessionsTypedSince?.(container, toCheck.get(container.path)!.size_bytes) ?? [],
  );
  if (named.length > 0) {
    const known = new Set(changed.map(({ container }) => container.path));
    for (const gone of rescan?.vanished ?? []) known.add(gone.path);
    const resumed = new Map(
      storedRows(db, parser, "session", named)
        .filter((row) => !toCheck.has(row.path) && !known.has(row.path))
        .map((row) => [row.path, row]),
    );
    if (changedOwnedFolders(db, parser, resumed.keys()).length > 0) return { kind: "whole", reason: "folder changed" };
    const more = restat(parser, resumed);
    if (more === undefined) return { kind: "whole", reason: "container vanished" };
    changed.push(...more);
    for (const [path, row] of resumed) toCheck.set(path, row);
  }
  return changed.length > 0 || rescan !== undefined
    ? { kind: "changed", changed, wholeScanAt: state.at, rescan }
    : { kind: "unchanged", checkedContainers: toCheck.size, wholeScanAt: state.at };
}

/** A `watched_paths` row as the quick check reads it. */
interface WatchedRow {
  path: string;
  fingerprint: string;
  owner: string | null;
}

/**
 * Walk the changed folders again (Parser.rescanFolders) and compare what is below them with the stored containers.
 * @returns the containers that appeared or moved there, the rescan to store, and every container path the walk
 *   decided (found or vanished: not re-stat'ed again); undefined when only a whole walk can tell (no rescan for this
 *   parser, a changed path that is not a folder now or was missing before, a folder that cannot be read)
 */
function rescanFolders(
  db: Database,
  parser: Parser,
  roots: readonly string[],
  rows: readonly WatchedRow[],
): { changed: ChangedContainer[]; rescan: FolderRescan; covered: string[] } | undefined {
  if (!parser.rescanFolders) return undefined;
  // A root or side file that appeared or went, or a folder that is gone or became a file: walk whole.
  if (rows.some((row) => row.owner === null && (row.fingerprint === "-" || !isFolder(row.path)))) return undefined;
  const folders: WatchedPath[] = rows.map((row) =>
    row.owner === null ? { path: row.path, fingerprint: row.fingerprint } : { ...row, owner: row.owner },
  );
  const scan = parser.rescanFolders(roots, folders);
  if (scan === undefined || scan.unavailable.length > 0) return undefined;
  const stored = new Map<string, StoredRow>();
  for (const folder of folders)
    for (const row of loadStoredContainersBelow(db, parser.id, `${folder.path}/`))
      stored.set(row.path, { path: row.path, fingerprint: row.fingerprint, size_bytes: row.sizeBytes });
  const outside = scan.containers.filter((container) => !stored.has(container.path)).map((entry) => entry.path);
  for (const row of storedRows(db, parser, "path", outside)) stored.set(row.path, row);
  const found = new Set(scan.containers.map((container) => container.path));
  const changed: ChangedContainer[] = scan.containers
    .filter((container) => stored.get(container.path)?.fingerprint !== container.fingerprint)
    .map((container) => ({ container, previousFingerprint: stored.get(container.path)?.fingerprint }));
  const vanished = [...stored.values()]
    .filter((row) => !found.has(row.path))
    .map((row) => ({ source: parser.id, path: row.path, fingerprint: row.fingerprint, sizeBytes: row.size_bytes }));
  // Only what lies at or below the folders: a side file the walk also probed (Codex's session_index.jsonl) titles
  // containers elsewhere, whose fingerprints were not taken again, so its stored stats must stay as they were.
  const watched = (scan.watched ?? []).filter((entry) => isAtOrBelow(entry.path, folders));
  return {
    changed,
    rescan: { folders: folders.map((folder) => folder.path), watched, vanished },
    covered: [...found, ...vanished.map((container) => container.path)],
  };
}

/** True when `path` is a folder now (links followed). */
function isFolder(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
  } catch {
    return false;
  }
}

/** A stored container row, as the quick check reads it. */
interface StoredRow {
  path: string;
  fingerprint: string;
  size_bytes: number;
}

/** Stored container rows of a source by their paths, or those holding the transcripts of the given session ids (by path and session_id indexes: `+source` keeps SQLite off the source ones). */
function storedRows(db: Database, parser: Parser, by: "path" | "session", values: readonly string[]): StoredRow[] {
  const sql =
    by === "path"
      ? "SELECT path, fingerprint, size_bytes FROM containers WHERE path IN (SELECT value FROM json_each(?2)) AND +source = ?1"
      : `SELECT path, fingerprint, size_bytes FROM containers WHERE +source = ?1 AND path IN
         (SELECT container_path FROM sessions WHERE session_id IN (SELECT value FROM json_each(?2)) AND +source = ?1 AND prompt_only = 0)`; // by the session_id index
  return db.query<StoredRow, [string, string]>(sql).all(parser.id, JSON.stringify([...new Set(values)]));
}

/** The watched folders owned by these containers (a Claude Code session's `subagents/`) whose stats changed. */
function changedOwnedFolders(db: Database, parser: Parser, owners: Iterable<string>): WatchedRow[] {
  const owned = db.query<WatchedRow, [string, string]>(
    "SELECT path, fingerprint, owner FROM watched_paths WHERE source = ? AND owner = ?",
  );
  const changed: WatchedRow[] = [];
  for (const owner of owners)
    for (const row of owned.all(parser.id, owner))
      if (currentFingerprint(row.path) !== row.fingerprint) changed.push(row);
  return changed;
}

/**
 * Re-stat stored containers one by one (Parser.restatContainers, else `scan` of their paths).
 * @returns those whose fingerprint moved, or undefined when one vanished, cannot be read or is listed under another path
 */
function restat(parser: Parser, rows: ReadonlyMap<string, StoredRow>): ChangedContainer[] | undefined {
  if (rows.size === 0) return [];
  const containers = currentRecords(parser, [...rows.keys()]);
  if (containers === undefined || containers.length !== rows.size) return undefined;
  const changed: ChangedContainer[] = [];
  for (const container of containers) {
    const previous = rows.get(container.path);
    if (previous === undefined) return undefined;
    if (previous.fingerprint !== container.fingerprint)
      changed.push({ container, previousFingerprint: previous.fingerprint });
  }
  return changed;
}

/** The current records of stored containers by their paths; undefined when one cannot be read now. */
function currentRecords(parser: Parser, paths: string[]): SourceContainer[] | undefined {
  if (parser.restatContainers) return parser.restatContainers(paths);
  const scan = parser.scan(paths);
  return scan.unavailable.length > 0 ? undefined : scan.containers;
}

/** The fingerprint a watched path has now, as the walk stores it: `-` when missing, `!` when it cannot be stat'ed. */
function currentFingerprint(path: string): string {
  try {
    const stats = statSync(path, { throwIfNoEntry: false });
    return stats ? watchedFingerprint(stats) : "-";
  } catch {
    return "!";
  }
}

/** How current an answer's index is (the search JSON's `index` field). */
export interface IndexFreshness {
  /** When the last index run committed, epoch ms, or null. */
  indexedAt: number | null;
  /**
   * When the sources checked quickly were last scanned whole, epoch ms (the oldest of them), or null when none was:
   * an in-place change made since then to a file quiet for a day is not in the index yet (see the rule above).
   */
  fullScanAt: number | null;
  /** True when the freshness check ran before this answer (false with `--no-reindex`). */
  checked: boolean;
}

/** Read {@link IndexFreshness} from the index (meta rows, read at once, and the watched sources). */
export function readIndexFreshness(db: Database, checked: boolean): IndexFreshness {
  return withMetaSnapshot(db, () => readIndexFreshnessNow(db, checked));
}

function readIndexFreshnessNow(db: Database, checked: boolean): IndexFreshness {
  const indexedAt = Number(readMeta(db, "last_indexed_at") ?? Number.NaN);
  const quickSources = db.query<{ source: string }, []>("SELECT DISTINCT source FROM watched_paths").all();
  const scans = quickSources
    .map((row) => readWholeScanState(db, row.source as Parser["id"])?.at)
    .filter((at): at is number => at !== undefined);
  return {
    indexedAt: Number.isFinite(indexedAt) ? indexedAt : null,
    fullScanAt: scans.length > 0 ? Math.min(...scans) : null,
    checked,
  };
}
