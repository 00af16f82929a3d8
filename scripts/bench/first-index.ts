/**
 * Bench (issue 14): the first, full keyword-only index of the generated 20k corpus (scripts/gen-corpus.ts through
 * lib.ts `ensureGeneratedCorpus`: 25,292 Claude Code files and an OpenCode database), target 15 s.
 *   `first-index`: `bun src/cli.ts index --keyword-only --json` in a fresh RECALL_HOME (RECALL_OFFLINE=1), a child
 *     process per run (wall time around it) {peak_rss_bytes: the child's largest maxRSS, cpu_user_ms and cpu_system_ms
 *     of its median run, sessions, turns}. Snapshot included: a first run takes one (src/index/store/snapshot.ts).
 *   `first-index.phase.<phase>` (with --phases): where the work goes, each step of the pipeline run on its own over
 *     the whole corpus in this one thread, in order (the real run spreads parse…prepare over the parse workers,
 *     src/index/write/parse-pipeline.ts, while the main thread writes; each row's p50_ms is the step's total in ms):
 *     `list` (scan + listUnits), `parse` (parser.parse with outputs), `redact` (redactParseResult, outputs capped),
 *     `documents` (turn and session documents with hashes and side-index text), `outputs` (archive.ts
 *     encodeTurnOutputs: the capped outputs as gzip), `prepare` (writer.ts prepareSession, which does the two
 *     before and the JSON columns), `fts` (the statements writing documents_fts and documents_cjk), `write` (every
 *     other statement of writePreparedSessions) and `commit`, in transactions of 100 sessions as indexer.ts writes them.
 * Prints one JSON line per measurement {name, n, p50_ms, p95_ms, …, machine, commit}. Options: --runs N (1), --phases.
 */
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { capArchivedOutput, encodeTurnOutputs } from "../../src/index/store/archive.ts";
import { buildSessionDocument, buildTurnDocument } from "../../src/index/write/documents.ts";
import { databasePath, ensureRecallHome } from "../../src/home/paths.ts";
import { openIndex } from "../../src/index/schema.ts";
import {
  prepareDocument,
  prepareSession,
  writePreparedSessions,
  type SessionToWrite,
} from "../../src/index/write/writer.ts";
import { parsers, type ParseResult, type SourceRootMap } from "../../src/parsers/index.ts";
import { redactParseResult } from "../../src/redact/index.ts";
import { argValue, ensureGeneratedCorpus, report } from "./lib.ts";

const runs = argValue("--runs", 1);
const corpus = ensureGeneratedCorpus(20000);
const roots: SourceRootMap = { "claude-code": [join(corpus, "projects")], opencode: [join(corpus, "opencode")] };
const repo = resolve(import.meta.dir, "../..");

