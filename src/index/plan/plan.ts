/**
 * Change detection: what an index run must do for one source, computed from file stats and the
 * stored state, before any parsing. Two stages (issue 3): containers by stats fingerprint (a
 * Claude JSONL file; an OpenCode db + WAL; a JSON storage folder), then, only when a container
 * changed, vanished or could not be read, units by change key (Claude size, mtime, ctime and inode; OpenCode
 * `time_updated` plus the count and newest time of its parts).
 * The containers come from the quick check (freshness.ts: recent ones re-stat'ed, folders compared) or a whole
 * scan; either way only the containers that moved are listed and only their sessions are read from the index
 * (issue 14), unless a container is unavailable, `full` is asked, or a listed session is also stored under a
 * container that did not move (a copy in another root): then every container is listed, as the parser's
 * deduplication needs.
 * The archive rules (issue 9): a session whose unit vanished is marked deleted, never dropped; a session
 * whose container is unavailable (exists, cannot be read now) is left exactly as it is and retried next run;
 * a forgotten session (tombstone) is not added again.
 * Prompt-only units (prompt-history files, issue 11) never replace a transcript: one whose session id is listed by a
 * transcript unit in this run, or stored as a transcript session (present or deleted), is left out; a transcript unit
 * whose session id is stored as prompt-only takes that row over (same session id, so the writer updates it).
 */
import type { Database } from "bun:sqlite";
import {
  comparePaths,
  type Parser,
  type ParserHooks,
  type ResumeState,
  type SourceContainer,
  type SourceUnit,
  type UnavailablePath,
  type WatchedPath,
} from "../../parsers/index.ts";
import { loadForgottenIds } from "../store/archive.ts";
import { readSourceSessionCount } from "../store/scope-counts.ts";
import {
  adjustDigest,
  digestContainers,
  digestMetaKey,
  loadStoredContainers,
  loadStoredContainersBelow,
  isAtOrBelow,
  splitDigest,
  type FolderRescanState,
  type ScanStateUpdate,
} from "./containers.ts";
import { quickCheck, type QuickCheckOptions } from "./freshness.ts";
import type { WholeScan } from "./staleness.ts";
import { readMeta } from "../schema.ts";
import { decodeResumeState } from "../store/resume-state.ts";

/** One unit to parse. */
export interface PlannedUnit {
  unit: SourceUnit;
  /** Resume state stored from the last parse of the same unit key (undefined = full parse). */
  resume: ResumeState | undefined;
  /** True when no indexed session has this unit key or session id. */
  isNew: boolean;
  /** True when the indexed session was marked deleted (its source came back, changed). */
  wasDeleted: boolean;
}

/**
 * How a plan learned what changed: nothing moved (quick check), some recent containers moved (quick check), a whole
 * scan, or a whole walk this process made that found every container as stored (`walked`: only the walk is stored).
 */
export type PlanBasis = "unchanged" | "recent" | "whole" | "walked";

/** Work for one source. */
export interface SourcePlan {
  basis: PlanBasis;
  /** Containers that appeared or moved (a whole scan: every container found). */
  containers: SourceContainer[];
  /** Stored container rows the plan compared against, by path (a whole scan: all of them). */
  storedContainers: Map<string, SourceContainer>;
  /** Paths of stored containers the whole scan, or the walk of changed folders, did not find. */
  vanished: string[];
  /** The whole scan's watched paths and roots (undefined unless basis is `whole` or `walked`). */
  wholeScan?: { watched: WatchedPath[] | undefined; roots: string[] };
  /** Folders the quick check walked again and what that walk watched (basis `recent` only; freshness.ts). */
  rescan?: FolderRescanState;
  toParse: PlannedUnit[];
  /** Rowids of present sessions whose unit vanished: to mark deleted (kept). */
  toMarkDeleted: number[];
  /** Rowids of deleted sessions whose unit is back with an unchanged change key: to mark present, no parse. */
  toRestore: number[];
  /** Present sessions that need nothing. */
  unchanged: number;
  /** Roots that do not exist (their sessions are marked deleted, kept). */
  missingRoots: string[];
  /** Paths (scan) and containers (listUnits) that exist but cannot be read now, unique by path. */
  unavailable: UnavailablePath[];
  /** Indexed sessions left untouched under each unavailable path, by path. */
  keptByPath: Map<string, number>;
  /** Units skipped because their session was forgotten on purpose. */
  forgottenSkipped: number;
  /** Prompt-only units left out because the session's transcript is listed now or indexed (issue 11). */
  promptOnlyShadowed: number;
  /** Containers whose units were listed in this plan: what `rejected` says of them is now known (issue 26). */
  listed: string[];
  /** Files the parser rejected whole while listing `listed` (ParserHooks.onRejected). */
  rejected: Array<{ path: string; reason: string }>;
}

