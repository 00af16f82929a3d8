/**
 * What every command that reads history shares: where the history is (the source options of source-args.ts, resolved),
 * RECALL_HOME, the example-history fallback for a machine with no agent history, and "open a fresh index" (staleness
 * check, then an incremental re-index when needed; the indexer and the progress bar are loaded only then).
 * Messages go to stderr; stdout is left to the command's results.
 */
import type { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { diskFullError, IndexError, SourceError } from "../errors.ts";
// Specific files, not the index barrel: a search that finds the index fresh never loads the indexer (issue 14).
import { isDamagedIndexError } from "../index/store/damage.ts";
import { databasePath, homeFiles, type RecallPaths } from "../home/paths.ts";
import { prepareRecallPaths } from "../index/store/home-migration.ts";
import type { IndexSummary } from "../index/write/indexer.ts";
import { describeIndexLockHolder, readIndexLockHolder } from "../index/store/lock.ts";
import { openIndex, readMeta } from "../index/schema.ts";
import { checkStaleness, needsIndexRun, type WholeScans } from "../index/plan/staleness.ts";
import {
  expandPath,
  parsers,
  resolveSourceRoots,
  type SourceContainer,
  type SourceId,
  type SourceRootMap,
} from "../parsers/index.ts";
import { neutralizeControls } from "../render/escapes.ts";
import { writeErr } from "../render/terminal.ts";
import type { EmbedderOpener } from "./embedder.ts";
import { findExamplesRoot } from "./examples.ts";
import { sourceFlagNames, sourceFlags, type SourceArgs } from "./source-args.ts";

/** Where history comes from and where the index lives, for one command run. */
export interface HistoryContext {
  /** the index folder: the data folder, or its `examples/` for the example history */
  recallHome: string;
  /** data, config and cache folders (models and `.env` are shared by the example history) */
  paths: RecallPaths;
  roots: SourceRootMap;
  /** True when the machine has no history and the shipped examples are used (separate index). */
  usingExamples: boolean;
  /** Containers already scanned to decide on the examples (default roots only), reused by the staleness check. */
  scanned: Partial<Record<SourceId, SourceContainer[]>>;
}

/** Write one line to stderr. */
export const warn = (line: string): void => writeErr(`${neutralizeControls(line)}\n`);

/**
 * Resolve roots and RECALL_HOME. When no source was named (flags or env), no index of real history exists yet and
 * the default places hold no session at all, switch to the example history in its own index (`RECALL_HOME/examples`)
 * so it is never mixed into real history, and say so in one line on stderr. Once an index of real history exists
 * it is always used (it is the archive, even when the agents deleted every file), and nothing is scanned here.
 */
export function resolveHistory(args: SourceArgs, env = process.env): HistoryContext {
  const flags = sourceFlags(args);
  checkNamedRoots(flags, env);
  const resolved = resolveSourceRoots(flags, env);
  const paths = prepareRecallPaths(env, {
    onNotice: (line) => warn(`recall: ${line}`),
    onWarning: (line) => warn(`recall: warning: ${line}`),
  });
  const recallHome = paths.data;
  if (Object.values(resolved.explicit).some(Boolean) || existsSync(databasePath(recallHome))) {
    return { recallHome, paths, roots: resolved.roots, usingExamples: false, scanned: {} };
  }
  const scanned = Object.fromEntries(
    parsers.map((parser) => [parser.id, parser.scan(resolved.roots[parser.id] ?? []).containers]),
  ) as Record<SourceId, SourceContainer[]>;
  if (Object.values(scanned).some((containers) => containers.length > 0))
    return { recallHome, paths, roots: resolved.roots, usingExamples: false, scanned };
  const examples = findExamplesRoot();
  if (!examples) return { recallHome, paths, roots: resolved.roots, usingExamples: false, scanned };
  warn(
    `recall: no agent history found at the default places of the ${parsers.length} agents recall reads (\`recall doctor\` lists the folders; name yours with --claude-dir, --codex-dir, …); using the example history shipped with recall`,
  );
  return {
    recallHome: join(recallHome, "examples"),
    paths,
    roots: { "claude-code": [join(examples, "claude-code")], opencode: [join(examples, "opencode")] },
    usingExamples: true,
    scanned: {},
  };
}

/**
 * A folder named on the command line that does not exist is a typo until proven otherwise: fail (exit 1) with the
 * path rather than index nothing from it (issue 15: `--claude-dir ~/.claude/projectz` exited 0, silent). Folders
 * from the environment or the defaults may be missing on a machine; they stay notices of the index run.
 * @throws SourceError SOURCE_UNREADABLE naming the flag and the path
 */
function checkNamedRoots(flags: Record<SourceId, string[]>, env: Record<string, string | undefined>): void {
  for (const [source, dirs] of Object.entries(flags) as Array<[SourceId, string[]]>) {
    for (const dir of dirs) {
      const path = expandPath(dir, env.HOME || homedir());
      if (!existsSync(path)) {
        throw new SourceError(`${sourceFlagNames[source]} ${dir}: no such folder`, path, {
          hint: "check the path for a typo; sessions indexed from there before stay in the index",
        });
      }
    }
  }
}

/**
 * Run an index with a progress bar (TTY only) and warnings on stderr; prints the summary line unless `quiet`.
 * With `full`, a damaged index is set aside (`index.sqlite.damaged-<time>`, never overwritten) and rebuilt from
 * the sources on disk; without it, the damage error (INDEX_CORRUPT, exit 1) offers the snapshot or `--full`.
 */
export async function indexWithProgress(
  context: HistoryContext,
  options: {
    full?: boolean;
    scan?: "quick" | "whole";
    lockWaitMs?: number;
    quiet?: boolean;
    embedder?: EmbedderOpener;
    followModelChange?: boolean;
    reembed?: boolean;
    /** Whole scans the caller's staleness check just made (indexer.ts `IndexOptions.prescanned`). */
    prescanned?: WholeScans;
  },
): Promise<IndexSummary> {
  const [{ createIndexProgress }, { renderIndexSummaryText }, { runIndex }] = await Promise.all([
    import("../render/progress.ts"),
    import("../render/index-summary.ts"),
    import("../index/write/indexer.ts"),
  ]);
  const progress = await createIndexProgress();
  try {
    const summary = await runIndexSettingDamageAside(context, options.full ?? false, options.lockWaitMs, () =>
      runIndex({
        recallHome: context.recallHome,
        roots: context.roots,
        full: options.full,
        scan: options.scan,
        lockWaitMs: options.lockWaitMs,
        prescanned: options.prescanned,
        hooks: {
          onProgress: progress.onProgress,
          onEmbedProgress: ({ done, total }) => progress.onProgress({ source: "embeddings", done, total }),
          onWarning: (message) => warn(`recall: warning: ${message}`),
          onNotice: options.quiet ? undefined : (message) => warn(`recall: ${message}`),
        },
        openEmbedder: options.embedder ? () => options.embedder!.open() : undefined,
        followModelChange: options.followModelChange,
        reembed: options.reembed,
        embedConfigKey: options.followModelChange ? options.embedder?.configKey() : undefined,
      }),
    );
    progress.stop();
    if (!options.quiet) warn(renderIndexSummaryText(summary));
    return summary;
  } finally {
    progress.stop();
  }
}

/** Runs `run`; under `full`, a damaged index is moved aside once and `run` tried again on a new file. */
async function runIndexSettingDamageAside(
  context: HistoryContext,
  full: boolean,
  lockWaitMs: number | undefined,
  run: () => Promise<IndexSummary>,
): Promise<IndexSummary> {
  try {
    return await run();
  } catch (error) {
    if (!full || !isDamagedIndexError(error)) throw error;
    const { setDamagedIndexAside } = await import("../index/store/snapshot.ts");
    const aside = await setDamagedIndexAside(context.recallHome, { lockWaitMs });
    warn(`recall: ${error.message}; kept it as ${aside} and rebuilding from the sources on disk`);
    return await run();
  }
}

/**
 * How long a search waits for another process's first index run before it fails with INDEX_BUILDING, in ms
 * (default 120 000; env RECALL_FIRST_INDEX_WAIT_MS). The wait ends earlier as soon as that run has committed
 * its keyword index (it may still be embedding) or has exited.
 */
export function firstIndexWaitMs(env = process.env): number {
  const value = Number(env.RECALL_FIRST_INDEX_WAIT_MS);
  return Number.isFinite(value) && value >= 0 ? value : 120_000;
}

/**
 * Opens the index at `path` read-only when it has a committed run: `runIndex` writes `last_indexed_at` in the
 * transaction that ends its parse phase, so a search never answers from a first run that is still half written
 * (issue 9: 24 of 32 concurrent first searches answered 0 results with exit 0). Returns undefined (nothing left
 * open) when the file is absent or mid-creation.
 * @throws IndexError INDEX_CORRUPT from `openIndex` when the file is not a readable recall database
 */
function openCommittedIndex(path: string, pageCacheKibibytes?: number): Database | undefined {
  if (!existsSync(path)) return undefined;
  let db: Database;
  try {
    db = openIndex(path, { readonly: true, pageCacheKibibytes });
  } catch (error) {
    // A database another run is creating reads as version 0 ("needs an upgrade"); corruption is rethrown.
    if (error instanceof IndexError && error.code === "INDEX_MISSING") return undefined;
    throw error;
  }
  let committed = false;
  try {
    committed = readMeta(db, "last_indexed_at") !== undefined;
  } finally {
    if (!committed) db.close();
  }
  return committed ? db : undefined;
}

/** True when the index at `path` has a committed run (see {@link openCommittedIndex}). */
function hasCommittedIndex(path: string): boolean {
  const db = openCommittedIndex(path);
  db?.close();
  return db !== undefined;
}

function indexBuildingError(context: HistoryContext): IndexError {
  const holder = describeIndexLockHolder(join(context.recallHome, homeFiles.lock));
  return new IndexError(
    "INDEX_BUILDING",
    `the first index of ${context.recallHome} is still being built (by ${holder})`,
    {
      hint: "run `recall index --wait`, then search again",
    },
  );
}

/**
 * Builds the first index, or waits (bounded by `firstIndexWaitMs`) for the run that is building it: polls
 * every 250 ms until this process gets the lock (and indexes what is left) or the other run commits.
 * @throws IndexError INDEX_BUILDING when the other run has neither committed nor exited in time
 */
async function buildFirstIndex(context: HistoryContext, embedder: EmbedderOpener | undefined): Promise<void> {
  const path = databasePath(context.recallHome);
  const deadline = Date.now() + firstIndexWaitMs();
  let announced = false;
  for (;;) {
    try {
      await indexWithProgress(context, { lockWaitMs: 0, quiet: true, embedder });
      return;
    } catch (error) {
      if (!(error instanceof IndexError && error.code === "INDEX_LOCKED")) throw error;
    }
    if (hasCommittedIndex(path))
      return warn("recall: another index run is in progress; answering from the last committed index");
    if (Date.now() >= deadline) throw indexBuildingError(context);
    if (!announced)
      warn(
        `recall: waiting for the first index, which another recall process is building (up to ${Math.round((deadline - Date.now()) / 1000)} s)`,
      );
    announced = true;
    await Bun.sleep(250);
  }
}

/**
 * Open the index for reading, first bringing it up to date unless `reindex` is false: without a committed
 * index, build it or wait for the run building it (`buildFirstIndex`); a stale one (file stats changed) is
 * updated incrementally, and when another run holds the lock or the disk is full the search answers from the last
 * committed state and says so.
 * @param options.pageCacheKibibytes the returned connection's page cache (schema.ts `oneShotPageCacheKibibytes` for a
 *        command that answers once and exits); default SQLite's
 * @throws IndexError INDEX_MISSING when there is no committed index and `reindex` is false (INDEX_BUILDING
 *         when a first run is in progress), INDEX_BUILDING when the wait for another first run runs out
 */
export async function openFreshIndex(
  context: HistoryContext,
  options: { reindex: boolean; embedder?: EmbedderOpener; pageCacheKibibytes?: number },
): Promise<Database> {
  const path = databasePath(context.recallHome);
  const reader = { readonly: true, pageCacheKibibytes: options.pageCacheKibibytes };
  // One read-only connection answers "committed?" and "stale?", and is the one returned when nothing changed.
  const committed = openCommittedIndex(path, options.pageCacheKibibytes);
  if (!committed) {
    if (options.reindex) await buildFirstIndex(context, options.embedder);
    else if (readIndexLockHolder(join(context.recallHome, homeFiles.lock))) throw indexBuildingError(context);
    else if (existsSync(path))
      throw new IndexError("INDEX_MISSING", `the index at ${path} is incomplete: its first run did not finish`, {
        hint: "run `recall index`",
      });
    return openIndex(path, reader);
  }
  if (!options.reindex) return committed;
  const staleness = checkStaleness(committed, context.roots, context.scanned);
  // A whole walk that found nothing is stored too, or every next search would walk the whole history again.
  if (!needsIndexRun(staleness)) return committed;
  committed.close();
  try {
    // the run plans from the folders the check just walked instead of walking them again (issue 42)
    await indexWithProgress(context, {
      lockWaitMs: 0,
      quiet: true,
      embedder: staleness.stale ? options.embedder : undefined, // storing a walk embeds nothing pending
      prescanned: staleness.wholeScans,
    });
  } catch (error) {
    // Storing a walk that found nothing only spares the next checks a walk: whatever stops it, answer as before.
    if (!staleness.stale) return openIndex(path, reader);
    const diskFull = diskFullError(error);
    if (diskFull)
      warn(`recall: warning: ${diskFull.message}: answering from the last committed index (${diskFull.hint})`);
    else if (error instanceof IndexError && error.code === "INDEX_LOCKED")
      warn("recall: another index run is in progress; answering from the last committed index");
    else throw error;
  }
  return openIndex(path, reader);
}
