/**
 * Bench (issue 17): hybrid search with the one real, trained model these machines have
 * (../shared/models/glove-wink-100d-f16.gguf: 321k-word vocabulary, so it loads like a large-vocabulary model), side
 * by side with keyword-only, on the example history embedded with it. Measures, in one run:
 *   - cold `recall search --keyword-only` and cold hybrid `recall search` (fresh process, --no-reindex; p50 of --runs);
 *     the target for the cold hybrid search is 1.5 × cold keyword + 150 ms; the hybrid search three ways: with
 *     the embedding helper off (the model loads in the search process), the first search that starts the helper, and
 *     searches through the warm helper (src/service/query-embedder.ts); the helper is stopped at the end;
 *   - the same hybrid query through a running MCP server (`recall mcp --no-watch`, SDK client over stdio): the first
 *     call (loads the model) and the warm round trip (p50/p95 of 20 calls), the warm path that removes the model load;
 *   - where a cold load goes, in-process: node-llama-cpp's getLlama, loadModel, the first embedding context, the
 *     first embedding.
 * Skips with a message when the shared model is absent. Usage: bun scripts/bench/hybrid-shared-model.ts [--runs 7]
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { getSharedLlama } from "../../src/embed/load-runtime.ts";
import { argValue, benchColdHybrid, report, timeCommand } from "./lib.ts";

const repo = resolve(import.meta.dir, "../..");
const model = resolve(repo, "../shared/models/glove-wink-100d-f16.gguf");
const runs = argValue("--runs", 7);
if (!existsSync(model)) {
  process.stderr.write("hybrid-shared-model: ../shared/models/glove-wink-100d-f16.gguf is missing; nothing measured\n");
  process.exit(0);
}

const home = mkdtempSync(join(tmpdir(), "recall-bench-glove-"));
const env: Record<string, string> = {
  ...(process.env as Record<string, string>),
  RECALL_HOME: home,
  RECALL_OFFLINE: "1",
  NO_COLOR: "1",
};
const sources = ["--claude-dir", join(repo, "examples/claude-code"), "--opencode-dir", join(repo, "examples/opencode")];
const query = "containers cannot reach the database on the host";
const cli = ["bun", join(repo, "src/cli.ts")];
try {
  report("hybrid_glove.index_examples", [
    timeCommand([...cli, "index", ...sources, "--model", model], { env, cwd: repo }),
  ]);
  const targetMs = await benchColdHybrid({
    keywordName: "search.cold.keyword.source.glove_index",
    hybridName: "search.cold.hybrid.source.glove",
    searchArgs: ["search", query, "--no-reindex", "--model", model, ...sources],
    env,
    cwd: repo,
    runs,
    helpersDir: join(home, "helpers"),
  });

  const transport = new StdioClientTransport({
    command: "bun",
    args: [join(repo, "src/cli.ts"), "mcp", "--no-watch", "--model", model, ...sources],
    env,
    stderr: "ignore",
  });
  const client = new Client({ name: "recall-bench", version: "1" });
  await client.connect(transport);
  const call = async () => {
    const started = performance.now();
    await client.callTool({ name: "search", arguments: { query } });
    return performance.now() - started;
  };
  report("mcp.hybrid.first_call.glove", [await call()]);
  const warm: number[] = [];
  for (let i = 0; i < 20; i++) warm.push(await call());
  report("mcp.hybrid.warm.glove", warm, { target_ms: targetMs });
  await client.close();

  const at = [performance.now()];
  const llama = await getSharedLlama();
  at.push(performance.now());
  const loaded = await llama.loadModel({ modelPath: model });
  at.push(performance.now());
  const context = await loaded.createEmbeddingContext({ contextSize: 512, batchSize: 512, threads: 1 });
  at.push(performance.now());
  await context.getEmbeddingFor(query);
  at.push(performance.now());
  const step = (i: number) => Math.round(at[i + 1]! - at[i]!);
  report("hybrid_glove.cold_load_breakdown", [at[4]! - at[0]!], {
    get_llama_ms: step(0),
    load_model_ms: step(1),
    first_context_ms: step(2),
    first_embedding_ms: step(3),
  });
  await context.dispose();
  await loaded.dispose();
} finally {
  rmSync(home, { recursive: true, force: true });
}
process.exit(0);
