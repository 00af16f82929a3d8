/**
 * Bench (issue 10): the watcher as `recall watch --keyword-only --json` runs it (a child process, default 2 s
 * debounce), on the real corpus (../shared/corpus copied to a temp dir) and on the generated corpus of --sessions
 * (default 20,000; scripts/gen-corpus.ts, cached as index-search.ts caches it and never written here: appends go
 * to an extra live root and to a copy of its opencode.db). Per corpus, after a full index:
 *   start: spawn → "watching" line (chokidar has read every watched folder), with RSS and inotify watches;
 *   idle CPU over --idle-seconds (60) with no change, from /proc/<pid>/stat utime+stime (target ≈ 0), next to a bun
 *   process that only waits, measured over the same window;
 *   re-index latency: append a Claude turn / insert an OpenCode turn (WAL) → its words are in the committed FTS
 *   index (polled every 20 ms), p50/p95 over --runs (8), next to the cycle's own index time; the 2 s debounce is
 *   the floor of the latency by design (target: searchable within 5 s);
 *   stop: SIGINT → exit.
 * Reference: a bun hello-world started the same way. Usage: bun scripts/bench/watch.ts [--sessions N] [--runs N] [--idle-seconds N]
 */
import { Database } from "bun:sqlite";
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { databasePath, openIndex } from "../../src/index/index.ts";
import { appendClaudeTurns, writeClaudeSession, type WriterState } from "../../test/helpers/claude-writer.ts";
import { argValue, ensureGeneratedCorpus, listDirs, percentile, report, timeCommand } from "./lib.ts";

const repo = resolve(import.meta.dir, "../..");
const sessions = argValue("--sessions", 20_000);
const runs = argValue("--runs", 8);
const idleSeconds = argValue("--idle-seconds", 60);
const clockTicksPerSecond = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;
const work = mkdtempSync(join(tmpdir(), "recall-bench-watch-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

interface BenchCorpus {
  label: string;
  claude: string[];
  opencode: string[];
  /** An OpenCode database this bench may write to (a copy), or undefined. */
  writableDb?: string;
}

/** The real corpus, copied (the watcher must see writes; ../shared/corpus is never modified). */
function realCorpus(): BenchCorpus | undefined {
  const corpus = resolve(repo, "../shared/corpus");
  if (!existsSync(join(corpus, "claude-code"))) return undefined;
  const copy = join(work, "real");
  cpSync(join(corpus, "claude-code"), join(copy, "claude-code"), { recursive: true });
  cpSync(join(corpus, "opencode"), join(copy, "opencode"), { recursive: true });
  const opencode = listDirs(join(copy, "opencode")).map((dir) => join(dir, ".local/share/opencode"));
  const writableDb = opencode.map((dir) => join(dir, "opencode.db")).find(existsSync);
  if (writableDb) chmodSync(writableDb, 0o644);
  return { label: "real", claude: listDirs(join(copy, "claude-code")), opencode, writableDb };
}

/** The generated corpus (cached, read-only here) plus a copy of its database. */
function scaledCorpus(): BenchCorpus {
  const scaled = ensureGeneratedCorpus(sessions);
  const opencode = join(work, "scaled-opencode");
  mkdirSync(opencode);
  copyFileSync(join(scaled, "opencode", "opencode.db"), join(opencode, "opencode.db"));
  return {
    label: `scaled-${sessions}`,
    claude: [join(scaled, "projects")],
    opencode: [opencode],
    writableDb: join(opencode, "opencode.db"),
  };
}

/** A running `recall watch` whose stdout/stderr are collected as they arrive. */
function spawnWatch(args: string[], env: Record<string, string | undefined>) {
  const child = Bun.spawn(["bun", join(repo, "src/cli.ts"), "watch", "--keyword-only", "--json", ...args], {
    cwd: repo,
    env,
    stdout: "pipe",
    stderr: "pipe",
  });
  const texts = { stdout: "", stderr: "" };
  for (const name of ["stdout", "stderr"] as const) {
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of child[name] as ReadableStream<Uint8Array>)
        texts[name] += decoder.decode(chunk, { stream: true });
    })();
  }
  return { child, texts };
}

