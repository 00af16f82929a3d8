/**
 * Bench (issues 3 and 14): index and keyword-search speed at scale, from source (`bun src/cli.ts`) and from the
 * compiled binary (dist/recall, built from this tree first; --no-build measures the one there), next to a Bun
 * hello-world started the same way in the same run (`bun hello.ts` and a compiled one: the floor of a process start).
 * Corpora: the real one (../shared/corpus, Claude Code and OpenCode) when present, and the generated one of --sessions
 * (default 20,000; scripts/gen-corpus.ts, file mtimes = session end times) plus a small "live" root (one recent Claude
 * Code project and an OpenCode database, in a temp folder) where the changes are made. Rows, per corpus (p50/p95 over
 * --runs, 20):
 *   index.full.<corpus>                     full keyword-only index, CLI from source, fresh RECALL_HOME {peak_rss_bytes}
 *   index.staleness_check.<corpus>           the check a search runs first (in process) — target ≤ 20 ms at 20k
 *   index.staleness_check.whole.<corpus>     the same check scanning every source whole (what is due every 10 min)
 *   index.no_change.{source,binary}.<corpus> whole `recall index` process with nothing changed — target ≤ 60 ms
 *   search.cold.keyword.no_reindex.{source,binary}.<corpus>  — target ≤ 35 ms from source
 *   search.cold.keyword.with_check.{source,binary}.<corpus>  — target ≤ 60 ms from source, ≤ 40 ms from the binary
 *   search.cold.keyword.whole_scan_due.binary.<corpus>  the same when the whole scan is due (the first search after
 *                                            each quiet 10 minutes: RECALL_FULL_SCAN_INTERVAL_MS=0 makes every one so)
 *   search.cold.keyword.filtered_{project,turn_since}.binary.<corpus>  the same with a filter that keeps few sessions:
 *                                            the smallest project's; turns (`--depth 2`) since the day that keeps the
 *                                            newest ~2% of sessions (search/ranking/document-mask.ts)
 *   help.{source,binary}                     `recall --help` — target ≤ 2× the compiled hello-world
 *   hello_world.{source,binary}
 *   freshness.<kind>.<corpus>                one search right after each kind of change (append to the live session,
 *                                            new session file, rewrite by rename, deleted file, OpenCode database
 *                                            change, append to a months-old file once the whole scan is due): the
 *                                            search must find it (the bench fails otherwise) {found: true}; a new
 *                                            session file is also searched by the binary (`new_session_file.binary`)
 * Usage: bun scripts/bench/index-search.ts [--sessions 20000] [--runs 20]
 */
import { Database } from "bun:sqlite";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { checkStaleness, databasePath, openIndex } from "../../src/index/index.ts";
import { closeOpencodeDatabases } from "../../src/parsers/opencode.ts";
import { createSchema, insertExchange, insertSession } from "../../test/fixtures/opencode/make-db.ts";
import { appendClaudeTurns, writeClaudeSession } from "../../test/helpers/claude-writer.ts";
import {
  argValue,
  ensureGeneratedCorpus,
  listDirs,
  percentile,
  report,
  sample,
  timeCommand,
  benchBinary,
  narrowFilterValues,
} from "./lib.ts";