interface IndexedRow {
  id: number;
  unit_key: string;
  session_id: string;
  container_path: string;
  change_key: string;
  source_status: "present" | "deleted";
  prompt_only: number;
}

const indexedColumns = "id, unit_key, session_id, container_path, change_key, source_status, prompt_only";

/** The resume state stored for a session (`resume_states`, schema v17), or undefined when it has none. */
function storedResumeState(db: Database, sessionRowid: number): ResumeState | undefined {
  const row = db
    .query<{ state: Uint8Array | string }, [number]>("SELECT state FROM resume_states WHERE session_rowid = ?")
    .get(sessionRowid);
  return row ? decodeResumeState(row.state) : undefined;
}

function addUnavailable(list: UnavailablePath[], entry: UnavailablePath): void {
  if (!list.some((known) => known.path === entry.path)) list.push(entry);
}

/** Options of {@link planSource}. */
export interface PlanOptions {
  /** Ignore stored fingerprints, change keys and resume states (re-parse everything that can be read); default false. */
  full?: boolean;
  /** Decide by the quick check (freshness.ts) where it applies; absent: scan the source whole. */
  quick?: QuickCheckOptions;
  /** `onWarning` is passed to the parser; `onUnavailable` is taken over here (and still called). */
  hooks?: ParserHooks;
  /**
   * A whole scan of exactly these roots that this process made moments ago (a staleness check, staleness.ts
   * `WholeScans`), with the digest of its containers (containers.ts `digestContainers`): used instead of walking again
   * when the source must be scanned whole. A change made since is found by the next check, as one made after this run
   * would be.
   */
  wholeScan?: Pick<WholeScan, "scan" | "digest">;
}

/**
 * Plan one source.
 * @param roots the source's roots (as the run scans them)
 */
export function planSource(db: Database, parser: Parser, roots: string[], options: PlanOptions = {}): SourcePlan {
  const full = options.full ?? false;
  const check = !full && options.quick ? quickCheck(db, parser, roots, options.quick) : undefined;
  if (check?.kind === "unchanged") {
    const plan = emptyPlan("unchanged", [], new Map(), []);
    plan.unchanged = countPresent(db, parser);
    return plan;
  }
  if (check?.kind === "changed") {
    const stored = new Map<string, SourceContainer>();
    for (const { container, previousFingerprint } of check.changed)
      if (previousFingerprint !== undefined)
        stored.set(container.path, { ...container, fingerprint: previousFingerprint });
    for (const gone of check.rescan?.vanished ?? []) stored.set(gone.path, gone);
    const plan = emptyPlan(
      "recent",
      check.changed.map((entry) => entry.container),
      stored,
      [],
    );
    if (check.rescan) {
      plan.vanished = check.rescan.vanished.map((container) => container.path);
      plan.rescan = { folders: check.rescan.folders, watched: check.rescan.watched };
    }
    if (planMoved(db, parser, plan, plan.containers, options.hooks ?? {})) return plan;
  }
  return planWholeScan(db, parser, roots, full, options.hooks ?? {}, options.wholeScan);
}

function emptyPlan(
  basis: PlanBasis,
  containers: SourceContainer[],
  stored: Map<string, SourceContainer>,
  missingRoots: string[],
): SourcePlan {
  return {
    basis,
    containers,
    storedContainers: stored,
    vanished: [],
    toParse: [],
    toMarkDeleted: [],
    toRestore: [],
    unchanged: 0,
    missingRoots,
    unavailable: [],
    keptByPath: new Map(),
    forgottenSkipped: 0,
    promptOnlyShadowed: 0,
    listed: [],
    rejected: [],
  };
}

/**
 * Present sessions of a source: all (the kept count, store/scope-counts.ts; counting them through the UNIQUE (source,
 * session_id) index took 2.5 ms at 20k, in every run) minus the deleted ones (the partial `sessions_deleted` index);
 * counting `source_status = 'present'` directly reads every row (~90 ms at 20k).
 */