async function waitFor(check: () => boolean, timeoutMs: number, intervalMs = 20): Promise<number> {
  const started = performance.now();
  while (!check()) {
    if (performance.now() - started > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms`);
    await Bun.sleep(intervalMs);
  }
  return performance.now() - started;
}

const cpuTicks = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
    .replace(/^.*\) /, "")
    .split(" ");
  return Number(fields[11]) + Number(fields[12]);
};
const rssMb = (pid: number) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
/** inotify watches held by a process: `inotify wd:` lines in the fdinfo of its inotify descriptors. */
const inotifyWatches = (pid: number) =>
  readdirSync(`/proc/${pid}/fdinfo`).reduce((sum, fd) => {
    try {
      return sum + (readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8").match(/^inotify wd:/gm)?.length ?? 0);
    } catch {
      return sum;
    }
  }, 0);

/** True when the committed index has a document with `word`. */
function isIndexed(recallHome: string, word: string): boolean {
  const db = openIndex(databasePath(recallHome), { readonly: true });
  try {
    return db.query("SELECT 1 FROM documents_fts WHERE documents_fts MATCH ? LIMIT 1").get(word) !== null;
  } finally {
    db.close();
  }
}

/** Index time (ms) of the last `indexed` JSON line on the watcher's stdout. */
const lastIndexMs = (stdout: string) => {
  const lines = stdout
    .trim()
    .split("\n")
    .filter((line) => line.includes('"event":"indexed"'));
  return lines.length > 0 ? (JSON.parse(lines.at(-1)!) as { elapsed_ms: number }).elapsed_ms : Number.NaN;
};

/** Append → committed latencies (ms) and the cycles' own index times, for `runs` writes made by `write(word)`. */
async function measureLatency(recallHome: string, stdout: () => string, write: (word: string) => void, prefix: string) {
  const latencies: number[] = [];
  const indexMs: number[] = [];
  for (let i = 0; i < runs; i++) {
    const word = `${prefix}${i}zq${Date.now().toString(36)}`;
    const cycles = stdout().split("\n").length;
    write(word);
    latencies.push(await waitFor(() => isIndexed(recallHome, word), 15_000));
    await waitFor(() => stdout().split("\n").length > cycles, 5000);
    indexMs.push(lastIndexMs(stdout()));
    await Bun.sleep(300);
  }
  return { latencies, indexMs };
}

/** Insert a user turn into the newest session of an OpenCode database, as OpenCode does (WAL, one transaction). */
function opencodeWriter(path: string): { write(word: string): void; close(): void } {
  const db = new Database(path);
  db.exec("PRAGMA journal_mode = WAL");
  const session = db
    .query<{ id: string; t: number }, []>(
      "SELECT id, time_created AS t FROM session ORDER BY time_created DESC LIMIT 1",
    )
    .get()!;
  let clock = (db.query<{ t: number }, []>("SELECT max(time_created) AS t FROM message").get()?.t ?? session.t) + 1000;
  let n = 0;
  return {
    write(word) {
      const [user, reply] = [`msg_zzbench${n}u`, `msg_zzbench${n}v`];
      const t = (clock += 1000);
      db.transaction(() => {
        db.run("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)", [
          user,
          session.id,
          t,
          t,
          JSON.stringify({ role: "user", time: { created: t } }),
        ]);
        db.run(
          "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)",
          [`prt_zzbench${n}u`, user, session.id, t, t, JSON.stringify({ type: "text", text: `please check ${word}` })],
        );
        db.run("INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?)", [
          reply,
          session.id,
          t + 1,
          t + 1,
          JSON.stringify({ role: "assistant", parentID: user, time: { created: t + 1 } }),
        ]);
        db.run(
          "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?, ?, ?, ?, ?, ?)",
          [`prt_zzbench${n}v`, reply, session.id, t + 1, t + 1, JSON.stringify({ type: "text", text: "checked" })],
        );
      })();
      n++;
    },
    close: () => db.close(),
  };
}

const median = (values: number[]) => percentile(values, 50);

const hello = join(work, "hello.ts");
writeFileSync(hello, 'console.log("hello");\n');
report(
  "watch.reference.bun_hello_world",
  Array.from({ length: 5 }, () => timeCommand(["bun", hello])),
);

const corpora = [realCorpus(), scaledCorpus()].filter((corpus): corpus is BenchCorpus => corpus !== undefined);
for (const corpus of corpora) {
  const recallHome = join(work, `home-${corpus.label}`);
  const live = join(work, `live-${corpus.label}`, "projects");
  const liveId = "be4c0000-0000-4000-8000-000000000001";
  const state: WriterState = writeClaudeSession(join(live, "-home-dev-bench-live", `${liveId}.jsonl`), {
    sessionId: liveId,
    cwd: "/home/dev/bench-live",
    turns: [{ prompt: "start", response: "ok" }],
  });
  const flags = [
    ...[...corpus.claude, live].flatMap((dir) => ["--claude-dir", dir]),
    ...corpus.opencode.flatMap((dir) => ["--opencode-dir", dir]),
  ];
  const env = { ...process.env, RECALL_HOME: recallHome, NO_COLOR: "1", RECALL_OFFLINE: "1" };
  const fullMs = timeCommand(["bun", join(repo, "src/cli.ts"), "index", "--keyword-only", ...flags], {
    env,
    cwd: repo,
  });
  const indexed = (() => {
    const db = openIndex(databasePath(recallHome), { readonly: true });
    try {
      return db.query<{ n: number }, []>("SELECT count(*) AS n FROM sessions").get()!.n;
    } finally {
      db.close();
    }
  })();

  const { child, texts } = spawnWatch(flags, env);
  const startMs = await waitFor(() => texts.stderr.includes("watching for"), 120_000);
  const firstCycleMs = (await waitFor(() => texts.stdout.includes('"event":"indexed"'), 120_000)) + startMs;
  report(`watch.start.${corpus.label}`, [startMs], {
    first_cycle_ms: Math.round(firstCycleMs),
    sessions: indexed,
    full_index_ms: Math.round(fullMs),
    rss_mb: Math.round(rssMb(child.pid)),
    inotify_watches: inotifyWatches(child.pid),
  });

  // Reference: a bun process that only waits, measured over the same window.
  const idle = Bun.spawn(["bun", "-e", "setInterval(() => {}, 1 << 30)"], { stdout: "ignore", stderr: "ignore" });
  await Bun.sleep(2000);
  const before = [cpuTicks(child.pid), cpuTicks(idle.pid)];
  await Bun.sleep(idleSeconds * 1000);
  const [cpuMs, referenceMs] = [cpuTicks(child.pid), cpuTicks(idle.pid)].map(
    (ticks, i) => ((ticks - before[i]!) * 1000) / clockTicksPerSecond,
  ) as [number, number];
  idle.kill();
  report(`watch.idle_cpu.${corpus.label}`, [cpuMs], {
    window_s: idleSeconds,
    cpu_percent_of_core: Math.round((cpuMs / (idleSeconds * 10)) * 1000) / 1000,
    idle_bun_process_cpu_ms: referenceMs,
    target: "≈0",
  });

  const claude = await measureLatency(
    recallHome,
    () => texts.stdout,
    (word) =>
      appendClaudeTurns(join(live, "-home-dev-bench-live", `${liveId}.jsonl`), state, [
        { prompt: `please check ${word}`, response: "checked" },
      ]),
    "cl",
  );
  report(`watch.reindex_latency.claude_append.${corpus.label}`, claude.latencies, {
    debounce_ms: 2000,
    index_p50_ms: median(claude.indexMs),
    rss_mb: Math.round(rssMb(child.pid)),
    target_ms: 5000,
  });
  if (corpus.writableDb) {
    const writer = opencodeWriter(corpus.writableDb);
    const opencode = await measureLatency(
      recallHome,
      () => texts.stdout,
      (word) => writer.write(word),
      "oc",
    );
    writer.close();
    report(`watch.reindex_latency.opencode_insert.${corpus.label}`, opencode.latencies, {
      debounce_ms: 2000,
      index_p50_ms: median(opencode.indexMs),
      rss_mb: Math.round(rssMb(child.pid)),
      target_ms: 5000,
    });
  }

  const stopping = performance.now();
  child.kill("SIGINT");
  const code = await child.exited;
  report(`watch.stop.${corpus.label}`, [performance.now() - stopping], { exit_code: code });
  if (texts.stderr.includes("warning")) process.stderr.write(`watch bench (${corpus.label}): ${texts.stderr}\n`);
}
