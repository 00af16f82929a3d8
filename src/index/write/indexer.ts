/**
 * The incremental index run (`recall index`, and the automatic re-index before a search).
 * Pipeline, per source:
 *   1. plan: find the containers that moved by the freshness rule (freshness.ts: recent containers and watched folders,
 *      a whole scan when due) or a whole scan, and list the units of those containers only (plan.ts);
 *   2. mark sessions whose unit vanished as deleted and those that came back unchanged as present (one
 *      transaction); nothing is dropped: the index may hold the only copy (issue 9);
 *   3. parse changed units (resumed where a resume state exists) and write them in batches, one
 *      transaction per batch, so a `kill -9` loses at most the batch in flight and the next run
 *      redoes exactly that (a unit's change key is stored in the same transaction as its rows);
 *   4. store the moved container rows and the source digest (the staleness check compares it), and after a whole
 *      scan the folders it read (containers.ts). A container that could not be read (unavailable, or a unit failed
 *      to parse) keeps its old fingerprint and the digest is marked stale, so the next search or index retries it
 *      (scanning whole); its sessions are kept untouched meanwhile. A run that found nothing writes nothing here.
 * The run holds RECALL_HOME/index.lock; searches keep reading the last committed state (WAL).
 * Never prints: progress and warnings go through `IndexHooks`.
 */
import type { WholeScans } from "../plan/staleness.ts";
import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { withKnownProjectFolders } from "../plan/known-projects.ts";
import {
  parsers,
  sourceIds,
  type Parser,
  type SourceId,
  type SourceRootMap,
  type SourceUnit,
} from "../../parsers/index.ts";
import type { Embedder } from "../../embed/index.ts";
import { isRecallError } from "../../errors.ts";
import { embedPending, type EmbeddingSummary } from "../vectors/embedding.ts";
import { repairVectorFiles } from "../vectors/vector-files.ts";
import { databasePath, ensureRecallHome, homeFiles } from "../../home/paths.ts";
import { acquireIndexLock, type IndexLock } from "../store/lock.ts";
import { markSessionsDeleted, markSessionsPresent, seenAtMetaKey } from "../store/archive.ts";
import { hasParserVersionChanged, parserVersionMetaKey, storeScanState } from "../plan/containers.ts";
import { fullScanIntervalMs } from "../plan/freshness.ts";
import { planSource, scanStateUpdate, type SourcePlan } from "../plan/plan.ts";
import { embedConfigMetaKey, recoverInterruptedSwap } from "../vectors/generations.ts";
import { nextFingerprintKey } from "../vectors/reembed-progress.ts";
import { chunkStatus, openIndex, readMeta, writeMeta } from "../schema.ts";
import { snapshotIfDue } from "../store/snapshot.ts";
import { readNotKept, storeRejectedFiles, type NotKept } from "./not-kept.ts";
import { writePreparedSessions, type PreparedSession } from "./writer.ts";
import { redactStoredSessions } from "./stored-redaction.ts";
import { optimizeIfMostlyNew } from "./compact.ts";
import { GarbageBudget, writerCollectEveryBytes } from "./garbage-budget.ts";
import {
  KeywordSegmentWriter,
  mergeKeywordSegments,
  repairKeywordPostings,
  totalsInStep,
} from "../postings/keyword-postings.ts";

/** Progress and warning callbacks of an index run. */
export interface IndexHooks {
  /** Called after each parsed session; `total` is the number of sessions to parse in this source. */
  onProgress?(progress: { source: SourceId; done: number; total: number }): void;
  /** One line per skipped file or container, e.g. `<path>:17: not JSON (and 3 more lines)`. */
  onWarning?(message: string): void;
  /** Embedding progress, in chunks. */
  onEmbedProgress?(progress: { done: number; total: number }): void;
  /** One-line notices: keyword-only because no model, model changed, ... */
  onNotice?(message: string): void;
}

