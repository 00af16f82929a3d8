/**
 * Size and start-up of the compiled binary (issues 5 and 14). Rows, each a fresh process ("cold" start: new
 * process, warm page cache), measured round-robin (one run of every row in turn, so the machine's noise falls on
 * all rows alike), 20 runs each after one unmeasured run:
 *   hello-world (compiled bun)           the floor: `bun build --compile` of `console.log("hello")`, same run
 *   recall --help                        target ≤ 2× hello-world
 *   recall search --keyword-only --no-reindex        on an index of the real corpus (../shared/corpus)
 *   recall search --keyword-only (freshness check)   target ≤ 40 ms
 * Prints the binary's size, then JSON lines {name, n, p50_ms, p95_ms, machine, commit} on stdout and a table with
 * the verdicts on stderr. Builds dist/recall from the current tree first (`bun scripts/build.ts --no-archive`), so
 * the numbers are those of the code checked out; `--no-build` measures the dist/recall already there.
 * Run: bun scripts/bench/binary.ts [--runs N] [--no-build]
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeCorpusRoots, hasCorpus, opencodeCorpusRoots } from "../../test/helpers/corpus.ts";
import { argValue, commit, machine, percentile, report, timeCommand, benchBinary } from "./lib.ts";

const runs = argValue("--runs", 20);
/** The keyword search's target with its freshness check, in ms (issue 14). */
const searchTargetMs = 40;

const binary = benchBinary();

/** One measured row: a command line run as a fresh process each time. */
interface Row {
  name: string;
  command: string[];
  samples: number[];
}

/** Runs every row `runs` times round-robin, after one unmeasured run each (page cache, first-run extraction). */
function measureRoundRobin(rows: Row[], env: Record<string, string | undefined>, cwd: string): void {
  for (const row of rows) timeCommand(row.command, { env, cwd });
  for (let run = 0; run < runs; run++) for (const row of rows) row.samples.push(timeCommand(row.command, { env, cwd }));
}

const work = mkdtempSync(join(tmpdir(), "recall-bench-binary-"));
try {
  writeFileSync(join(work, "hello.ts"), 'console.log("hello");\n');
  const hello = join(work, "hello");
  const compiled = Bun.spawnSync(["bun", "build", "--compile", join(work, "hello.ts"), "--outfile", hello], {
    cwd: work,
    stdout: "ignore",
    stderr: "inherit",
  });
  if (compiled.exitCode !== 0) throw new Error("cannot compile the hello-world");
  const sizeBytes = statSync(binary).size;
  process.stdout.write(
    `${JSON.stringify({ name: "binary size", n: 1, size_bytes: sizeBytes, hello_size_bytes: statSync(hello).size, machine, commit })}\n`,
  );

  const env = {
    PATH: process.env.PATH,
    HOME: join(work, "home"),
    RECALL_HOME: join(work, "recall-home"),
    NO_COLOR: "1",
    RECALL_OFFLINE: "1",
  };
  const helloRow: Row = { name: "hello-world (compiled bun)", command: [hello], samples: [] };
  const helpRow: Row = { name: "recall --help", command: [binary, "--help"], samples: [] };
  const rows = [helloRow, helpRow];
  let searchRow: Row | undefined;
  let freshSearchRow: Row | undefined;
  if (hasCorpus) {
    const sources = [
      ...claudeCorpusRoots().flatMap((dir) => ["--claude-dir", dir]),
      ...opencodeCorpusRoots().flatMap((dir) => ["--opencode-dir", dir]),
    ];
    timeCommand([binary, "index", "--keyword-only", ...sources], { env, cwd: work });
    const search = [binary, "search", "sqlite migration failed", "--keyword-only", "--json", ...sources];
    searchRow = {
      name: "recall search --keyword-only --no-reindex (corpus)",
      command: [...search, "--no-reindex"],
      samples: [],
    };
    freshSearchRow = { name: "recall search --keyword-only (corpus, freshness check)", command: search, samples: [] };
    rows.push(searchRow, freshSearchRow);
  } else {
    process.stderr.write("bench binary: ../shared/corpus is missing; search timings skipped\n");
  }
  measureRoundRobin(rows, env, work);
  for (const row of rows) report(row.name, row.samples);

  const p50 = (row: Row | undefined) => (row ? percentile(row.samples, 50) : undefined);
  const helloMs = p50(helloRow)!;
  const verdict = (ms: number | undefined, limitMs: number | undefined) =>
    ms === undefined
      ? "skipped"
      : `${(ms / helloMs).toFixed(2)}x hello${limitMs === undefined ? "" : `, limit ${limitMs.toFixed(1)} ms: ${ms <= limitMs ? "PASS" : "FAIL"}`}`;
  process.stderr.write(`\n${"name".padEnd(58)} ${"p50 ms".padStart(8)}\n`);
  for (const row of rows) process.stderr.write(`${row.name.padEnd(58)} ${p50(row)!.toFixed(1).padStart(8)}\n`);
  process.stderr.write(`binary ${(sizeBytes / 1e6).toFixed(1)} MB\n`);
  process.stderr.write(`--help: ${verdict(p50(helpRow), 2 * helloMs)}\n`);
  process.stderr.write(`keyword search --no-reindex: ${verdict(p50(searchRow), undefined)}\n`);
  process.stderr.write(`keyword search with freshness check: ${verdict(p50(freshSearchRow), searchTargetMs)}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
