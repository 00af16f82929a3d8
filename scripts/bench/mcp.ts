/**
 * Bench (issue 10): the MCP server, driven by the SDK's own client over stdio, on the real corpus
 * (../shared/corpus, claude-code + opencode) and on the corpus scripts/gen-corpus.ts scales to --sessions
 * (default 20,000; cached in ~/.cache/recall-bench like index-search.ts, keyword index built once per run).
 * Measures, per corpus, with the watcher on (the default server):
 *   - start to first answer: spawn `recall mcp` + initialize + one `search` (wall ms, 5 runs; from source, and
 *     from the compiled binary, dist/recall built from this tree first as lib.ts `benchBinary` does (--no-build: the
 *     one there); it used any dist/recall it found, an older commit's after a checkout); physical reference: the
 *     bare SDK client connecting to a Bun hello-world MCP server would still pay one Bun start (~30 ms here);
 *   - warm `search` round trip p50/p95 over ~50 queries (targets p50 ≤ 5 ms real, ≤ 30 ms at 20k), depth 1 and 2;
 *   - median tokens of an `index`-format answer of 10 results (text; tokens = characters / 4; target ≤ 600),
 *     and of its structuredContent JSON;
 *   - idle CPU over --idle-seconds (default 60) with no change to the sources (target ≈ 0), from /proc ticks.
 * Once: tokens of the five tool definitions the model sees (name + description + inputSchema; target ≤ 1,000),
 * counted as characters / 4 and as words × 1.3 (no tokenizer is installed here), and of the whole tools/list.
 * Usage: bun scripts/bench/mcp.ts [--sessions 20000] [--runs 5] [--idle-seconds 60] [--no-scaled] [--no-build]
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { existsSync, mkdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { words as vocabulary } from "../gen-corpus/vocabulary.ts";
import { argValue, benchBinary, ensureGeneratedCorpus, listDirs, percentile, report, timeCommand } from "./lib.ts";

const repo = resolve(import.meta.dir, "../..");
const sessions = argValue("--sessions", 20_000);
const runs = argValue("--runs", 5);
const idleSeconds = argValue("--idle-seconds", 60);
const corpus = resolve(repo, "../shared/corpus");
const round = (value: number) => Math.round(value * 100) / 100;

interface BenchCorpus {
  label: string;
  flags: string[];
  queries: string[];
  targetMs: number;
}

function realCorpus(): BenchCorpus | undefined {
  if (!existsSync(join(corpus, "claude-code")))
    return void process.stderr.write("mcp: ../shared/corpus is missing; only the scaled corpus is measured\n");
  const claude = listDirs(join(corpus, "claude-code"));
  const opencode = listDirs(join(corpus, "opencode")).map((dir) => join(dir, ".local/share/opencode"));
  const labelled = JSON.parse(readFileSync(join(repo, "test/corpus/queries.json"), "utf8")) as Array<{ query: string }>;
  const queries = [
    ...labelled.map((item) => item.query),
    "fix the failing test",
    "how did we configure the cache",
  ].slice(0, 50);
  return {
    label: "real",
    flags: [...claude.flatMap((dir) => ["--claude-dir", dir]), ...opencode.flatMap((dir) => ["--opencode-dir", dir])],
    queries,
    targetMs: 5,
  };
}

function scaledCorpus(): BenchCorpus {
  const dir = ensureGeneratedCorpus(sessions);
  const content = vocabulary.filter((word) => word.length > 3);
  const queries = Array.from(
    { length: 50 },
    (_, i) => `${content[(i * 7) % content.length]} ${content[(i * 13 + 5) % content.length]}`,
  );
  return {
    label: `scaled-${sessions}`,
    flags: ["--claude-dir", join(dir, "projects"), "--opencode-dir", join(dir, "opencode")],
    queries,
    targetMs: 30,
  };
}

/** Connect the SDK client to `recall mcp` started by `command`. */
async function connect(
  command: string[],
  env: Record<string, string>,
): Promise<{ client: Client; transport: StdioClientTransport }> {
  const transport = new StdioClientTransport({ command: command[0]!, args: command.slice(1), env, stderr: "ignore" });
  const client = new Client({ name: "recall-bench", version: "1" });
  await client.connect(transport);
  return { client, transport };
}

const search = async (client: Client, args: Record<string, unknown>) =>
  (await client.callTool({ name: "search", arguments: args })) as CallToolResult;
const textOf = (result: CallToolResult) =>
  result.content.map((item) => (item.type === "text" ? item.text : "")).join("\n");

/** CPU time (user + system) of a process so far, in ms, from /proc/<pid>/stat. */
function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticksPerSecond = Number(Bun.spawnSync(["getconf", "CLK_TCK"]).stdout.toString().trim()) || 100;
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / ticksPerSecond;
}