/** Options of {@link runIndex}. */
export interface IndexOptions {
  recallHome: string;
  /** Roots per source (see parsers/paths.ts). */
  roots: SourceRootMap;
  /** Re-parse every session, ignoring stored change keys and resume states (scans whole); default false. */
  full?: boolean;
  /**
   * How changes are found: `quick` (default) by the freshness rule (freshness.ts: watched folders and recent
   * containers, every source scanned whole at least every RECALL_FULL_SCAN_INTERVAL_MS); `whole` walks every root.
   */
  scan?: "quick" | "whole";
  /** Paths known to have changed (a watcher's events): re-stat'ed by the quick check even when not recent. */
  changedPaths?: readonly string[];
  /**
   * Whole scans a staleness check of this process just made (staleness.ts `WholeScans`): a source planned whole from
   * the same roots uses its scan instead of walking again (issue 42).
   */
  prescanned?: WholeScans;
  /** How long to wait for another run's lock, in ms; default 0 (fail at once with INDEX_LOCKED). */
  lockWaitMs?: number;
  /** Sessions per transaction; default 100. */
  batchSize?: number;
  hooks?: IndexHooks;
  /**
   * Opens the embedding model, called only when there is something to embed: a document without chunks, a pending
   * or failed chunk, a re-embed under way, `reembed`, or an `embedConfigKey` other than the one the vectors were
   * last checked against. Absent: keyword-only index (documents stay marked as lacking vectors for a later run).
   * A rejection is reported as a notice (and in `embeddingError`) and the run stays keyword-only.
   */
  openEmbedder?: () => Promise<Embedder>;
  /**
   * Identity of the configured embedding model, known without loading it (service/embedder.ts `configKey`): when it
   * differs from the stored one, the model is opened to compare fingerprints, so a model or backend switched in the
   * environment is re-embedded by the next run. Absent: the model is opened only for pending work.
   */
  embedConfigKey?: string;
  /** Re-embed every document with the model even when its fingerprint is the stored one (`recall index --reembed`). */
  reembed?: boolean;
  /**
   * Start or continue a re-embed when the model's fingerprint is not the stored one (`recall index`, watchers);
   * default false: a search's refresh embeds only what the model of the stored vectors would, never a whole re-embed.
   */
  followModelChange?: boolean;
}

/** What a run did; counts are sessions unless named otherwise. */
export interface IndexSummary {
  added: number;
  updated: number;
  /** Sessions dropped from the index; always 0 for an index run (sessions leave only by `recall forget`). */
  removed: number;
  /** Sessions whose source vanished in this run: marked deleted and kept (issue 9). */
  deleted: number;
  /** Sessions marked deleted before whose source is back (re-parsed or not). */
  restored: number;
  unchanged: number;
  /** Paths or containers that exist but could not be read in this run (their sessions are kept; retried next run). */
  unavailable: number;
  /** Indexed sessions left untouched because their container was unavailable. */
  kept: number;
  /** Turns written in this run (new or re-parsed). */
  turns: number;
  /** Bytes the parsers read from disk in this run (an appended Claude file costs only its new bytes). */
  bytesRead: number;
  /** Lines/records skipped as unreadable, and the first such place. */
  skippedLines: number;
  firstSkipped?: string;
  /** Files or containers that could not be read at all (warned). */
  failedUnits: number;
  /**
   * What the index does not hold of what the sources hold, after this run (issue 26): files rejected whole and
   * records of indexed sessions that could not be placed, with reasons (not-kept.ts). The state of the whole
   * index, not only of this run.
   */
  notKept: NotKept;
  /** True when anything was skipped, failed or unavailable (the JSON marks the run degraded). */
  degraded: boolean;
  elapsedMs: number;
  /** Roots that do not exist, per source. */
  missingRoots: Record<SourceId, string[]>;
  /** What the embedding phase did, or undefined when it did not run (nothing to embed, or no model). */
  embedding?: EmbeddingSummary;
  /** Why the model could not be opened for pending work (code and one line), or undefined. */
  embeddingError?: { code: string; message: string; hint: string | undefined };
}

/**
 * Keep the run connection's temporary files in memory (`PRAGMA temp_store = MEMORY`). What an index run puts there
 * are statement journals (sqlite.org/tempfiles.html §2.5): an insert into `documents` or `sessions` fires a trigger
 * (the kept counts, schema.ts) and may abort, so SQLite journals each page it changes that the transaction changed
 * before, and those journals went to a temporary file. Writing the first 5,000 sessions of the generated 20k corpus
 * (the writing thread alone, 100 sessions a transaction, as here) wrote 1,520 MB, 970 MB of them to that file (~5
 * pages for each document, ~14 for each session); with the journals in memory, 548 MB, and 12–19% less system time
 * (2026-11-30, 2-core Xeon, alternating rounds). The sorts a run makes are small (the segment list, the ids a repair
 * reads), so memory stays where it was: peak RSS of a first index of 20k sessions 297–314 MiB with it and without
 * (11 runs). The index it writes is the same: every row of turns, turn_outputs, documents, sessions, resume_states
 * and keyword_postings identical for 3,508 sessions.
 */
