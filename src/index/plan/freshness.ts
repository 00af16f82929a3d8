/**
 * The freshness rule (issue 14): how a search (and `recall index`) finds what changed without walking a history of
 * tens of thousands of files every time. Most sessions never change once they are a day old; the live one is appended
 * to every few seconds. So a source whose parser can re-stat single containers (`Parser.scansContainerPaths`: Claude
 * Code, Codex, Gemini CLI) is checked in three parts:
 *   1. every folder its last whole scan read, every root and every probed side file (`watched_paths`, written by the
 *      walk): creating, deleting or renaming an entry changes its folder's mtime and ctime on Linux and macOS, so an
 *      unchanged folder means no session file appeared, vanished or was replaced there. A folder owned by one session
 *      (Claude Code `<session>/subagents/`) is checked while that session is recent. Any difference: the source is
 *      walked whole (a new session, a deleted one, a rewrite by rename);
 *   2. every container modified in the last {@link freshnessDefaults.recentWindowMs} (24 h) is re-stat'ed: an
 *      append to a live or recent session is found by the next search and re-indexed from its stored state alone.
 *      When a prompt history (`history.jsonl`) grew, the transcripts of the sessions its new lines name are
 *      re-stat'ed too, however old: a session resumed weeks later is found by the next search;
 *   3. a whole scan when the last one is older than the interval (10 minutes, RECALL_FULL_SCAN_INTERVAL_MS; 0 = always),
 *      when the roots differ from the last whole scan's, or when a container must be retried: this is what finds an
 *      append to a file that had been quiet for a day (a session resumed much later), at most one interval late.
 * Other sources (OpenCode's database, Cursor's and Aider's few files) are scanned whole every time: a handful of stats.
 * Appending to a file never changes its folder's mtime: that is why part 2 exists. File systems with 1-second
 * timestamps are handled by never trusting a folder whose mtime is within 2 s of its scan (tree-walk.ts).
 */
import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import type { Parser, SourceContainer } from "../../parsers/index.ts";
import { watchedFingerprint } from "../../parsers/index.ts";
import { digestMetaKey, readWholeScanState, splitDigest } from "./containers.ts";
import { readMeta } from "../schema.ts";

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

/** A container whose fingerprint moved, with the stored row it replaces. */
export interface ChangedContainer {
  container: SourceContainer;
  previousFingerprint: string;
}

/** Outcome of {@link quickCheck} for one source. */
export type QuickCheck =
  | { kind: "unchanged"; checkedContainers: number; wholeScanAt: number }
  | { kind: "changed"; changed: ChangedContainer[]; wholeScanAt: number }
  /** The source must be scanned whole; `reason` says why (for tests and the bench). */
  | {
      kind: "whole";
      reason: "no quick check" | "roots changed" | "due" | "retry" | "folder changed" | "container vanished";
    };

/**
 * Check one source by the rule above, reading the index and stat'ing paths only (never writes).
 * @param roots the source's roots as the index run scans them
 * @returns `unchanged`, `changed` with the re-stat'ed containers whose fingerprints moved, or `whole` when only a
 *   whole scan can tell
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

  // Folders first: a file added, removed or renamed anywhere means a walk, whatever the containers say.
  const always = db
    .query<{ path: string; fingerprint: string }, [string]>(
      "SELECT path, fingerprint FROM watched_paths WHERE source = ? AND owner IS NULL",
    )
    .all(parser.id);
  for (const row of always)
    if (currentFingerprint(row.path) !== row.fingerprint) return { kind: "whole", reason: "folder changed" };
  if (ownedFolderChanged(db, parser, toCheck.keys())) return { kind: "whole", reason: "folder changed" };

  const changed = restat(parser, toCheck);
  if (changed === undefined) return { kind: "whole", reason: "container vanished" };
  // A prompt history that grew names the sessions typed in: re-stat their transcripts too, however old (a resume).
  const named = changed.flatMap(
    ({ container }) => parser.sessionsTypedSince?.(container, toCheck.get(container.path)!.size_bytes) ?? [],
  );
  if (named.length > 0) {
    const resumed = new Map(
      storedRows(db, parser, "session", named)
        .filter((row) => !toCheck.has(row.path))
        .map((row) => [row.path, row]),
    );
    if (ownedFolderChanged(db, parser, resumed.keys())) return { kind: "whole", reason: "folder changed" };
    const more = restat(parser, resumed);
    if (more === undefined) return { kind: "whole", reason: "container vanished" };
    changed.push(...more);
    for (const [path, row] of resumed) toCheck.set(path, row);
  }
  return changed.length > 0
    ? { kind: "changed", changed, wholeScanAt: state.at }
    : { kind: "unchanged", checkedContainers: toCheck.size, wholeScanAt: state.at };
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

/** True when a folder owned by one of these containers (a Claude Code session's `subagents/`) changed. */
function ownedFolderChanged(db: Database, parser: Parser, owners: Iterable<string>): boolean {
  const owned = db.query<{ path: string; fingerprint: string }, [string, string]>(
    "SELECT path, fingerprint FROM watched_paths WHERE source = ? AND owner = ?",
  );
  for (const owner of owners) {
    for (const row of owned.all(parser.id, owner)) if (currentFingerprint(row.path) !== row.fingerprint) return true;
  }
  return false;
}

/**
 * Re-stat stored containers one by one (`scan` of their paths).
 * @returns those whose fingerprint moved, or undefined when one vanished, cannot be read or is listed under another path
 */
function restat(parser: Parser, rows: ReadonlyMap<string, StoredRow>): ChangedContainer[] | undefined {
  if (rows.size === 0) return [];
  const rescan = parser.scan([...rows.keys()]);
  if (rescan.unavailable.length > 0 || rescan.containers.length !== rows.size) return undefined;
  const changed: ChangedContainer[] = [];
  for (const container of rescan.containers) {
    const previous = rows.get(container.path);
    if (previous === undefined) return undefined;
    if (previous.fingerprint !== container.fingerprint)
      changed.push({ container, previousFingerprint: previous.fingerprint });
  }
  return changed;
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

/** Read {@link IndexFreshness} from the index (meta rows only). */
export function readIndexFreshness(db: Database, checked: boolean): IndexFreshness {
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
