/**
 * Bench (issue 3): index and keyword-search speed, on the real corpus (../shared/corpus, claude-code
 * and opencode) and on a corpus scaled up by scripts/gen-corpus.ts to --sessions (default 20,000).
 * Measures, per corpus: full index (CLI wall time, fresh RECALL_HOME), no-change re-index (in-process
 * `runIndex`, and CLI wall time), the staleness check alone, and cold `recall search` wall time
 * (p50 over 20 runs, BM25 only) with and without the automatic re-index, next to a Bun hello-world
 * started the same way in the same run (the physical floor of a `bun` process start).
 * Targets: cold search at 20k sessions < 3x hello-world + 15 ms; no-change re-index of the real corpus
 * < 50 ms; full index of 20k sessions < 30 s.
 * Usage: bun scripts/bench/index-search.ts [--sessions 20000] [--runs 20]
 */
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { checkStaleness, databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { argValue, ensureGeneratedCorpus, listDirs, percentile, report, sample, timeCommand } from "./lib.ts";

const repo = resolve(import.meta.dir, "../..");
const sessions = argValue("--sessions", 20_000);
const runs = argValue("--runs", 20);
const corpus = resolve(repo, "../shared/corpus");


interface BenchCorpus {
  label: string;
  claude: string[];
  opencode: string[];
}

const corpora: BenchCorpus[] = [];
if (existsSync(join(corpus, "claude-code"))) {
  corpora.push({
    label: "real",
    claude: listDirs(join(corpus, "claude-code")),
    opencode: listDirs(join(corpus, "opencode")).map((dir) => join(dir, ".local/share/opencode")),
  });
} else {
  process.stderr.write("index-search: ../shared/corpus is missing; only the scaled corpus is measured\n");
}
const scaled = ensureGeneratedCorpus(sessions);
corpora.push({ label: `scaled-${sessions}`, claude: [join(scaled, "projects")], opencode: [join(scaled, "opencode")] });

const hello = join(tmpdir(), "recall-bench-hello.ts");
writeFileSync(hello, 'console.log("hello");\n');

for (const bench of corpora) {
  const home = join(tmpdir(), `recall-bench-home-${bench.label}`);
  rmSync(home, { recursive: true, force: true });
  const sourceFlags = [...bench.claude.flatMap((dir) => ["--claude-dir", dir]), ...bench.opencode.flatMap((dir) => ["--opencode-dir", dir])];
  const env = { ...process.env, RECALL_HOME: home, NO_COLOR: "1", RECALL_OFFLINE: "1" };
  const cli = (args: string[]) => ["bun", join(repo, "src/cli.ts"), ...args];
  const roots = { "claude-code": bench.claude, opencode: bench.opencode };

  const fullMs = timeCommand(cli(["index", "--keyword-only", ...sourceFlags]), { env, cwd: repo });
  const db = openIndex(databasePath(home), { readonly: true });
  const indexed = (db.query("SELECT count(*) AS n, sum(turn_count) AS t FROM sessions").get() as { n: number; t: number });
  report(`index.full.${bench.label}`, [fullMs], { sessions: indexed.n, turns: indexed.t });

  const staleness = sample(runs, () => void checkStaleness(db, roots));
  report(`index.staleness_check.${bench.label}`, staleness);
  db.close();

  const noChange: number[] = [];
  for (let i = 0; i < 10; i++) noChange.push((await runIndex({ recallHome: home, roots })).elapsedMs);
  report(`index.no_change.in_process.${bench.label}`, noChange, { target_ms: bench.label === "real" ? 50 : undefined });
  report(`index.no_change.cli.${bench.label}`, sample(10, () => timeCommand(cli(["index", "--keyword-only", ...sourceFlags]), { env, cwd: repo })));

  const helloMs = sample(runs, () => timeCommand(["bun", hello]));
  const queries = ["docker network bridge", "fix failing test", "ERR_MODULE_NOT_FOUND", "refactor parser session", "how did we configure the cache?"];
  const searchNoReindex = sample(runs, () => timeCommand(cli(["search", queries[Math.floor(Math.random() * queries.length)]!, "--keyword-only", "--no-reindex", ...sourceFlags]), { env, cwd: repo }));
  const searchWithCheck = sample(runs, () => timeCommand(cli(["search", queries[Math.floor(Math.random() * queries.length)]!, "--keyword-only", ...sourceFlags]), { env, cwd: repo }));
  const floor = percentile(helloMs, 50);
  report(`hello_world.bun.${bench.label}`, helloMs);
  report(`search.cold.keyword.no_reindex.${bench.label}`, searchNoReindex, { ratio_to_hello: Math.round((percentile(searchNoReindex, 50) / floor) * 100) / 100, target_ms: Math.round(3 * floor + 15) });
  report(`search.cold.keyword.with_staleness_check.${bench.label}`, searchWithCheck, { ratio_to_hello: Math.round((percentile(searchWithCheck, 50) / floor) * 100) / 100, target_ms: Math.round(3 * floor + 15) });
  rmSync(home, { recursive: true, force: true });
}
