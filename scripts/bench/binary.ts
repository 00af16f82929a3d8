/**
 * Size and start-up of the compiled binary (issue 5): binary size; `recall --help` and a keyword-only
 * `recall search` (with and without --no-reindex) on an index of the real corpus (../shared/corpus), each a
 * fresh process ("cold" start: new process, warm page cache), 20 runs, next to a compiled Bun hello-world
 * measured in the same run. Targets: --help ≤ 2× hello-world; keyword search ≤ 3× hello-world + 10 ms.
 * Prints JSON lines {name, n, p50_ms, p95_ms, machine, commit, ...} on stdout and a table on stderr.
 * Builds dist/recall first when it is missing (`bun run build`). Run: bun scripts/bench/binary.ts [--runs N]
 */
import { cpus, tmpdir } from "node:os";
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { claudeCorpusRoots, hasCorpus, opencodeCorpusRoots } from "../../test/helpers/corpus.ts";

const repo = resolve(import.meta.dir, "../..");
const runsArg = process.argv.indexOf("--runs");
const runs = runsArg > 0 ? Number(process.argv[runsArg + 1]) : 20;
const machine = `${cpus()[0]?.model ?? "cpu"} ${cpus().length}c`;
const commit = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: repo }).stdout.toString().trim() || "unknown";

function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Wall time in ms of one process run; throws when it fails. */
function timeRun(command: string[], env: Record<string, string | undefined>, cwd: string): number {
  const started = performance.now();
  const result = Bun.spawnSync(command, { env, cwd, stdout: "ignore", stderr: "pipe" });
  const elapsedMs = performance.now() - started;
  if (result.exitCode !== 0) throw new Error(`${command.join(" ")} exited ${result.exitCode}: ${result.stderr.toString().slice(0, 300)}`);
  return elapsedMs;
}

const rows: Array<{ name: string; n: number; p50_ms: number; p95_ms: number }> = [];
function measure(name: string, command: string[], env: Record<string, string | undefined>, cwd: string): number {
  timeRun(command, env, cwd); // one unmeasured run: page cache and first-run extraction out of the way
  const samples = Array.from({ length: runs }, () => timeRun(command, env, cwd));
  const row = { name, n: runs, p50_ms: Number(percentile(samples, 50).toFixed(1)), p95_ms: Number(percentile(samples, 95).toFixed(1)) };
  rows.push(row);
  process.stdout.write(`${JSON.stringify({ ...row, machine, commit })}\n`);
  return row.p50_ms;
}

const binary = join(repo, "dist", "recall");
if (!existsSync(binary)) {
  const build = Bun.spawnSync(["bun", join(repo, "scripts", "build.ts"), "--no-archive"], { cwd: repo, stderr: "inherit" });
  if (build.exitCode !== 0) throw new Error("bun run build failed");
}
const work = mkdtempSync(join(tmpdir(), "recall-bench-binary-"));
try {
  writeFileSync(join(work, "hello.ts"), 'console.log("hello");\n');
  const hello = join(work, "hello");
  const compiled = Bun.spawnSync(["bun", "build", "--compile", join(work, "hello.ts"), "--outfile", hello], { cwd: work, stdout: "ignore", stderr: "inherit" });
  if (compiled.exitCode !== 0) throw new Error("cannot compile the hello-world");
  const sizeBytes = statSync(binary).size;
  process.stdout.write(`${JSON.stringify({ name: "binary size", n: 1, size_bytes: sizeBytes, hello_size_bytes: statSync(hello).size, machine, commit })}\n`);

  const home = join(work, "home");
  const env = { PATH: process.env.PATH, HOME: home, RECALL_HOME: join(work, "recall-home"), NO_COLOR: "1", RECALL_OFFLINE: "1" };
  const helloMs = measure("hello-world (compiled bun)", [hello], env, work);
  const helpMs = measure("recall --help", [binary, "--help"], env, work);
  let searchMs: number | undefined;
  let searchReindexMs: number | undefined;
  if (hasCorpus) {
    const sources = [...claudeCorpusRoots().flatMap((dir) => ["--claude-dir", dir]), ...opencodeCorpusRoots().flatMap((dir) => ["--opencode-dir", dir])];
    timeRun([binary, "index", ...sources], env, work);
    const search = [binary, "search", "sqlite migration failed", "--keyword-only", "--json", ...sources];
    searchMs = measure("recall search --keyword-only --no-reindex (corpus)", [...search, "--no-reindex"], env, work);
    searchReindexMs = measure("recall search --keyword-only (corpus, staleness check)", search, env, work);
  } else {
    process.stderr.write("bench binary: ../shared/corpus is missing; search timings skipped\n");
  }
  const verdict = (ms: number | undefined, limit: number) => (ms === undefined ? "skipped" : `${(ms / helloMs).toFixed(2)}x hello, limit ${limit.toFixed(1)} ms: ${ms <= limit ? "PASS" : "FAIL"}`);
  process.stderr.write(`\n${"name".padEnd(58)} ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)}\n`);
  for (const row of rows) process.stderr.write(`${row.name.padEnd(58)} ${row.p50_ms.toFixed(1).padStart(8)} ${row.p95_ms.toFixed(1).padStart(8)}\n`);
  process.stderr.write(`binary ${(sizeBytes / 1e6).toFixed(1)} MB\n`);
  process.stderr.write(`--help: ${verdict(helpMs, 2 * helloMs)}\n`);
  process.stderr.write(`keyword search --no-reindex: ${verdict(searchMs, 3 * helloMs + 10)}\n`);
  process.stderr.write(`keyword search with staleness check: ${verdict(searchReindexMs, 3 * helloMs + 10)}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