function countPresent(db: Database, parser: Parser): number {
  const all = readSourceSessionCount(db, parser.id);
  const deleted =
    db
      .query<{ n: number }, [string]>(
        "SELECT count(*) AS n FROM sessions WHERE source = ? AND source_status = 'deleted'",
      )
      .get(parser.id)?.n ?? 0;
  return all - deleted;
}

/** Scan the source whole, then plan from the containers that moved (or from all of them when that cannot be trusted). */
function planWholeScan(
  db: Database,
  parser: Parser,
  roots: string[],
  full: boolean,
  hooks: ParserHooks,
  prescan: Pick<WholeScan, "scan" | "digest"> | undefined,
): SourcePlan {
  const scan = prescan?.scan ?? parser.scan(roots);
  if (
    !full &&
    prescan &&
    (scan.unavailable?.length ?? 0) === 0 &&
    readMeta(db, digestMetaKey(parser.id)) === prescan.digest
  ) {
    // The walk found every container as stored (equal digests, no retry mark): nothing appeared, moved or vanished, and
    // as a container's fingerprint holds its own stats, its mtime included, no stored row differs either. Only the walk
    // is new (its time and folders). Loading and comparing every stored row for it took ~0.25 s at 20,000 sessions, in
    // the first search after each quiet whole-scan interval.
    const plan = emptyPlan("walked", [], new Map(), scan.missingRoots);
    plan.wholeScan = { watched: scan.watched, roots };
    plan.unchanged = countPresent(db, parser);
    return plan;
  }
  const stored = loadStoredContainers(db, parser.id);
  const plan = emptyPlan("whole", scan.containers, stored, scan.missingRoots);
  plan.wholeScan = { watched: scan.watched, roots };
  for (const entry of scan.unavailable ?? []) addUnavailable(plan.unavailable, entry);
  const found = new Set(scan.containers.map((container) => container.path));
  plan.vanished = [...stored.keys()].filter((path) => !found.has(path));
  const moved = scan.containers.filter(
    (container) => stored.get(container.path)?.fingerprint !== container.fingerprint,
  );
  if (!full && plan.unavailable.length === 0 && moved.length === 0 && plan.vanished.length === 0) {
    plan.unchanged = countPresent(db, parser);
    return plan;
  }
  if (!full && plan.unavailable.length === 0 && planMoved(db, parser, plan, moved, hooks)) return plan;
  resetDecisions(plan);
  const units = parser.listUnits(scan.containers, unavailableHooks(plan, hooks));
  plan.listed = scan.containers.map((container) => container.path);
  const rows = db.query<IndexedRow, [string]>(`SELECT ${indexedColumns} FROM sessions WHERE source = ?`).all(parser.id);
  classifyUnits(db, parser, units, full, plan, rows, () => true);
  return plan;
}

/** Clear what an abandoned {@link planMoved} decided (it may have filled the lists before finding it cannot decide). */
function resetDecisions(plan: SourcePlan): void {
  plan.toParse = [];
  plan.toMarkDeleted = [];
  plan.toRestore = [];
  plan.unchanged = 0;
  plan.keptByPath = new Map();
  plan.forgottenSkipped = 0;
  plan.promptOnlyShadowed = 0;
  plan.listed = [];
  plan.rejected = [];
}

function unavailableHooks(plan: SourcePlan, hooks: ParserHooks): ParserHooks {
  return {
    onWarning: hooks.onWarning,
    onUnavailable(path, reason) {
      addUnavailable(plan.unavailable, { path, reason });
      hooks.onUnavailable?.(path, reason);
    },
    onRejected(path, reason) {
      plan.rejected.push({ path, reason });
      hooks.onWarning?.(`${path}: ${reason}; not indexed`);
    },
  };
}

/**
 * Plan from the containers that moved (and the vanished ones in `plan.vanished`) alone: list their units (with the
 * containers that depend on them, `Parser.dependentsPrefix`) and read from the index only the sessions stored under
 * them or matching a listed unit.
 * @returns false when that cannot decide (a container became unreadable, or a listed session is stored under a
 *   container that did not move: only listing every container lets the parser choose between the copies)
 */