function keepStatementJournalsInMemory(db: Database): void {
  db.exec("PRAGMA temp_store = MEMORY");
}

/**
 * Run an incremental (or `full`) index.
 * @throws IndexError INDEX_LOCKED when another run holds the lock past `lockWaitMs`,
 *         INDEX_CORRUPT when the database cannot be opened
 */
export async function runIndex(options: IndexOptions): Promise<IndexSummary> {
  const started = performance.now();
  ensureRecallHome(options.recallHome);
  const lock: IndexLock = await acquireIndexLock(join(options.recallHome, homeFiles.lock), options.lockWaitMs ?? 0);
  let db: Database;
  try {
    db = openIndex(databasePath(options.recallHome));
    keepStatementJournalsInMemory(db);
  } catch (error) {
    lock.release(); // a damaged index must not keep the lock: `index --full` sets it aside next (issue 9)
    throw error;
  }
  const summary: IndexSummary = {
    added: 0,
    updated: 0,
    removed: 0,
    deleted: 0,
    restored: 0,
    unchanged: 0,
    unavailable: 0,
    kept: 0,
    turns: 0,
    bytesRead: 0,
    skippedLines: 0,
    failedUnits: 0,
    notKept: { rejectedFiles: [], rejectedFileCount: 0, unplacedRecords: [], unplacedRecordCount: 0 },
    degraded: false,
    elapsedMs: 0,
    missingRoots: Object.fromEntries(sourceIds.map((source) => [source, []])) as unknown as Record<SourceId, string[]>,
  };
  const keywords = new KeywordSegmentWriter(); // one segment per ~1M postings of this run (keyword-postings.ts)
  try {
    // a run that stopped before its last segment; checked before taking the write lock, as most runs find nothing
    if (!totalsInStep(db)) db.transaction(() => repairKeywordPostings(db)).immediate();
    for (const parser of parsers) {
      // Aider's history sits in project folders: those the sessions indexed so far (this run's included) name (known-projects.ts)
      const sourceOptions = parser.projectHistoryFile
        ? { ...options, roots: withKnownProjectFolders(db, options.roots) }
        : options;
      await indexSource(db, parser, sourceOptions, summary, keywords);
    }
    if (keywords.queued) db.transaction(() => keywords.flush(db, false)).immediate(); // merged below
    redactStoredSessions(db, options.recallHome); // once after schema v11: the copies only the index holds meet today's redaction (issue 37)
    // a first index ends in one segment per term list (compact.ts)
    const optimized = optimizeIfMostlyNew(db, summary.turns + summary.added + summary.updated);
    // the run's segments, and the stale rows of the documents it replaced (keyword-postings.ts)
    if (!optimized && keywords.segmentsWritten > 0) db.transaction(() => mergeKeywordSegments(db)).immediate();
    db.transaction(() => writeMeta(db, "last_indexed_at", String(Date.now()))).immediate();
    recoverInterruptedSwap(db, options.recallHome); // before anything trusts vectors/ (generations.ts)
    repairVectorFiles(db, options.recallHome, { exact: options.full, onNotice: options.hooks?.onNotice }); // deleted/damaged .vec files (issue 9)
    summary.embedding = await runEmbedding(db, options, summary);
    const changed =
      summary.added +
        summary.updated +
        summary.removed +
        summary.deleted +
        summary.restored +
        (summary.embedding?.embedded ?? 0) >
      0;
    snapshotIfDue(db, options.recallHome, { changed, onWarning: options.hooks?.onWarning }); // daily, under the lock (snapshot.ts; issue 9)
    summary.notKept = readNotKept(db);
  } finally {
    db.close();
    lock.release();
  }
  summary.degraded =
    summary.skippedLines > 0 ||
    summary.failedUnits > 0 ||
    summary.unavailable > 0 ||
    summary.embedding?.degraded === true ||
    summary.embeddingError !== undefined;
  summary.elapsedMs = performance.now() - started;
  return summary;
}

/**
 * True when the embedding phase has work without a model change: a document without chunks, a pending or failed
 * chunk (skipped and rejected chunks are done), or a re-embed under way (generations.ts).
 */
