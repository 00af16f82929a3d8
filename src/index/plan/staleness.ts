/**
 * The staleness check run before every search: file stats only, no parsing, never writes. Each source is checked by
 * the freshness rule (freshness.ts): its watched folders and recent containers, or, when that cannot tell (no quick
 * check for the source, a whole scan due, roots changed, a retry pending), a whole scan whose container digest is
 * compared with the digest stored by the last complete run. Cost: measured by `bun run bench index-search`
 * (`index.staleness_check.*`).
 */
import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { withKnownProjectFolders } from "./known-projects.ts";
import {
  isMissingError,
  parsers,
  type ScanResult,
  type SourceContainer,
  type SourceId,
  type SourceRootMap,
} from "../../parsers/index.ts";
import { digestContainers, digestMetaKey, hasParserVersionChanged } from "./containers.ts";
import { fullScanIntervalMs, quickCheck } from "./freshness.ts";
import { readMeta, withMetaSnapshot } from "../schema.ts";

/**
 * The whole scans a staleness check walked, per source, with the roots it walked (issue 42): the index run that
 * follows a stale answer plans from them instead of walking the same folders again (at 20,000 sessions each walk of
 * the Claude Code folders took ~0.5–0.7 s, and a new session file cost two of them).
 */
export type WholeScans = Partial<Record<SourceId, WholeScan>>;

/** One source's whole scan in {@link WholeScans}. */
export interface WholeScan {
  /** The roots it walked. */
  roots: readonly string[];
  scan: ScanResult;
  /** The digest of its containers (containers.ts `digestContainers`), as the check compared it with the stored one. */
  digest: string;
}

/** Result of {@link checkStaleness}. */
export interface StalenessReport {
  stale: boolean;
  /** Sources whose containers changed, appeared or vanished since the last run. */
  staleSources: SourceId[];
  /**
   * Epoch ms of the oldest last whole scan among the sources checked quickly (what the answer's index can be missing:
   * an append to a file quiet for a day, made since then); undefined when every source was scanned whole now.
   */
  wholeScanAt?: number;
  /** The whole scans this check made (none for sources it checked quickly or from a caller's pre-scan). */
  wholeScans: WholeScans;
  /**
   * Sources walked whole by the freshness rule (a whole scan due, roots or folders changed) that found nothing changed:
   * until an index run stores that walk (its time and folders), every check walks them whole again (~0.4 s at
   * 20,000 sessions, each search after ten quiet minutes). A caller that may write runs the index for them, from the
   * walk: nothing is parsed.
   */
  unrecorded: SourceId[];
}

/**
 * True when a check calls for an index run: something is stale, or a whole walk that found nothing is to be stored
 * ({@link StalenessReport.unrecorded}).
 */
export function needsIndexRun(report: StalenessReport): boolean {
  return report.stale || report.unrecorded.length > 0;
}

/** Options of {@link checkStaleness}. */
export interface StalenessOptions {
  /** Current time, epoch ms; default now. */
  nowMs?: number;
  /** `whole` scans every source whole (status, doctor); default `quick`. */
  scan?: "quick" | "whole";
}

/**
 * Compare current stats with the stored state (read-only; never writes). Its statements (a few per agent) read in one
 * read transaction (a savepoint inside a caller's): one snapshot of the index, and one lock taken instead of one per
 * statement. A cold `recall search` on the real corpus made 620 `fcntl` and 309 `fstat` calls before, 122 and 60 with
 * it, and its check took ~0.7 ms less (p50 of 30 alternating runs, 2-core Xeon, 2026-11-29).
 * @param scanned containers a caller already scanned in this process for these roots (not scanned again)
 */
export function checkStaleness(
  db: Database,
  roots: SourceRootMap,
  scanned: Partial<Record<SourceId, SourceContainer[]>> = {},
  options: StalenessOptions = {},
): StalenessReport {
  return db.transaction(() => withMetaSnapshot(db, () => checkStalenessNow(db, roots, scanned, options)))();
}

function checkStalenessNow(
  db: Database,
  roots: SourceRootMap,
  scanned: Partial<Record<SourceId, SourceContainer[]>>,
  options: StalenessOptions,
): StalenessReport {
  const staleSources: SourceId[] = [];
  const nowMs = options.nowMs ?? Date.now();
  const interval = fullScanIntervalMs();
  let wholeScanAt: number | undefined;
  const wholeScans: WholeScans = {};
  const unrecorded: SourceId[] = [];
  const effective = withKnownProjectFolders(db, roots);
  for (const parser of parsers) {
    const sourceRoots = effective[parser.id] ?? [];
    // Indexed by an older parser (Parser.version): the next run re-parses the source, whatever the files say.
    if (hasParserVersionChanged(db, parser) && readMeta(db, digestMetaKey(parser.id)) !== undefined) {
      staleSources.push(parser.id);
      continue;
    }
    let quickWalk = false; // walked whole by the freshness rule, which a stored walk would have spared
    if (options.scan !== "whole") {
      const check = quickCheck(db, parser, sourceRoots, { nowMs, fullScanIntervalMs: interval });
      if (check.kind !== "whole") {
        if (check.kind === "changed") staleSources.push(parser.id);
        wholeScanAt = Math.min(wholeScanAt ?? check.wholeScanAt, check.wholeScanAt);
        continue;
      }
      quickWalk = check.reason !== "no quick check";
    }
    // a pre-scan covered the given roots only: not Aider's, once the known project folders were added
    const prescanned = effective[parser.id] === roots[parser.id] ? scanned[parser.id] : undefined;
    // Nothing lies below a root that does not exist, so a scan of such roots only lists nothing (a test holds every
    // parser to it): most agents a person does not use are settled by a stat of their roots (issue 42).
    const scan = prescanned || sourceRoots.every(isMissing) ? undefined : parser.scan(sourceRoots);
    const digest = digestContainers(prescanned ?? scan?.containers ?? []);
    if (scan) wholeScans[parser.id] = { roots: sourceRoots, scan, digest };
    if (readMeta(db, digestMetaKey(parser.id)) !== digest) staleSources.push(parser.id);
    else if (quickWalk) unrecorded.push(parser.id);
  }
  return { stale: staleSources.length > 0, staleSources, wholeScanAt, wholeScans, unrecorded };
}

/** True when nothing is at `path` (ENOENT, or ENOTDIR: a file on the way); false when it exists or cannot be read. */
function isMissing(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) === undefined;
  } catch (error) {
    return isMissingError(error); // anything else (permission denied, …): the scan reports the root unavailable
  }
}
