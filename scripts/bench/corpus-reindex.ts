/**
 * Bench (issue 11): the incremental re-index of the whole real corpus (../shared/corpus, all six sources; roots as
 * test/helpers/corpus.ts `allCorpusRoots` gives them), in process, keyword-only (no embedder).
 *   `corpus-reindex-no-change`: index everything once into a temp RECALL_HOME with `runIndex`, a full garbage
 *     collection (the first index's garbage is not there in a fresh process), one warm-up run, then
 *     --runs `runIndex` calls with nothing changed (wall time around the awaited call) — target 50 ms;
 *     {target_ms, sessions, containers} are the indexed sessions (prompt-only ones included) and the stored container rows.
 *   `corpus-reindex-one-append`: the same on a temp copy of the corpus, where before each run one line (a neutral
 *     `queue-operation` record) is appended to the largest Claude Code transcript: a stats scan of every source,
 *     then listUnits of Claude Code and a resumed parse + write of that one session {bytes_read: of the last run}.
 *     In process, the prompt-history files Claude Code's listUnits reads stay in the parsers' per-process read cache
 *     between runs (src/parsers/shared/prompt-history.ts); a fresh `recall` process decodes them again.
 *   With --profile, or when the no-change p50 is over the target: where a no-change run spends its time, measured by
 *     running runIndex's steps one by one (src/index/write/indexer.ts; its store step calls the same functions): `corpus-reindex-no-change.open` (home check, index.lock, openIndex; extra
 *     open_database_p50_ms = openIndex alone), `.<source>` (indexSource: planSource + storing the container rows;
 *     extra columns: scan_p50_ms = the `parser.scan` inside that planSource call, compare_p50_ms = the rest of
 *     planSource (stored container rows read and compared), store_p50_ms = the container-rows transaction,
 *     list_units_p50_ms = `listUnits` of all the source's containers, which a no-change run skips but any change in
 *     the source pays (taken after the run's steps; the prompt-history read cache holds 8 files and the corpus has 9,
 *     so here it decodes its history files again each time, as a fresh process does); for Aider,
 *     known_projects_p50_ms = adding the known project folders to its roots),
 *     `.finish` (last_indexed_at, vector-file check, snapshot check) and `.close` (db close, lock release).
 * Prints one JSON line per measurement {name, n, p50_ms, p95_ms, …, machine, commit}. Never writes under the
 * corpus; its temp folders are removed at the end. Exits 0 with a note on stderr when the corpus is missing.
 * Options: --runs N (20), --profile.
 */
import { appendFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seenAtMetaKey } from "../../src/index/store/archive.ts";
import { databasePath, ensureRecallHome, homeFiles } from "../../src/home/paths.ts";
import { runIndex, type IndexSummary } from "../../src/index/write/indexer.ts";
import { storeScanState } from "../../src/index/plan/containers.ts";
import { fullScanIntervalMs } from "../../src/index/plan/freshness.ts";
import { withKnownProjectFolders } from "../../src/index/plan/known-projects.ts";
import { acquireIndexLock } from "../../src/index/store/lock.ts";
import { planSource, scanStateUpdate } from "../../src/index/plan/plan.ts";
import { openIndex, writeMeta } from "../../src/index/schema.ts";
import { snapshotIfDue } from "../../src/index/store/snapshot.ts";
import { repairVectorFiles } from "../../src/index/vectors/vector-files.ts";
import { claudeCodeParser, isTranscript } from "../../src/parsers/claude-code.ts";
import { closeCursorDatabases } from "../../src/parsers/cursor.ts";
import { parsers, type Parser, type SourceRootMap } from "../../src/parsers/index.ts";
import { closeOpencodeDatabases } from "../../src/parsers/opencode.ts";
import { allCorpusRoots, corpusDir } from "../../test/helpers/corpus.ts";
import { argValue, copyTreeWritable, percentile, report } from "./lib.ts";

const runs = argValue("--runs", 20);
const targetMs = 50;

/** Wall times in ms of `count` awaited `runIndex` calls on `home`, and their summaries; `prepare` runs before each, untimed. */
async function timeRuns(
  home: string,
  roots: SourceRootMap,
  count: number,
  prepare: () => void = () => {},
): Promise<{ times: number[]; summaries: IndexSummary[] }> {
  const times: number[] = [];
  const summaries: IndexSummary[] = [];
  for (let run = 0; run < count; run++) {
    prepare();
    const started = performance.now();
    summaries.push(await runIndex({ recallHome: home, roots }));
    times.push(performance.now() - started);
  }
  return { times, summaries };
}