const repo = resolve(import.meta.dir, "../..");
const sessions = argValue("--sessions", 20_000);
const runs = argValue("--runs", 20);
const corpus = resolve(repo, "../shared/corpus");
const work = mkdtempSync(join(tmpdir(), "recall-bench-scale-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));

const binary = benchBinary();
writeFileSync(join(work, "hello.ts"), 'console.log("hello");\n');
const compiledHello = join(work, "hello");
if (
  Bun.spawnSync(["bun", "build", "--compile", join(work, "hello.ts"), "--outfile", compiledHello], {
    stdout: "ignore",
    stderr: "inherit",
  }).exitCode !== 0
) {
  throw new Error("cannot compile the hello-world");
}

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
  process.stderr.write("index-search: ../shared/corpus is missing; only the generated corpus is measured\n");
}
const scaled = ensureGeneratedCorpus(sessions);
corpora.push({ label: `scaled-${sessions}`, claude: [join(scaled, "projects")], opencode: [join(scaled, "opencode")] });

const floor = {
  source: sample(runs, () => timeCommand(["bun", join(work, "hello.ts")])),
  binary: sample(runs, () => timeCommand([compiledHello])),
};
report("hello_world.source", floor.source);
report("hello_world.binary", floor.binary);
const ratio = (samples: number[], kind: "source" | "binary") =>
  Math.round((percentile(samples, 50) / percentile(floor[kind], 50)) * 100) / 100;
const cliOf = { source: ["bun", join(repo, "src/cli.ts")], binary: [binary] } as const;
const helpEnv = { ...process.env, RECALL_HOME: join(work, "help-home"), NO_COLOR: "1", RECALL_OFFLINE: "1" };
for (const kind of ["source", "binary"] as const) {
  const help = sample(runs, () => timeCommand([...cliOf[kind], "--help"], { env: helpEnv }));
  report(`help.${kind}`, help, { ratio_to_hello: ratio(help, kind), target: "≤ 2× the compiled hello-world (binary)" });
}

for (const bench of corpora) {
  const home = join(work, `home-${bench.label}`);
  const live = makeLiveRoots(join(work, `live-${bench.label}`));
  const claude = [...bench.claude, live.claude];
  const opencode = [...bench.opencode, live.opencode];
  const sourceFlags = [
    ...claude.flatMap((dir) => ["--claude-dir", dir]),
    ...opencode.flatMap((dir) => ["--opencode-dir", dir]),
  ];
  const env = { ...process.env, RECALL_HOME: home, NO_COLOR: "1", RECALL_OFFLINE: "1" };
  const roots = { "claude-code": claude, opencode };
  const run = (kind: "source" | "binary", args: string[], extraEnv: Record<string, string> = {}) =>
    timeCommand([...cliOf[kind], ...args, ...sourceFlags], { env: { ...env, ...extraEnv }, cwd: repo });

  const started = performance.now();
  const full = Bun.spawnSync([...cliOf.source, "index", "--keyword-only", ...sourceFlags], {
    env,
    cwd: repo,
    stdout: "ignore",
    stderr: "pipe",
  });
  const fullMs = performance.now() - started;
  if (full.exitCode !== 0) throw new Error(`full index failed: ${full.stderr.toString().slice(0, 500)}`);
  const db = openIndex(databasePath(home), { readonly: true });
  const indexed = db
    .query<{ n: number; t: number }, []>("SELECT count(*) AS n, sum(turn_count) AS t FROM sessions")
    .get()!;
  report(`index.full.${bench.label}`, [fullMs], {
    sessions: indexed.n,
    turns: indexed.t,
    peak_rss_bytes: full.resourceUsage?.maxRSS,
    target: bench.label === "real" ? undefined : "≤ 15 s",
  });
  // filters that keep few sessions: the smallest project, and the day from which the newest ~2% of sessions ran
  const narrow = narrowFilterValues(db);
  report(
    `index.staleness_check.${bench.label}`,
    sample(runs, () => void checkStaleness(db, roots)),
    { target: "≤ 20 ms at 20k" },
  );
  report(
    `index.staleness_check.whole.${bench.label}`,
    sample(Math.min(runs, 10), () => void checkStaleness(db, roots, {}, { scan: "whole" })),
  );
  db.close();
  closeOpencodeDatabases();

  for (const kind of ["source", "binary"] as const) {
    run(kind, ["index", "--keyword-only"]); // warm-up
    const noChange = sample(runs, () => run(kind, ["index", "--keyword-only"]));
    report(`index.no_change.${kind}.${bench.label}`, noChange, {
      ratio_to_hello: ratio(noChange, kind),
      target: "≤ 60 ms",
    });
    const queries = [
      "docker network bridge",
      "fix failing test",
      "ERR_MODULE_NOT_FOUND",
      "refactor parser session",
      "how did we configure the cache?",
    ];
    const query = (i: number) => queries[i % queries.length]!;
    let i = 0;
    const noReindex = sample(runs, () => run(kind, ["search", query(i++), "--keyword-only", "--no-reindex"]));
    report(`search.cold.keyword.no_reindex.${kind}.${bench.label}`, noReindex, {
      ratio_to_hello: ratio(noReindex, kind),
      target: kind === "source" ? "≤ 35 ms" : undefined,
    });
    const withCheck = sample(runs, () => run(kind, ["search", query(i++), "--keyword-only"]));
    report(`search.cold.keyword.with_check.${kind}.${bench.label}`, withCheck, {
      ratio_to_hello: ratio(withCheck, kind),
      target: kind === "source" ? "≤ 60 ms" : "≤ 40 ms",
    });
    if (kind === "binary") {
      const due = sample(runs, () =>
        run(kind, ["search", query(i++), "--keyword-only"], { RECALL_FULL_SCAN_INTERVAL_MS: "0" }),
      );
      report(`search.cold.keyword.whole_scan_due.${kind}.${bench.label}`, due, { ratio_to_hello: ratio(due, kind) });
      const filtered = {
        project: narrow.project ? ["--project", narrow.project] : undefined,
        turn_since: narrow.since
          ? ["--depth", "2", "--since", new Date(narrow.since).toISOString().slice(0, 10)]
          : undefined,
      };
      for (const [name, args] of Object.entries(filtered)) {
        if (!args) continue;
        const times = sample(runs, () => run(kind, ["search", query(i++), "--keyword-only", ...args]));
        report(`search.cold.keyword.filtered_${name}.${kind}.${bench.label}`, times, {
          ratio_to_hello: ratio(times, kind),
          filter: args.join(" "),
        });
      }
    }
  }

  // Each kind of change, then one search from source that must find it.
  const search = (
    word: string,
    extraEnv: Record<string, string> = {},
    kind: "source" | "binary" = "source",
  ): { ms: number; found: string[] } => {
    const begun = performance.now();
    const result = Bun.spawnSync(
      [...cliOf[kind], "search", word, "--keyword-only", "--json", "--include-subagents", ...sourceFlags],
      { env: { ...env, ...extraEnv }, cwd: repo, stdout: "pipe", stderr: "pipe" },
    );
    const ms = performance.now() - begun;
    if (result.exitCode !== 0) throw new Error(`search ${word} failed: ${result.stderr.toString().slice(0, 300)}`);
    const parsed = JSON.parse(result.stdout.toString()) as { results: Array<{ session_id: string }> };
    return { ms, found: parsed.results.map((entry) => entry.session_id) };
  };
  const expectFound = (
    kind: string,
    word: string,
    sessionId: string,
    extraEnv?: Record<string, string>,
    cli: "source" | "binary" = "source",
  ) => {
    const { ms, found } = search(word, extraEnv, cli);
    if (!found.includes(sessionId))
      throw new Error(
        `freshness.${kind}: the next search did not find ${sessionId} (got ${found.join(", ") || "nothing"})`,
      );
    report(`freshness.${kind}.${bench.label}`, [ms], { found: true });
  };
  appendClaudeTurns(live.liveFile, live.liveState, [
    { prompt: "rename the zanzibar basket module", response: "renamed" },
  ]);
  expectFound("append_live_session", "zanzibar", live.liveId);
  writeClaudeSession(join(live.project, "33333333-3333-4333-8333-333333333333.jsonl"), {
    sessionId: "33333333-3333-4333-8333-333333333333",
    cwd: "/home/dev/live",
    turns: [{ prompt: "add the quetzal wishlist page", response: "added" }],
  });
  expectFound("new_session_file", "quetzal", "33333333-3333-4333-8333-333333333333");
  // the same change searched by the binary, as a user runs it (from source, loading the modules is ~150 ms of it)
  writeClaudeSession(join(live.project, "44444444-4444-4444-8444-444444444444.jsonl"), {
    sessionId: "44444444-4444-4444-8444-444444444444",
    cwd: "/home/dev/live",
    turns: [{ prompt: "add the ocelot gift card page", response: "added" }],
  });
  expectFound("new_session_file.binary", "ocelot", "44444444-4444-4444-8444-444444444444", {}, "binary");
  const rewritten = readFileSync(live.liveFile, "utf8").replace("zanzibar", "xylophon");
  writeFileSync(`${live.liveFile}.tmp`, rewritten);
  renameSync(`${live.liveFile}.tmp`, live.liveFile);
  expectFound("rewrite_by_rename", "xylophon", live.liveId);
  unlinkSync(join(live.project, "33333333-3333-4333-8333-333333333333.jsonl"));
  expectFound("deleted_file_kept", "quetzal", "33333333-3333-4333-8333-333333333333");
  const deleted = openIndex(databasePath(home), { readonly: true });
  const status = deleted
    .query<{ source_status: string }, []>(
      "SELECT source_status FROM sessions WHERE session_id = '33333333-3333-4333-8333-333333333333'",
    )
    .get();
  deleted.close();
  if (status?.source_status !== "deleted")
    throw new Error("freshness.deleted_file_kept: the session is not marked deleted");
  const opencodeDb = new Database(join(live.opencode, "opencode.db"));
  insertSession(opencodeDb, {
    id: "ses_tax",
    timeCreated: 3000,
    timeUpdated: 4000,
    directory: "/home/dev/live",
    title: "Tax",
  });
  insertExchange(opencodeDb, "ses_tax", "2", 3100, "why is the vorpal invoice tax doubled", "Found it.");
  opencodeDb.close();
  expectFound("opencode_database_change", "vorpal", "ses_tax");
  const { mtime } = statSync(live.oldFile);
  appendClaudeTurns(live.oldFile, live.oldState, [
    { prompt: "resume: the jabberwock refund rounding", response: "fixed" },
  ]);
  utimesSync(live.oldFile, mtime, mtime);
  const quiet = search("jabberwock");
  report(`freshness.append_old_file_before_due.${bench.label}`, [quiet.ms], {
    found: quiet.found.includes(live.oldId),
  });
  expectFound("append_old_file_whole_scan_due", "jabberwock", live.oldId, { RECALL_FULL_SCAN_INTERVAL_MS: "0" });
}

/** The live roots: a Claude Code project with a recent session and a months-old one, and a one-session OpenCode database. */
function makeLiveRoots(dir: string) {
  const claude = join(dir, "claude");
  const project = join(claude, "-home-dev-live");
  const liveId = "22222222-2222-4222-8222-222222222222";
  const liveFile = join(project, `${liveId}.jsonl`);
  const liveState = writeClaudeSession(liveFile, {
    sessionId: liveId,
    cwd: "/home/dev/live",
    turns: [{ prompt: "start the cart refactor", response: "on it" }],
  });
  const oldId = "11111111-1111-4111-8111-111111111111";
  const oldFile = join(project, `${oldId}.jsonl`);
  const ninetyDaysAgo = new Date(Date.now() - 90 * 86_400_000);
  const oldState = writeClaudeSession(oldFile, {
    sessionId: oldId,
    cwd: "/home/dev/live",
    startMs: ninetyDaysAgo.getTime(),
    turns: [{ prompt: "fix the checkout total", response: "rounded" }],
  });
  utimesSync(oldFile, ninetyDaysAgo, ninetyDaysAgo);
  const opencode = join(dir, "opencode");
  mkdirSync(opencode, { recursive: true });
  const db = new Database(join(opencode, "opencode.db"));
  createSchema(db);
  insertSession(db, {
    id: "ses_cart",
    timeCreated: 1000,
    timeUpdated: 2000,
    directory: "/home/dev/live",
    title: "Cart bug",
  });
  insertExchange(db, "ses_cart", "1", 1100, "why is the cart empty", "Looking.");
  db.close();
  return { claude, project, liveId, liveFile, liveState, oldId, oldFile, oldState, opencode };
}
