/**
 * Scales the real corpus up to N synthetic sessions for benchmarks, from the aggregate profile in
 * `scripts/gen-corpus/profile.json` (numbers only, recomputed by `scripts/gen-corpus/profile.ts`),
 * never from copied content (docs/style.md §4, the ccusage approach). Deterministic per seed.
 *
 * Output: `<out>/projects/<encoded-cwd>/<uuid>.jsonl` across ~200 projects (Claude Code layout,
 * docs/formats.md §1.1; sub-agent files in `<uuid>/subagents/agent-<id>.jsonl`), and with
 * `--opencode-share` > 0 that share of the sessions in `<out>/opencode/opencode.db` (§2.1).
 * Each file's mtime is its session's last record time, as on a real machine where old sessions are left alone (the
 * freshness check relies on it: index/plan/freshness.ts). Use `--claude-dir <out>/projects --opencode-dir <out>/opencode`.
 *
 * Usage: bun scripts/gen-corpus.ts --sessions 20000 --out /tmp/recall-corpus-20k [--seed 1] [--opencode-share 0.1]
 */
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { synthesizeSession } from "./gen-corpus/claude.ts";
import { writeOpencodeDb, type OpencodePlan } from "./gen-corpus/opencode.ts";
import type { CorpusProfile } from "./gen-corpus/profile.ts";
import { Random } from "./gen-corpus/random.ts";
import { buildTextPool, projectName } from "./gen-corpus/vocabulary.ts";

/** Parsed command line. */
interface Options {
  sessions: number;
  out: string;
  seed: number;
  opencodeShare: number;
  projects: number;
}

/** Parse `--flag value` pairs; throws Error naming the bad flag. */
function parseOptions(argv: string[]): Options {
  const options: Options = { sessions: 20_000, out: "", seed: 1, opencodeShare: 0, projects: 200 };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (value === undefined) throw new Error(`missing value for ${flag}`);
    if (flag === "--out") options.out = resolve(value);
    else if (flag === "--sessions") options.sessions = Number(value);
    else if (flag === "--seed") options.seed = Number(value);
    else if (flag === "--opencode-share") options.opencodeShare = Number(value);
    else if (flag === "--projects") options.projects = Number(value);
    else throw new Error(`unknown flag ${flag}`);
  }
  if (!options.out) throw new Error("--out DIR is required");
  if (!(options.sessions > 0) || !(options.opencodeShare >= 0 && options.opencodeShare <= 1))
    throw new Error("bad --sessions or --opencode-share");
  return options;
}

/** Every character outside [A-Za-z0-9-] becomes "-" (docs/formats.md §1.1). */
function encodeCwd(cwd: string): string {
  return cwd.replace(/[^A-Za-z0-9-]/g, "-");
}

/** Generate the corpus; returns counts and the elapsed time in ms. */
export function generateCorpus(options: Options, profile: CorpusProfile) {
  const started = performance.now();
  const rng = new Random(options.seed);
  const pool = buildTextPool(rng, 4_000_000);
  const projects = Array.from(
    { length: options.projects },
    (_, i) =>
      `/home/${rng.pick(["dev", "alex", "sam", "kim"])}/${rng.pick(["work", "src", "code", "projects"])}/${projectName(rng)}-${i}`,
  );
  const startMs = Date.parse("2025-06-01T00:00:00Z"),
    spanMs = 330 * 86_400_000;
  const versions = ["2.0.55", "2.1.17", "2.1.42", "2.1.81", "2.1.88", "2.1.92"];
  const branches = ["main", "main", "main", "develop", "HEAD", "", "fix/", "feat/"];
  const opencodePlans: OpencodePlan[] = [];
  let bytes = 0,
    files = 0,
    subagentFiles = 0;
  for (let i = 0; i < options.sessions; i++) {
    const cwd = rng.pick(projects);
    const sessionStart = startMs + Math.floor(rng.next() * spanMs);
    if (rng.chance(options.opencodeShare)) {
      opencodePlans.push({ directory: cwd, startMs: sessionStart });
      continue;
    }
    const branch = rng.pick(branches);
    const plan = {
      sessionId: rng.uuid(),
      cwd,
      gitBranch: branch.endsWith("/") ? branch + rng.hex(6) : branch,
      version: rng.pick(versions),
      startMs: sessionStart,
    };
    const dir = join(options.out, "projects", encodeCwd(cwd));
    if (!existsSync(dir)) mkdirSync(dir, { recursive: true });
    const main = synthesizeSession(rng, profile, pool, plan);
    writeFileSync(join(dir, `${plan.sessionId}.jsonl`), main.text);
    utimesSync(join(dir, `${plan.sessionId}.jsonl`), new Date(main.endMs), new Date(main.endMs));
    bytes += main.text.length;
    files++;
    if (main.agentIds.length > 0) mkdirSync(join(dir, plan.sessionId, "subagents"), { recursive: true });
    for (const agentId of main.agentIds) {
      const sub = synthesizeSession(rng, profile, pool, plan, agentId);
      writeFileSync(join(dir, plan.sessionId, "subagents", `agent-${agentId}.jsonl`), sub.text);
      utimesSync(
        join(dir, plan.sessionId, "subagents", `agent-${agentId}.jsonl`),
        new Date(sub.endMs),
        new Date(sub.endMs),
      );
      writeFileSync(
        join(dir, plan.sessionId, "subagents", `agent-${agentId}.meta.json`),
        JSON.stringify({ agentType: "Explore", description: "synthetic" }),
      );
      bytes += sub.text.length;
      subagentFiles++;
    }
  }
  let opencodeSessions = 0;
  if (opencodePlans.length > 0) {
    mkdirSync(join(options.out, "opencode"), { recursive: true });
    opencodeSessions = writeOpencodeDb(join(options.out, "opencode", "opencode.db"), rng, profile, pool, opencodePlans);
  }
  return {
    claudeSessions: files,
    subagentFiles,
    opencodeSessions,
    claudeBytes: bytes,
    elapsedMs: Math.round(performance.now() - started),
  };
}

if (import.meta.main) {
  try {
    const options = parseOptions(process.argv.slice(2));
    const profile = JSON.parse(
      readFileSync(join(import.meta.dir, "gen-corpus", "profile.json"), "utf8"),
    ) as CorpusProfile;
    rmSync(options.out, { recursive: true, force: true });
    const result = generateCorpus(options, profile);
    process.stdout.write(`${JSON.stringify({ name: "gen-corpus", ...options, ...result })}\n`);
  } catch (error) {
    process.stderr.write(`gen-corpus: ${(error as Error).message}\n`);
    process.exit(2);
  }
}
