/**
 * Shared helpers of the benchmark scripts: percentiles, the machine/commit stamp, one JSON line
 * per measurement on stdout, and timing a command (wall time of a child process).
 */
import type { Database } from "bun:sqlite";
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { cpus, homedir } from "node:os";
import { join, resolve } from "node:path";
import { stopEmbedHelpers } from "../../src/embed/index.ts";

/** Machine label: CPU model and core count. */
export const machine = `${cpus()[0]?.model ?? "cpu"} ${cpus().length}c`;

/** Short commit hash of the checkout (or "unknown"). */
export const commit =
  Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: import.meta.dir })
    .stdout.toString()
    .trim() || "unknown";

/** The p-th percentile (0–100) of `values` (nearest rank); NaN for an empty list. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Queries of the kind people type: identifiers, words, a question (the search pages of ui.ts and archive.ts). */
export const typedQueries: readonly string[] = [
  "docker network",
  "timeout retry backoff",
  "database migration",
  "why does the test fail",
  "config",
  "react component state",
  "token",
  "parser error",
];

/** Print one measurement as a JSON line {name, n, p50_ms, p95_ms, ...extra, machine, commit}. */
export function report(name: string, samplesMs: readonly number[], extra: Record<string, unknown> = {}): void {
  const round = (value: number) => Math.round(value * 100) / 100;
  console.log(
    JSON.stringify({
      name,
      n: samplesMs.length,
      p50_ms: round(percentile(samplesMs, 50)),
      p95_ms: round(percentile(samplesMs, 95)),
      ...extra,
      machine,
      commit,
    }),
  );
}

/** Wall time in ms of running `command` to completion; throws when it exits non-zero. */
export function timeCommand(
  command: string[],
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
): number {
  const started = performance.now();
  const result = Bun.spawnSync(command, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    stdout: "ignore",
    stderr: "pipe",
  });
  const elapsed = performance.now() - started;
  if (result.exitCode !== 0)
    throw new Error(`${command.join(" ")} exited ${result.exitCode}: ${result.stderr.toString().slice(0, 500)}`);
  return elapsed;
}

/** Run `fn` `runs` times and return the wall times in ms (or the ms `fn` returns, when it returns a number). */
export function sample(runs: number, fn: () => unknown): number[] {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    const measured = fn();
    samples.push(typeof measured === "number" ? measured : performance.now() - started);
  }
  return samples;
}

/** The number after `flag` on the command line (e.g. `--sessions 5000`), or `fallback` when absent. */
export function argValue(flag: string, fallback: number): number {
  const at = process.argv.indexOf(flag);
  return at > 0 ? Number(process.argv[at + 1]) : fallback;
}

/** Absolute paths of the entries of `dir`, or [] when it does not exist. */
export function listDirs(dir: string): string[] {
  return existsSync(dir) ? readdirSync(dir).map((name) => join(dir, name)) : [];
}

/** Folder of files the benches keep between runs (generated corpora, generated models): `$XDG_CACHE_HOME/recall-bench`. */
export const benchCacheDir = join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "recall-bench");

/** Version of the generated corpus layout: 2 = file mtimes are the sessions' last record times (issue 14). */
const generatedCorpusVersion = 2;

/**
 * The generated corpus of `sessions` sessions (scripts/gen-corpus.ts, 10% OpenCode), made once and kept in
 * {@link benchCacheDir}/corpus-v<version>-<sessions>; a folder without its `.complete` marker is made again.
 * @returns the corpus folder: Claude Code history in `projects/`, OpenCode data in `opencode/`
 * @throws Error when the generator fails
 */