/** Index the corpus at `roots` into `home` (a full first run). @returns sessions and container rows stored */
async function indexOnce(home: string, roots: SourceRootMap): Promise<{ sessions: number; containers: number }> {
  const summary = await runIndex({ recallHome: home, roots });
  if (summary.degraded)
    process.stderr.write(
      `corpus-reindex: first index degraded (skipped ${summary.skippedLines}, failed ${summary.failedUnits}, unavailable ${summary.unavailable})\n`,
    );
  const db = openIndex(databasePath(home), { readonly: true });
  try {
    const count = (sql: string) => (db.query(sql).get() as { n: number }).n;
    return {
      sessions: count("SELECT count(*) AS n FROM sessions"),
      containers: count("SELECT count(*) AS n FROM containers"),
    };
  } finally {
    db.close();
  }
}

/** Sessions a run added, updated, marked deleted or restored (0 for a run that found nothing changed). */
const changedSessions = (summary: IndexSummary): number =>
  summary.added + summary.updated + summary.deleted + summary.restored;

/** Per-phase wall times of no-change runs, in ms, keyed by phase name. */
type PhaseTimes = Map<string, number[]>;

/** Add one wall time in ms to `phase` in `times`. */
function record(times: PhaseTimes, phase: string, elapsedMs: number): void {
  const list = times.get(phase) ?? [];
  list.push(elapsedMs);
  times.set(phase, list);
}

/** Run the synchronous `fn`, add its wall time to `phase` in `times`, and return what it returned. */
function timed<T>(times: PhaseTimes, phase: string, fn: () => T): T {
  const started = performance.now();
  const value = fn();
  record(times, phase, performance.now() - started);
  return value;
}

/**
 * The steps of one no-change `runIndex` (indexer.ts), each timed into `times`. Throws when a source is not
 * unchanged (then this is not a no-change profile). `listUnits` of every source is timed after the run.
 */
async function profileOneRun(home: string, roots: SourceRootMap, times: PhaseTimes): Promise<void> {
  const started = performance.now();
  ensureRecallHome(home);
  const lock = await acquireIndexLock(join(home, homeFiles.lock), 0);
  const db = timed(times, "open.database", () => openIndex(databasePath(home)));
  record(times, "open", performance.now() - started);
  try {
    for (const parser of parsers) {
      const sourceRoots =
        parser.id === "aider" ? timed(times, "aider.known_projects", () => withKnownProjectFolders(db, roots)) : roots;
      const seenAt = Date.now();
      // The parser planSource calls, with its scan timed inside that very call.
      const timedScan: Parser = {
        ...parser,
        scan: (scanRoots) => timed(times, `${parser.id}.scan`, () => parser.scan(scanRoots)),
      };
      const quick = { nowMs: seenAt, fullScanIntervalMs: fullScanIntervalMs() };
      const plan = timed(times, `${parser.id}.plan`, () =>
        planSource(db, timedScan, sourceRoots[parser.id] ?? [], { quick }),
      );
      if (plan.toParse.length + plan.toMarkDeleted.length + plan.toRestore.length + plan.unavailable.length > 0) {
        throw new Error(`corpus-reindex: ${parser.id} is not unchanged; no profile`);
      }
      timed(times, `${parser.id}.store`, () => {
        const update = scanStateUpdate(db, parser, plan, new Set());
        if (update) storeScanState(db, parser.id, update, seenAt, seenAtMetaKey(parser.id));
      });
      timed(times, `${parser.id}.list_units`, () =>
        parser.listUnits(parser.scan(sourceRoots[parser.id] ?? []).containers),
      );
    }
    timed(times, "finish", () => {
      db.transaction(() => writeMeta(db, "last_indexed_at", String(Date.now()))).immediate();
      repairVectorFiles(db, home, {});
      snapshotIfDue(db, home, { changed: false });
    });
  } finally {
    timed(times, "close", () => {
      db.close();
      lock.release();
    });
  }
}

