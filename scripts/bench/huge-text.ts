/**
 * One huge text (issue 37, hole 9): a Claude Code session whose one prompt is ~50 MB (a unique word near its start,
 * then words that match the query, repeated), beside the shipped example history. For a normal index (the examples
 * alone) and the same index with the huge session: `recall index --keyword-only` once, then `recall search` for a
 * word the huge prompt holds (depth 1 and 2, keyword, a fresh process each time), with its wall time and peak
 * resident memory (`/usr/bin/time -f %M`, GNU time); `x_normal` is a huge-index row's p50 over the normal one's.
 * Targets: a search that matches the huge text at most 2x the normal one, peak memory at most 200 MB. `--mb N` sets
 * the prompt's size (default 50), `--runs N` the samples.
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { writeClaudeSession } from "../../test/helpers/claude-writer.ts";
import { argValue, percentile, report } from "./lib.ts";

const repo = resolve(import.meta.dir, "../..");
const cli = join(repo, "src/cli.ts");
const megabytes = argValue("--mb", 50);
const runs = argValue("--runs", 5);
const work = mkdtempSync(join(tmpdir(), "recall-bench-huge-"));

/** The huge prompt: a unique word, then "deploy pipeline rollback …" sentences up to `megabytes` MB. */
function hugePrompt(): string {
  const sentence = "the deploy pipeline rollback failed again on the staging cluster while the cache warmed. ";
  return `zanzibarquux is the word to find. ${sentence.repeat(Math.ceil((megabytes * 1_000_000) / sentence.length))}`;
}

/** The environment of an index at `recallHome` over the examples and `claudeDirs`. */
function envOf(recallHome: string, claudeDirs: string[]): Record<string, string | undefined> {
  const none = join(work, "none");
  return {
    ...process.env,
    RECALL_HOME: recallHome,
    RECALL_OFFLINE: "1",
    NO_COLOR: "1",
    RECALL_CLAUDE_DIRS: [join(repo, "examples/claude-code"), ...claudeDirs].join(":"),
    RECALL_OPENCODE_DIRS: join(repo, "examples/opencode"),
    RECALL_CODEX_DIRS: none,
    RECALL_GEMINI_DIRS: none,
    RECALL_CURSOR_DIRS: none,
    RECALL_AIDER_DIRS: none,
  };
}

/** Wall time (ms) and peak resident memory (MB) of `bun src/cli.ts <args>` under GNU time. */
function measure(args: string[], env: Record<string, string | undefined>): { ms: number; peakMb: number } {
  const started = performance.now();
  const child = Bun.spawnSync(["/usr/bin/time", "-f", "peak_kb=%M", "bun", cli, ...args], {
    env,
    stdout: "ignore",
    stderr: "pipe",
  });
  const ms = performance.now() - started;
  const stderr = child.stderr.toString();
  if (child.exitCode !== 0) throw new Error(`recall ${args.join(" ")} exited ${child.exitCode}: ${stderr.slice(-500)}`);
  const peakKb = Number(/peak_kb=(\d+)/.exec(stderr)?.[1]);
  return { ms, peakMb: Math.round(peakKb / 1024) };
}

try {
  const hugeDir = join(work, "claude");
  mkdirSync(hugeDir);
  writeClaudeSession(join(hugeDir, "projects", "-home-dev-huge", "4a4a4a4a-3737-4000-8000-000000000009.jsonl"), {
    sessionId: "4a4a4a4a-3737-4000-8000-000000000009",
    cwd: "/home/dev/huge",
    title: "A huge pasted log",
    turns: [
      { prompt: hugePrompt(), response: "That log shows the rollback failing." },
      { prompt: "and what about the deploy pipeline now?", response: "The rollback works now." },
    ],
  });
  const indexes = [
    { label: "normal", env: envOf(join(work, "home-normal"), []) },
    { label: "huge", env: envOf(join(work, "home-huge"), [hugeDir]) },
  ];
  const searches = [
    { label: "deploy_pipeline.depth1", args: ["search", "deploy pipeline rollback", "--no-reindex"] },
    { label: "deploy_pipeline.depth2", args: ["search", "deploy pipeline rollback", "--depth", "2", "--no-reindex"] },
    { label: "unique_word.depth1", args: ["search", "zanzibarquux", "--no-reindex"] },
  ];
  for (const index of indexes) {
    const indexed = measure(["index", "--keyword-only"], index.env);
    report(`huge_text.${index.label}.index`, [indexed.ms], { peak_mb: indexed.peakMb, prompt_mb: megabytes });
  }
  for (const search of searches) {
    // The two indexes' samples alternate, so a change of load on a shared machine weighs on both alike.
    const samples = indexes.map(() => [] as Array<{ ms: number; peakMb: number }>);
    for (let run = 0; run < runs; run++)
      for (const [i, index] of indexes.entries()) samples[i]!.push(measure(search.args, index.env));
    const p50 = samples.map((taken) =>
      percentile(
        taken.map((sample) => sample.ms),
        50,
      ),
    );
    for (const [i, index] of indexes.entries())
      report(
        `huge_text.${index.label}.${search.label}`,
        samples[i]!.map((sample) => sample.ms),
        {
          peak_mb: percentile(
            samples[i]!.map((sample) => sample.peakMb),
            100,
          ),
          prompt_mb: megabytes,
          ...(i > 0 ? { x_normal: Math.round((p50[i]! / p50[0]!) * 100) / 100 } : {}),
        },
      );
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