export function hasPendingEmbeddings(db: Database, includeReembed = true): boolean {
  return (
    db
      .query("SELECT 1 FROM documents d WHERE NOT EXISTS (SELECT 1 FROM chunks c WHERE c.document_id = d.id) LIMIT 1")
      .get() !== null ||
    db.query("SELECT 1 FROM chunks WHERE status IN (?, ?) LIMIT 1").get(chunkStatus.pending, chunkStatus.failed) !==
      null ||
    (includeReembed && readMeta(db, nextFingerprintKey) !== undefined)
  );
}

async function runEmbedding(
  db: Database,
  options: IndexOptions,
  summary: IndexSummary,
): Promise<EmbeddingSummary | undefined> {
  if (!options.openEmbedder) return undefined;
  const configChanged =
    options.embedConfigKey !== undefined && readMeta(db, embedConfigMetaKey) !== options.embedConfigKey;
  const hasDocuments = db.query("SELECT 1 FROM documents LIMIT 1").get() !== null;
  const follow = options.followModelChange ?? false;
  if (!hasDocuments || !((follow && (options.reembed || configChanged)) || hasPendingEmbeddings(db, follow)))
    return undefined;
  const hooks = options.hooks ?? {};
  let embedder: Embedder;
  try {
    embedder = await options.openEmbedder();
  } catch (error) {
    const message = isRecallError(error) ? error.message : (error as Error).message;
    summary.embeddingError = {
      code: isRecallError(error) ? error.code : "EMBED_FAILED",
      message,
      hint: isRecallError(error) ? error.hint : undefined,
    };
    hooks.onNotice?.(`keyword-only index: ${message} (documents without vectors are embedded by a later run)`);
    return undefined;
  }
  // The embedder belongs to the caller (a search reuses it for the query), so it is not disposed here.
  const result = await embedPending(db, options.recallHome, embedder, {
    reembed: options.reembed,
    followModelChange: follow,
    hooks: { onProgress: hooks.onEmbedProgress, onNotice: hooks.onNotice },
  });
  if (follow && options.embedConfigKey !== undefined && result.stopped === undefined)
    db.transaction(() => writeMeta(db, embedConfigMetaKey, options.embedConfigKey!)).immediate();
  return result;
}

/** True when two root lists name the same folders in the same order. */
const sameRoots = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((root, i) => root === b[i]);

async function indexSource(
  db: Database,
  parser: Parser,
  options: IndexOptions,
  summary: IndexSummary,
  keywords: KeywordSegmentWriter,
): Promise<void> {
  const hooks = options.hooks ?? {};
  const seenAt = Date.now();
  const quick =
    options.scan === "whole"
      ? undefined
      : { nowMs: seenAt, fullScanIntervalMs: fullScanIntervalMs(), changedPaths: options.changedPaths };
  // A parser that now keeps more than the one that indexed these sessions re-parses them all, once (Parser.version).
  const versionChanged = hasParserVersionChanged(db, parser);
  const roots = options.roots[parser.id] ?? [];
  const prescan = options.prescanned?.[parser.id];
  const plan = planSource(db, parser, roots, {
    full: options.full || versionChanged,
    quick,
    hooks: { onWarning: hooks.onWarning },
    wholeScan: prescan && sameRoots(prescan.roots, roots) ? prescan : undefined,
  });
  summary.missingRoots[parser.id] = plan.missingRoots;
  summary.unchanged += plan.unchanged;
  applySourceStates(db, parser.id, plan, seenAt, summary);
  for (const entry of plan.unavailable) {
    const kept = plan.keptByPath.get(entry.path) ?? 0;
    hooks.onWarning?.(
      `${entry.path}: unavailable (${entry.reason}); kept its ${kept} indexed session${kept === 1 ? "" : "s"} unchanged, will retry next run`,
    );
  }
  summary.unavailable += plan.unavailable.length;
  summary.kept += [...plan.keptByPath.values()].reduce((sum, n) => sum + n, 0);
  const failedContainers = await parseAndWrite(db, parser, plan, options, summary, seenAt, keywords);
  const update = scanStateUpdate(db, parser, plan, failedContainers);
  if (update) storeScanState(db, parser.id, update, seenAt, seenAtMetaKey(parser.id));
  storeRejectedFiles(db, parser.id, plan.listed, plan.vanished, plan.rejected, seenAt);
  if (versionChanged)
    recordParserVersion(db, parser, [...failedContainers, ...plan.unavailable.map((entry) => entry.path)]);
}