function planMoved(
  db: Database,
  parser: Parser,
  plan: SourcePlan,
  moved: SourceContainer[],
  hooks: ParserHooks,
): boolean {
  const listed = new Map(moved.map((container) => [container.path, container]));
  let sorted: SourceContainer[] | undefined; // the whole scan's containers sorted by path, made on first need
  for (const container of moved) {
    const prefix = parser.dependentsPrefix?.(container.path) ?? null;
    if (prefix === null) continue;
    sorted ??= plan.basis === "whole" ? [...plan.containers].sort(comparePaths) : [];
    const below =
      plan.basis === "whole" ? containersBelow(sorted, prefix) : loadStoredContainersBelow(db, parser.id, prefix);
    for (const dependent of below) if (!listed.has(dependent.path)) listed.set(dependent.path, dependent);
  }
  const units = listed.size === 0 ? [] : parser.listUnits([...listed.values()], unavailableHooks(plan, hooks));
  if (plan.unavailable.length > 0) return false;
  plan.listed = [...listed.keys()];
  const reconciled = new Set([...listed.keys(), ...plan.vanished]);
  // Three lookups, each by its own index (`+source` keeps SQLite off the source index: one OR of the three, or a
  // lookup by source first, reads every row of the source, ~90 ms at 20k sessions).
  const lookup = (column: "container_path" | "unit_key" | "session_id", values: Iterable<string>) =>
    db
      .query<IndexedRow, [string, string]>(
        `SELECT ${indexedColumns} FROM sessions WHERE ${column} IN (SELECT value FROM json_each(?2)) AND +source = ?1`,
      )
      .all(parser.id, JSON.stringify([...new Set(values)]));
  const found = new Map<number, IndexedRow>();
  for (const row of [
    ...lookup("container_path", reconciled),
    ...lookup(
      "unit_key",
      units.map((unit) => unit.key),
    ),
    ...lookup(
      "session_id",
      units.map((unit) => unit.sessionId),
    ),
  ]) {
    found.set(row.id, row);
  }
  const rows = [...found.values()];
  const byKey = new Map(rows.map((row) => [row.unit_key, row]));
  const bySessionId = new Map(rows.map((row) => [row.session_id, row]));
  for (const unit of units) {
    const row = byKey.get(unit.key) ?? bySessionId.get(unit.sessionId);
    if (
      row &&
      !unit.promptOnly &&
      row.prompt_only === 0 &&
      row.unit_key !== unit.key &&
      !reconciled.has(row.container_path)
    )
      return false;
  }
  classifyUnits(db, parser, units, false, plan, rows, (row) => reconciled.has(row.container_path));
  // Every present session not re-parsed or marked deleted is unchanged, listed or not.
  const reparsed = plan.toParse.filter((planned) => !planned.isNew && !planned.wasDeleted).length;
  plan.unchanged = countPresent(db, parser) - reparsed - plan.toMarkDeleted.length;
  return true;
}

/**
 * The containers whose path starts with `prefix`, from a list sorted by path (as scans return them): a binary search
 * for the first, then a walk while they match, so listing the dependents of every container of a first index stays
 * O(n log n) (a filter per container was O(n²): 10 s at 25k files).
 */
export function containersBelow(sorted: readonly SourceContainer[], prefix: string): SourceContainer[] {
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle]!.path < prefix) low = middle + 1;
    else high = middle;
  }
  const found: SourceContainer[] = [];
  for (let i = low; i < sorted.length && sorted[i]!.path.startsWith(prefix); i++) found.push(sorted[i]!);
  return found;
}

/**
 * Sort listed units and indexed sessions into parse / unchanged / restore / mark deleted / keep.
 * @param rows the indexed sessions to decide about (all of the source's, or those of the moved containers)
 * @param reconcile which of `rows` not matched by a unit lost their unit (marked deleted, or kept when unreadable)
 */