/** Print the profile rows (see the header) from `count` profiled no-change runs. */
async function reportProfile(
  home: string,
  roots: SourceRootMap,
  count: number,
  sessionsBySource: Map<string, number>,
): Promise<void> {
  const times: PhaseTimes = new Map();
  for (let run = 0; run < count; run++) await profileOneRun(home, roots, times);
  const of = (phase: string) => times.get(phase) ?? [];
  const median = (phase: string) => Math.round(percentile(of(phase), 50) * 100) / 100;
  report("corpus-reindex-no-change.open", of("open"), { open_database_p50_ms: median("open.database") });
  for (const parser of parsers) {
    const id = parser.id;
    // indexSource = planSource + storeScanState (+ the known project folders for Aider); the scan runs inside planSource.
    const sourceTotal = of(`${id}.plan`).map(
      (plan, run) => plan + (of(`${id}.store`)[run] ?? 0) + (of(`${id}.known_projects`)[run] ?? 0),
    );
    const compare = of(`${id}.plan`).map((plan, run) => plan - (of(`${id}.scan`)[run] ?? 0));
    report(`corpus-reindex-no-change.${id}`, sourceTotal, {
      sessions: sessionsBySource.get(id) ?? 0,
      containers: parser.scan(roots[id] ?? []).containers.length,
      scan_p50_ms: median(`${id}.scan`),
      compare_p50_ms: Math.round(percentile(compare, 50) * 100) / 100,
      store_p50_ms: median(`${id}.store`),
      list_units_p50_ms: median(`${id}.list_units`),
      ...(id === "aider" ? { known_projects_p50_ms: median("aider.known_projects") } : {}),
    });
  }
  report("corpus-reindex-no-change.finish", of("finish"));
  report("corpus-reindex-no-change.close", of("close"));
}

/** Sessions per source stored in the index at `home`. */
function sessionsPerSource(home: string): Map<string, number> {
  const db = openIndex(databasePath(home), { readonly: true });
  try {
    const rows = db
      .query<{ source: string; n: number }, []>("SELECT source, count(*) AS n FROM sessions GROUP BY source")
      .all();
    return new Map(rows.map((row) => [row.source, row.n]));
  } finally {
    db.close();
  }
}

if (!existsSync(join(corpusDir, "claude-code"))) {
  process.stderr.write(`corpus-reindex: ${corpusDir} is missing; nothing measured\n`);
} else {
  const tempDirs: string[] = [];
  const tempDir = (prefix: string) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    tempDirs.push(dir);
    return dir;
  };
  try {
    // No change, on the shared corpus itself (read only: the index lives in the temp home).
    const home = tempDir("recall-bench-reindex-home-");
    const roots = allCorpusRoots(corpusDir);
    const counts = await indexOnce(home, roots);
    Bun.gc(true); // the full index's garbage is not what a re-index in a fresh `recall` process meets
    await timeRuns(home, roots, 1); // warm-up
    const noChange = await timeRuns(home, roots, runs);
    const changed = noChange.summaries.filter((summary) => changedSessions(summary) > 0 || summary.degraded).length;
    if (changed > 0)
      process.stderr.write(`corpus-reindex: ${changed} of the no-change runs changed or skipped something\n`);
    report("corpus-reindex-no-change", noChange.times, { target_ms: targetMs, ...counts });
    if (process.argv.includes("--profile") || percentile(noChange.times, 50) > targetMs) {
      await reportProfile(home, roots, runs, sessionsPerSource(home));
    }

    // One appended line, on a writable copy of the corpus.
    const copy = join(tempDir("recall-bench-reindex-corpus-"), "corpus");
    copyTreeWritable(corpusDir, copy);
    const copyRoots = allCorpusRoots(copy);
    const copyHome = tempDir("recall-bench-reindex-home-");
    const copyCounts = await indexOnce(copyHome, copyRoots);
    Bun.gc(true);
    const largest = claudeCodeParser
      .scan(copyRoots["claude-code"])
      .containers.filter(isTranscript)
      .sort((a, b) => b.sizeBytes - a.sizeBytes)[0];
    if (!largest) throw new Error("corpus-reindex: no Claude Code transcript in the corpus copy");
    let appended = 0;
    const appendOneLine = () =>
      appendFileSync(
        largest.path,
        `${JSON.stringify({ type: "queue-operation", operation: "enqueue", content: `bench append ${appended++}` })}\n`,
      );
    await timeRuns(copyHome, copyRoots, 1, appendOneLine); // warm-up
    const oneAppend = await timeRuns(copyHome, copyRoots, runs, appendOneLine);
    const notOne = oneAppend.summaries.filter(
      (summary) => summary.updated !== 1 || changedSessions(summary) !== 1,
    ).length;
    if (notOne > 0)
      process.stderr.write(`corpus-reindex: ${notOne} of the one-append runs did not update exactly one session\n`);
    const bytesRead = oneAppend.summaries.at(-1)?.bytesRead ?? 0;
    report("corpus-reindex-one-append", oneAppend.times, { ...copyCounts, bytes_read: bytesRead });
  } finally {
    closeCursorDatabases();
    closeOpencodeDatabases();
    for (const dir of tempDirs) rmSync(dir, { recursive: true, force: true });
  }
}