/** One child run of `recall index`: wall ms, peak RSS, CPU ms and the summary's counts. */
function indexOnce(): {
  wallMs: number;
  rssBytes: number;
  userMs: number;
  systemMs: number;
  sessions: number;
  turns: number;
} {
  const home = mkdtempSync(join(tmpdir(), "recall-first-index-"));
  try {
    const command = [
      "bun",
      join(repo, "src/cli.ts"),
      "index",
      "--keyword-only",
      "--json",
      "--claude-dir",
      roots["claude-code"]![0]!,
      "--opencode-dir",
      roots.opencode![0]!,
    ];
    const started = performance.now();
    const child = Bun.spawnSync(command, {
      cwd: repo,
      env: { ...process.env, RECALL_HOME: home, RECALL_OFFLINE: "1" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const wallMs = performance.now() - started;
    if (child.exitCode !== 0)
      throw new Error(`recall index exited ${child.exitCode}: ${child.stderr.toString().slice(0, 500)}`);
    const summary = JSON.parse(child.stdout.toString()) as { added: number; updated: number; turns: number };
    const usage = child.resourceUsage!;
    return {
      wallMs,
      rssBytes: usage.maxRSS,
      userMs: Number(usage.cpuTime.user) / 1000,
      systemMs: Number(usage.cpuTime.system) / 1000,
      sessions: summary.added + summary.updated,
      turns: summary.turns,
    };
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
}

const results = Array.from({ length: runs }, indexOnce);
const median = results.toSorted((a, b) => a.wallMs - b.wallMs)[Math.ceil(results.length / 2) - 1]!;
report(
  "first-index",
  results.map((run) => run.wallMs),
  {
    peak_rss_bytes: Math.max(...results.map((run) => run.rssBytes)),
    cpu_user_ms: Math.round(median.userMs),
    cpu_system_ms: Math.round(median.systemMs),
    sessions: median.sessions,
    turns: median.turns,
    target_ms: 15000,
  },
);

/** Step totals in ms of one in-thread pass over the corpus (see the file's docstring). */
function phaseTotals(): { totals: Record<string, number>; sessions: number; turns: number } {
  const totals: Record<string, number> = {
    list: 0,
    parse: 0,
    redact: 0,
    documents: 0,
    outputs: 0,
    prepare: 0,
    fts: 0,
    write: 0,
    commit: 0,
  };
  const timed = <T>(phase: string, step: () => T): T => {
    const started = performance.now();
    try {
      return step();
    } finally {
      totals[phase]! += performance.now() - started;
    }
  };
  const home = mkdtempSync(join(tmpdir(), "recall-first-index-phases-"));
  ensureRecallHome(home);
  const db = timeFtsStatements(openIndex(databasePath(home)), (ms) => (totals.fts! += ms));
  let sessions = 0;
  let turns = 0;
  try {
    for (const parser of parsers) {
      const sourceRoots = roots[parser.id];
      if (!sourceRoots) continue;
      const units = timed("list", () => parser.listUnits(parser.scan(sourceRoots).containers));
      let batch: SessionToWrite[] = [];
      const flush = () => {
        const ftsBefore = totals.fts!;
        timed("write", () => {
          db.exec("BEGIN IMMEDIATE");
          writePreparedSessions(db, batch, Date.now());
        });
        totals.write! -= totals.fts! - ftsBefore;
        timed("commit", () => db.exec("COMMIT"));
        batch = [];
      };
      for (const unit of units) {
        const parsed = timed("parse", () => parser.parse(unit, { withOutputs: true }));
        const redacted = timed("redact", () => redactParseResult(parsed, { capOutput: capArchivedOutput }));
        timed("documents", () => buildDocuments(redacted));
        timed("outputs", () => redacted.turns.forEach(encodeTurnOutputs));
        batch.push({ unit, result: timed("prepare", () => prepareSession(redacted)) });
        sessions++;
        turns += redacted.turns.length;
        if (batch.length >= 100) flush();
      }
      if (batch.length > 0) flush();
    }
  } finally {
    db.close();
    rmSync(home, { recursive: true, force: true });
  }
  return { totals, sessions, turns };
}

/** The documents prepareSession builds for a parse result (turn documents, and the session document). */
function buildDocuments(result: ParseResult): void {
  for (const turn of result.turns) prepareDocument(buildTurnDocument(turn));
  const files = [...new Set(result.turns.flatMap((turn) => turn.files))];
  prepareDocument(
    buildSessionDocument(
      result.session,
      result.turns.map((turn) => turn.prompt),
      files,
    ),
  );
}

/** `db`, whose statements that write documents_fts or documents_cjk report their run time (ms) to `onFts`. */
function timeFtsStatements(db: Database, onFts: (ms: number) => void): Database {
  const query = db.query.bind(db);
  const timedStatements = new WeakSet<object>(); // db.query returns the same cached statement for the same SQL
  db.query = ((sql: string) => {
    const statement = query(sql);
    if (!/INSERT INTO documents_(fts|cjk)/.test(sql) || timedStatements.has(statement)) return statement;
    timedStatements.add(statement);
    const run = statement.run.bind(statement);
    statement.run = ((...values: Parameters<typeof run>) => {
      const started = performance.now();
      try {
        return run(...values);
      } finally {
        onFts(performance.now() - started);
      }
    }) as typeof statement.run;
    return statement;
  }) as typeof db.query;
  return db;
}

if (process.argv.includes("--phases")) {
  const { totals, sessions, turns } = phaseTotals();
  for (const [phase, ms] of Object.entries(totals)) report(`first-index.phase.${phase}`, [ms], { sessions, turns });
}