function classifyUnits(
  db: Database,
  parser: Parser,
  units: SourceUnit[],
  full: boolean,
  plan: SourcePlan,
  rows: IndexedRow[],
  reconcile: (row: IndexedRow) => boolean,
): void {
  const byKey = new Map(rows.map((row) => [row.unit_key, row]));
  const bySessionId = new Map(rows.map((row) => [row.session_id, row]));
  const forgotten = loadForgottenIds(db, parser.id);
  const unavailableOf = (path: string) => plan.unavailable.find((entry) => isAtOrBelow(path, [entry]));
  const keep = (path: string) => plan.keptByPath.set(path, (plan.keptByPath.get(path) ?? 0) + 1);
  const handled = new Set<number>();
  const transcriptIds = new Set(units.filter((unit) => !unit.promptOnly).map((unit) => unit.sessionId));
  for (const unit of units) {
    if (forgotten.has(unit.sessionId)) {
      plan.forgottenSkipped++;
      continue;
    }
    const row = byKey.get(unit.key) ?? bySessionId.get(unit.sessionId);
    if (unit.promptOnly && (transcriptIds.has(unit.sessionId) || (row !== undefined && row.prompt_only === 0))) {
      plan.promptOnlyShadowed++;
      continue;
    }
    if (row) handled.add(row.id);
    // Never re-parse a unit that cannot be read now, nor replace a session of an unreadable container from elsewhere.
    const unreadable =
      unavailableOf(unit.containerPath) ??
      (row && row.unit_key !== unit.key ? unavailableOf(row.container_path) : undefined);
    if (unreadable) {
      if (row) keep(unreadable.path);
      continue;
    }
    if (row && !full && row.unit_key === unit.key && row.change_key === unit.changeKey) {
      if (row.source_status === "deleted") plan.toRestore.push(row.id);
      else plan.unchanged++;
      continue;
    }
    const resume = row && !full && row.unit_key === unit.key ? storedResumeState(db, row.id) : undefined;
    plan.toParse.push({ unit, resume, isNew: !row, wasDeleted: row?.source_status === "deleted" });
  }
  for (const row of rows) {
    if (handled.has(row.id) || !reconcile(row)) continue;
    const under = unavailableOf(row.container_path);
    if (under) keep(under.path);
    else if (row.source_status === "present") plan.toMarkDeleted.push(row.id);
  }
}

/**
 * What to store for a source after its run (containers.ts `storeScanState`): the rows of containers that appeared or
 * moved, the rows of vanished ones to delete, and the digest. A container that could not be read (unavailable, or
 * one of its units failed to parse) keeps the row stored before, or none, so the next run sees it as changed and
 * retries it; stored rows below an unavailable path are kept as they were; then the digest is marked for retry.
 * @param retryPaths container paths of units that failed to parse in this run
 */
export function scanStateUpdate(
  db: Database,
  parser: Parser,
  plan: SourcePlan,
  retryPaths: ReadonlySet<string>,
): ScanStateUpdate | undefined {
  const retry = plan.unavailable.length > 0 || retryPaths.size > 0;
  const mustRetry = (path: string) => retryPaths.has(path) || isAtOrBelow(path, plan.unavailable);
  if (plan.basis === "unchanged") return undefined;
  if (plan.basis === "walked") {
    const stored = splitDigest(readMeta(db, digestMetaKey(parser.id)))!; // planWholeScan found it, without a retry mark
    return { upserts: [], deletes: [], digest: stored.digest, retry: false, wholeScan: plan.wholeScan };
  }
  if (plan.basis === "recent") {
    const upserts = plan.containers.filter((container) => !mustRetry(container.path));
    const previous = upserts.flatMap((container) => plan.storedContainers.get(container.path) ?? []);
    const gone = plan.vanished.map((path) => plan.storedContainers.get(path)!);
    const stored = splitDigest(readMeta(db, digestMetaKey(parser.id)));
    return {
      upserts,
      deletes: plan.vanished,
      digest: adjustDigest(stored?.digest ?? "0", [...previous, ...gone], upserts),
      retry,
      rescan: plan.rescan,
    };
  }
  const kept = plan.containers.filter((container) => !mustRetry(container.path));
  for (const [path, container] of plan.storedContainers) if (mustRetry(path)) kept.push(container);
  const keptPaths = new Set(kept.map((container) => container.path));
  const upserts = kept.filter((container) => {
    const before = plan.storedContainers.get(container.path);
    return before === undefined || before.fingerprint !== container.fingerprint || before.mtimeMs !== container.mtimeMs;
  });
  const deletes = [...plan.storedContainers.keys()].filter((path) => !keptPaths.has(path));
  return { upserts, deletes, digest: digestContainers(kept), retry, wholeScan: plan.wholeScan };
}