/**
 * After the re-parse a new parser version asks for: store the version, and clear the change key of the sessions that
 * could not be re-parsed now (under `notReparsed`: containers that failed, paths unavailable), so the next run re-parses
 * them once they can be read, although their files did not change.
 */
function recordParserVersion(db: Database, parser: Parser, notReparsed: readonly string[]): void {
  db.transaction(() => {
    const under = "source = ?1 AND (container_path = ?2 OR substr(container_path, 1, length(?3)) = ?3)";
    const clear = db.query(`UPDATE sessions SET change_key = '' WHERE ${under}`);
    const forgetResume = db.query(
      `DELETE FROM resume_states WHERE session_rowid IN (SELECT id FROM sessions WHERE ${under})`,
    );
    for (const path of notReparsed) {
      clear.run(parser.id, path, `${path}/`);
      forgetResume.run(parser.id, path, `${path}/`);
    }
    writeMeta(db, parserVersionMetaKey(parser.id), String(parser.version));
  }).immediate();
}

/** Mark vanished sessions deleted and returned-unchanged ones present, in one transaction. */
function applySourceStates(
  db: Database,
  source: SourceId,
  plan: SourcePlan,
  seenAt: number,
  summary: IndexSummary,
): void {
  if (plan.toMarkDeleted.length === 0 && plan.toRestore.length === 0) return;
  const previousScanAt = Number(readMeta(db, seenAtMetaKey(source)) ?? 0);
  db.transaction(() => {
    markSessionsDeleted(db, plan.toMarkDeleted, previousScanAt);
    markSessionsPresent(db, plan.toRestore, seenAt);
  }).immediate();
  summary.deleted += plan.toMarkDeleted.length;
  summary.restored += plan.toRestore.length;
  summary.unchanged += plan.toRestore.length;
}

/** The writing thread's garbage, collected as a large index run goes (garbage-budget.ts). */
const garbage = new GarbageBudget(writerCollectEveryBytes);

/**
 * Parse and write the planned units in batches.
 * @returns the container paths of units that could not be parsed (retried next run)
 */
async function parseAndWrite(
  db: Database,
  parser: Parser,
  plan: SourcePlan,
  options: IndexOptions,
  summary: IndexSummary,
  seenAt: number,
  keywords: KeywordSegmentWriter,
): Promise<Set<string>> {
  const hooks = options.hooks ?? {};
  const batchSize = options.batchSize ?? 100;
  const total = plan.toParse.length;
  const failedContainers = new Set<string>();
  let batch: Array<{ unit: SourceUnit; result: PreparedSession; isNew: boolean; wasDeleted: boolean }> = [];
  let done = 0;
  const flush = () => {
    const batchBytes = batch.reduce((sum, { result }) => sum + result.bytesRead, 0);
    db.transaction(() => {
      writePreparedSessions(db, batch, seenAt, keywords);
      for (const { result, isNew, wasDeleted } of batch) {
        summary.turns += result.turns.length;
        if (isNew) summary.added++;
        else summary.updated++;
        if (wasDeleted) summary.restored++;
      }
    }).immediate();
    batch = [];
    garbage.noteHandled(batchBytes); // the results received, and those parsed here when no worker runs
    hooks.onProgress?.({ source: parser.id, done, total });
  };
  if (total === 0) return failedContainers;
  // Loaded only when something is to be parsed: a run that finds nothing new never pays for it (~18 ms from source).
  const { parseAhead } = await import("./parse-pipeline.ts");
  let index = 0;
  for await (const outcome of parseAhead(parser.id, plan.toParse)) {
    const { unit, isNew, wasDeleted } = plan.toParse[index++]!;
    done++;
    if (!outcome.ok) {
      summary.failedUnits++;
      failedContainers.add(unit.containerPath);
      hooks.onWarning?.(
        `${outcome.error.includes(unit.key) ? outcome.error : `${unit.key}: ${outcome.error}`} (will retry next run)`,
      );
    } else {
      const { result } = outcome;
      summary.bytesRead += result.bytesRead;
      if (result.skipped.count > 0) {
        summary.skippedLines += result.skipped.count;
        summary.firstSkipped ??= result.skipped.first;
      }
      batch.push({ unit, result, isNew, wasDeleted });
    }
    if (batch.length >= batchSize || done === total) flush();
  }
  if (batch.length > 0) flush();
  return failedContainers;
}