async function benchToolDefinitions(command: string[], env: Record<string, string>): Promise<void> {
  const { client } = await connect(command, env);
  const { tools } = await client.listTools();
  const modelFacing = tools
    .map((tool) => JSON.stringify({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema }))
    .join("");
  const wordCount = modelFacing.split(/[\s{}[\]",:]+/).filter(Boolean).length;
  report("mcp.tool_definitions.tokens", [], {
    tools: tools.length,
    tokens_chars_div_4: Math.round(modelFacing.length / 4),
    tokens_words_x1_3: Math.round(wordCount * 1.3),
    tools_list_with_output_schemas_tokens_chars_div_4: Math.round(JSON.stringify(tools).length / 4),
    target_tokens: 1000,
  });
  await client.close();
}

async function benchCorpus(bench: BenchCorpus, binary: string): Promise<void> {
  const home = join(tmpdir(), `recall-bench-mcp-${bench.label}`);
  rmSync(home, { recursive: true, force: true });
  mkdirSync(join(home, "home"), { recursive: true });
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    RECALL_HOME: join(home, "index"),
    HOME: join(home, "home"),
    NO_COLOR: "1",
    RECALL_OFFLINE: "1",
  };
  const fromSource = [process.execPath, join(repo, "src/cli.ts")];
  const indexMs = timeCommand([...fromSource, "index", "--keyword-only", ...bench.flags], { env, cwd: repo });
  process.stderr.write(`mcp: ${bench.label}: keyword index built in ${(indexMs / 1000).toFixed(1)} s\n`);

  for (const [kind, command] of [
    ["source", fromSource],
    ["binary", [binary]],
  ] as Array<[string, string[]]>) {
    const samples: number[] = [];
    for (let i = 0; i < runs; i++) {
      const started = performance.now();
      const { client } = await connect([...command, "mcp", ...bench.flags], env);
      await search(client, { query: bench.queries[i % bench.queries.length]! });
      samples.push(performance.now() - started);
      await client.close();
    }
    report(`mcp.start_to_first_answer.${kind}.${bench.label}`, samples);
  }

  const { client, transport } = await connect([...fromSource, "mcp", ...bench.flags], env);
  for (const query of bench.queries.slice(0, 5)) await search(client, { query });
  await Bun.sleep(3000); // the watcher's first cycle (a no-change scan) is over
  for (const depth of [1, 2]) {
    const samples: number[] = [];
    for (const query of bench.queries) {
      const started = performance.now();
      await search(client, { query, depth });
      samples.push(performance.now() - started);
    }
    report(`mcp.search.warm.depth${depth}.${bench.label}`, samples, {
      target_p50_ms: depth === 1 ? bench.targetMs : undefined,
    });
  }
  const textTokens: number[] = [];
  const structuredTokens: number[] = [];
  for (const query of bench.queries) {
    const result = await search(client, { query, limit: 10 });
    if ((result.structuredContent as { results: unknown[] }).results.length < 10) continue;
    textTokens.push(textOf(result).length / 4);
    structuredTokens.push(JSON.stringify(result.structuredContent).length / 4);
  }
  report(`mcp.index_answer_10_results.tokens.${bench.label}`, [], {
    answers: textTokens.length,
    median_text_tokens: round(percentile(textTokens, 50)),
    median_structured_tokens: round(percentile(structuredTokens, 50)),
    counted_as: "chars/4",
    target_tokens: 600,
  });
  const pid = transport.pid!;
  const before = cpuMs(pid);
  await Bun.sleep(idleSeconds * 1000);
  const used = cpuMs(pid) - before;
  report(`mcp.idle_cpu.${bench.label}`, [], {
    seconds: idleSeconds,
    cpu_ms: round(used),
    cpu_percent: round((used / (idleSeconds * 1000)) * 100),
  });
  await client.close();
  rmSync(home, { recursive: true, force: true });
}

const binary = benchBinary();
const corpora = [realCorpus(), ...(process.argv.includes("--no-scaled") ? [] : [scaledCorpus()])].filter(
  (item): item is BenchCorpus => item !== undefined,
);
const emptyHome = join(tmpdir(), "recall-bench-mcp-defs");
mkdirSync(join(emptyHome, "home"), { recursive: true });
await benchToolDefinitions(
  [process.execPath, join(repo, "src/cli.ts"), "mcp", "--no-watch", "--claude-dir", join(repo, "examples/claude-code")],
  {
    ...(process.env as Record<string, string>),
    RECALL_HOME: join(emptyHome, "index"),
    HOME: join(emptyHome, "home"),
    RECALL_OFFLINE: "1",
  },
);
rmSync(emptyHome, { recursive: true, force: true });
for (const bench of corpora) await benchCorpus(bench, binary);