export function ensureGeneratedCorpus(sessions: number): string {
  const dir = join(benchCacheDir, `corpus-v${generatedCorpusVersion}-${sessions}`);
  if (existsSync(join(dir, ".complete"))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(benchCacheDir, { recursive: true });
  const generator = resolve(import.meta.dir, "../gen-corpus.ts");
  const generated = Bun.spawnSync(
    ["bun", generator, "--sessions", String(sessions), "--out", dir, "--opencode-share", "0.1"],
    { stdout: "inherit", stderr: "inherit" },
  );
  if (generated.exitCode !== 0) throw new Error("scripts/gen-corpus.ts failed");
  writeFileSync(join(dir, ".complete"), "");
  return dir;
}

/**
 * Cold `recall search` wall times for issue 17, each a fresh process (p50/p95 of `runs`): keyword-only
 * (`<keywordName>`), then hybrid three ways (`<hybridName>.no_helper`: RECALL_EMBED_HELPER=off, the model loads in the
 * search process; `.helper_start`: the first search, which starts the embedding helper and waits for it;
 * `.warm_helper`: searches through the running helper). The hybrid rows carry target_ms = 1.5 × keyword p50 + 150 ms.
 * The helpers in `helpersDir` are stopped at the end, also when a run fails.
 * @param searchArgs the `search …` arguments after `bun src/cli.ts` (query, --no-reindex, --model, sources)
 * @returns target_ms
 */
export async function benchColdHybrid(options: {
  keywordName: string;
  hybridName: string;
  searchArgs: string[];
  env: Record<string, string>;
  cwd: string;
  runs: number;
  helpersDir: string;
}): Promise<number> {
  const { searchArgs, env, cwd, runs } = options;
  const cli = ["bun", join(cwd, "src/cli.ts"), ...searchArgs];
  try {
    const keyword = sample(runs, () => timeCommand([...cli, "--keyword-only"], { env, cwd }));
    report(options.keywordName, keyword);
    const targetMs = Math.round(1.5 * percentile(keyword, 50) + 150);
    const helperOff = { ...env, RECALL_EMBED_HELPER: "off" };
    const helperOn = { ...env, RECALL_EMBED_HELPER: "on" };
    report(
      `${options.hybridName}.no_helper`,
      sample(runs, () => timeCommand(cli, { env: helperOff, cwd })),
      { target_ms: targetMs },
    );
    report(`${options.hybridName}.helper_start`, [timeCommand(cli, { env: helperOn, cwd })], { target_ms: targetMs });
    report(
      `${options.hybridName}.warm_helper`,
      sample(runs, () => timeCommand(cli, { env: helperOn, cwd })),
      { target_ms: targetMs },
    );
    return targetMs;
  } finally {
    await stopEmbedHelpers(options.helpersDir);
  }
}

/**
 * Copy the folder tree `from` to `to` (which must not exist yet) and make the copy writable by its owner (folders
 * 0755, files 0644): the shared corpus is read-only, and a bench appends to its copies and removes them afterwards.
 * @throws the fs error when a file cannot be read or written
 */
export function copyTreeWritable(from: string, to: string): void {
  cpSync(from, to, { recursive: true });
  const makeWritable = (path: string) => {
    const isDirectory = statSync(path).isDirectory();
    chmodSync(path, isDirectory ? 0o755 : 0o644);
    if (isDirectory) for (const name of readdirSync(path)) makeWritable(join(path, name));
  };
  makeWritable(to);
}

/**
 * Throughput at the median of `samplesMs` when each sample processed `bytes` bytes and `sessions` sessions:
 * `mb_per_s` (10^6 bytes per second) and `sessions_per_s`, rounded to 0.1. Infinity when the median is 0 ms.
 */
export function throughputAtMedian(
  samplesMs: readonly number[],
  bytes: number,
  sessions: number,
): { mb_per_s: number; sessions_per_s: number } {
  const medianSeconds = percentile(samplesMs, 50) / 1000;
  const tenths = (value: number) => Math.round(value * 10) / 10;
  return { mb_per_s: tenths(bytes / 1e6 / medianSeconds), sessions_per_s: tenths(sessions / medianSeconds) };
}

/**
 * The compiled binary the benches measure, `dist/recall`: built from the current tree first (`bun scripts/build.ts
 * --no-archive`) so the numbers are those of the code checked out, unless `--no-build` is on the command line (then
 * the dist/recall already there). index-search.ts used to build only when it was missing, and so measured the binary
 * of an older commit under the current one's name.
 * @throws Error when the build fails, or under --no-build when there is no binary
 */
export function benchBinary(): string {
  const repo = resolve(import.meta.dir, "../..");
  const binary = join(repo, "dist", "recall");
  const skip = process.argv.includes("--no-build");
  if (!skip) {
    const build = Bun.spawnSync(["bun", join(repo, "scripts", "build.ts"), "--no-archive"], {
      cwd: repo,
      stderr: "inherit",
    });
    if (build.exitCode !== 0) throw new Error("bun run build failed");
  } else if (!existsSync(binary)) {
    throw new Error(`${binary} is missing: run bun run build, or leave out --no-build`);
  }
  return binary;
}

/** A corpus a binary bench runs on: its label and the Claude Code and OpenCode folders it reads. */
export interface BinaryBenchCorpus {
  label: string;
  claude: string[];
  opencode: string[];
}

/**
 * The corpora of the binary benches (pick, ui): the real corpus (../shared/corpus, Claude Code + OpenCode) when it is
 * there (said on stderr when not, by `benchName`), then the generated corpus of `sessions` sessions.
 */
export function binaryBenchCorpora(benchName: string, sessions: number): BinaryBenchCorpus[] {
  const corpus = resolve(import.meta.dir, "../../../shared/corpus");
  const corpora: BinaryBenchCorpus[] = [];
  if (existsSync(join(corpus, "claude-code")))
    corpora.push({
      label: "real",
      claude: listDirs(join(corpus, "claude-code")),
      opencode: listDirs(join(corpus, "opencode")).map((dir) => join(dir, ".local/share/opencode")),
    });
  else process.stderr.write(`${benchName}: ../shared/corpus is missing; only the generated corpus is measured\n`);
  const scaled = ensureGeneratedCorpus(sessions);
  corpora.push({
    label: `scaled-${sessions}`,
    claude: [join(scaled, "projects")],
    opencode: [join(scaled, "opencode")],
  });
  return corpora;
}

/**
 * The environment that points `binary` at `bench`'s folders only (a fresh RECALL_HOME under `work`, the other
 * sources at a folder that does not exist, offline), after indexing it keyword-only with that binary.
 * @throws Error when the index run fails
 */
export function indexedBenchEnv(
  binary: string,
  work: string,
  bench: BinaryBenchCorpus,
): Record<string, string | undefined> {
  const none = join(work, "none");
  const env = {
    ...process.env,
    RECALL_HOME: join(work, `home-${bench.label}`),
    RECALL_OFFLINE: "1",
    RECALL_CLAUDE_DIRS: bench.claude.join(":"),
    RECALL_OPENCODE_DIRS: bench.opencode.join(":"),
    RECALL_CODEX_DIRS: none,
    RECALL_GEMINI_DIRS: none,
    RECALL_CURSOR_DIRS: none,
    RECALL_AIDER_DIRS: none,
  };
  const index = Bun.spawnSync([binary, "index", "--keyword-only"], { env, stdout: "ignore", stderr: "pipe" });
  if (index.exitCode !== 0) throw new Error(`index failed: ${index.stderr.toString().slice(0, 500)}`);
  return env;
}

/**
 * The filters that keep few sessions the benches time (issue 42), read from an index: the smallest project's name
 * (ties: the first by name), and the `ended_at` (epoch ms) from which the newest ~2% of sessions ran. Each is undefined
 * when the index has no session that gives it.
 */
export function narrowFilterValues(db: Database): { project: string | undefined; since: number | undefined } {
  return {
    project: db
      .query<{ name: string }, []>(
        "SELECT project_name AS name FROM sessions WHERE project_name <> '' GROUP BY 1 ORDER BY count(*), 1 LIMIT 1",
      )
      .get()?.name,
    since: db
      .query<{ at: number }, []>(
        "SELECT ended_at AS at FROM sessions ORDER BY ended_at DESC LIMIT 1 OFFSET (SELECT count(*) / 50 FROM sessions)",
      )
      .get()?.at,
  };
}
