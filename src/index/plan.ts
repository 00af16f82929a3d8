/**
 * Change detection: what an index run must do for one source, computed from file stats and the
 * stored state, before any parsing. Two stages (issue 3): containers by stats fingerprint (a
 * Claude JSONL file; an OpenCode db + WAL; a JSON storage folder), then, only when a container
 * changed, vanished or could not be read, units by change key (Claude size, mtime, ctime and inode; OpenCode
 * `time_updated` plus the count and newest time of its parts).
 * The archive rules (issue 9): a session whose unit vanished is marked deleted, never dropped; a session
 * whose container is unavailable (exists, cannot be read now) is left exactly as it is and retried next run;
 * a forgotten session (tombstone) is not added again.
 * Prompt-only units (prompt-history files, issue 11) never replace a transcript: one whose session id is listed by a
 * transcript unit in this run, or stored as a transcript session (present or deleted), is left out; a transcript unit
 * whose session id is stored as prompt-only takes that row over (same session id, so the writer updates it).
 */
import type { Database } from "bun:sqlite";
import type { Parser, ParserHooks, ResumeState, SourceContainer, SourceUnit, UnavailablePath } from "../parsers/index.ts";
import { loadForgottenIds } from "./archive.ts";

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

/** Work for one source. */
export interface SourcePlan {
  /** Every container found by the scan now. */
  containers: SourceContainer[];
  /** Container rows stored by the last run, by path (kept for containers that must be retried). */
  storedContainers: Map<string, SourceContainer>;
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
}

/**
 * Digest of a container list: order-independent hash of `path\tfingerprint` lines (Bun.hash,
 * wyhash 64-bit, hex). Equal digests mean no container changed, appeared or vanished.
 */
export function digestContainers(containers: readonly SourceContainer[]): string {
  const lines = containers.map((container) => `${container.path}\t${container.fingerprint}`).sort();
  return Bun.hash(lines.join("\n")).toString(16);
}

/** True when `path` is one of `paths` or lies below one of them. */
export function isAtOrBelow(path: string, paths: readonly { path: string }[]): boolean {
  return paths.some((entry) => path === entry.path || path.startsWith(entry.path.endsWith("/") ? entry.path : `${entry.path}/`));
}

interface IndexedRow {
  id: number;
  unit_key: string;
  session_id: string;
  container_path: string;
  change_key: string;
  resume_state: string | null;
  source_status: "present" | "deleted";
  prompt_only: number;
}

function loadStoredContainers(db: Database, parser: Parser): Map<string, SourceContainer> {
  const rows = db
    .query<{ path: string; fingerprint: string; size_bytes: number }, [string]>("SELECT path, fingerprint, size_bytes FROM containers WHERE source = ?")
    .all(parser.id);
  return new Map(rows.map((row) => [row.path, { source: parser.id, path: row.path, fingerprint: row.fingerprint, sizeBytes: row.size_bytes }]));
}

function addUnavailable(list: UnavailablePath[], entry: UnavailablePath): void {
  if (!list.some((known) => known.path === entry.path)) list.push(entry);
}

/**
 * Plan one source.
 * @param full ignore stored fingerprints, change keys and resume states (re-parse everything that can be read)
 * @param hooks `onWarning` is passed to the parser; `onUnavailable` is taken over here (and still called)
 */
export function planSource(db: Database, parser: Parser, roots: string[], full: boolean, hooks: ParserHooks = {}): SourcePlan {
  const scan = parser.scan(roots);
  const stored = loadStoredContainers(db, parser);
  const plan: SourcePlan = {
    containers: scan.containers, storedContainers: stored, toParse: [], toMarkDeleted: [], toRestore: [], unchanged: 0,
    missingRoots: scan.missingRoots, unavailable: [], keptByPath: new Map(), forgottenSkipped: 0, promptOnlyShadowed: 0,
  };
  for (const entry of scan.unavailable ?? []) addUnavailable(plan.unavailable, entry);
  const anyChange =
    full || plan.unavailable.length > 0 || scan.containers.length !== stored.size ||
    scan.containers.some((container) => stored.get(container.path)?.fingerprint !== container.fingerprint);
  if (!anyChange) {
    plan.unchanged = db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM sessions WHERE source = ? AND source_status = 'present'").get(parser.id)?.n ?? 0;
    return plan;
  }
  const units = parser.listUnits(scan.containers, {
    onWarning: hooks.onWarning,
    onUnavailable(path, reason) {
      addUnavailable(plan.unavailable, { path, reason });
      hooks.onUnavailable?.(path, reason);
    },
  });
  classifyUnits(db, parser, units, full, plan);
  return plan;
}

/** Sort listed units and indexed sessions into parse / unchanged / restore / mark deleted / keep. */
function classifyUnits(db: Database, parser: Parser, units: SourceUnit[], full: boolean, plan: SourcePlan): void {
  const rows = db
    .query<IndexedRow, [string]>(
      "SELECT id, unit_key, session_id, container_path, change_key, resume_state, source_status, prompt_only FROM sessions WHERE source = ?",
    )
    .all(parser.id);
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
    const unreadable = unavailableOf(unit.containerPath) ?? (row && row.unit_key !== unit.key ? unavailableOf(row.container_path) : undefined);
    if (unreadable) {
      if (row) keep(unreadable.path);
      continue;
    }
    if (row && !full && row.unit_key === unit.key && row.change_key === unit.changeKey) {
      if (row.source_status === "deleted") plan.toRestore.push(row.id);
      else plan.unchanged++;
      continue;
    }
    const resume = row && !full && row.unit_key === unit.key && row.resume_state ? (JSON.parse(row.resume_state) as ResumeState) : undefined;
    plan.toParse.push({ unit, resume, isNew: !row, wasDeleted: row?.source_status === "deleted" });
  }
  for (const row of rows) {
    if (handled.has(row.id)) continue;
    const under = unavailableOf(row.container_path);
    if (under) keep(under.path);
    else if (row.source_status === "present") plan.toMarkDeleted.push(row.id);
  }
}

/**
 * The container rows to store after a run: what the scan found, except that a container which could not be
 * read (unavailable, or one of its units failed to parse) keeps the fingerprint stored before, or none, so the
 * next run sees it as changed and retries it. Stored rows below an unavailable path are kept as they were.
 * @param retryPaths container paths of units that failed to parse in this run
 */
export function containersToStore(plan: SourcePlan, retryPaths: ReadonlySet<string>): SourceContainer[] {
  const mustRetry = (path: string) => retryPaths.has(path) || isAtOrBelow(path, plan.unavailable);
  const out = plan.containers.filter((container) => !mustRetry(container.path));
  for (const [path, container] of plan.storedContainers) if (mustRetry(path)) out.push(container);
  return out;
}
