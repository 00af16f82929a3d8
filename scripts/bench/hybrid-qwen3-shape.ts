/**
 * Bench: cold hybrid search on a generated model with Qwen3-Embedding-0.6B's shape AND vocabulary (the
 * "qwen3-0.6b-like" shape of scripts/gguf/bert-model.ts: 28 layers, 1024 dims, 3072 ff, q8_0, mean pooling, the real
 * 151,669-token Qwen2 byte-level BPE vocab; a BERT encoder with random weights, so speed and size, never quality).
 * The model is generated once and kept in {@link benchCacheDir} (qwen3-0.6b-like-shape.gguf, ~487 MB); the example
 * history is indexed with it in a temporary RECALL_HOME. Measures, in one run:
 *   - cold `recall search --keyword-only` and cold hybrid `recall search` (fresh process, --no-reindex; p50 of --runs),
 *     hybrid three ways: with the embedding helper off (the model loads in the search process), the first search that
 *     starts the helper (`recall embed-helper`) and waits for it, and searches through the warm helper; target for the
 *     hybrid rows: 1.5 × keyword p50 + 150 ms (issue 17);
 *   - where a cold load goes, in-process, with the context recall's local embedder makes (min(train context, 2048)
 *     tokens, threads = cores): reading the GGUF header (token list and merges included), node-llama-cpp's getLlama,
 *     loadModel, the first embedding context, the first embedding.
 * The helper is stopped at the end (as hybrid-shared-model.ts does) and the temporary RECALL_HOME deleted.
 * Usage: bun scripts/bench/hybrid-qwen3-shape.ts [--runs 5]
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readGgufModelInfo } from "../../src/embed/index.ts";
import { getSharedLlama } from "../../src/embed/load-runtime.ts";
import { argValue, benchCacheDir, benchColdHybrid, report, timeCommand } from "./lib.ts";

const repo = resolve(import.meta.dir, "../..");
const runs = argValue("--runs", 5);
mkdirSync(benchCacheDir, { recursive: true });
const model = join(benchCacheDir, "qwen3-0.6b-like-shape.gguf");
if (!existsSync(model)) {
  const made = Bun.spawnSync(["bun", join(repo, "scripts/gguf/make-model.ts"), model, "--shape", "qwen3-0.6b-like"], {
    stdout: "inherit",
    stderr: "inherit",
  });
  if (made.exitCode !== 0) throw new Error("could not generate the qwen3-0.6b-like model");
}
const modelBytes = statSync(model).size;

const home = mkdtempSync(join(tmpdir(), "recall-bench-qwen3-"));
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
  report(
    "hybrid_qwen3.index_examples",
    [timeCommand([...cli, "index", ...sources, "--model", model], { env, cwd: repo })],
    { model_bytes: modelBytes },
  );
  await benchColdHybrid({
    keywordName: "search.cold.keyword.source.qwen3_index",
    hybridName: "search.cold.hybrid.source.qwen3_shape",
    searchArgs: ["search", query, "--no-reindex", "--model", model, ...sources],
    env,
    cwd: repo,
    runs,
    helpersDir: join(home, "helpers"),
  });
} finally {
  rmSync(home, { recursive: true, force: true });
}

const at = [performance.now()];
readGgufModelInfo(model);
at.push(performance.now());
const llama = await getSharedLlama();
at.push(performance.now());
const loaded = await llama.loadModel({ modelPath: model });
at.push(performance.now());
const contextSize = Math.min(loaded.trainContextSize, 2048);
const context = await loaded.createEmbeddingContext({
  contextSize,
  batchSize: contextSize,
  threads: availableParallelism(),
});
at.push(performance.now());
const embedding = await context.getEmbeddingFor(query);
at.push(performance.now());
const step = (i: number) => Math.round(at[i + 1]! - at[i]!);
report("hybrid_qwen3.cold_load_breakdown", [at[5]! - at[0]!], {
  read_header_ms: step(0),
  get_llama_ms: step(1),
  load_model_ms: step(2),
  first_context_ms: step(3),
  first_embedding_ms: step(4),
  dims: embedding.vector.length,
  query_tokens: loaded.tokenize(query).length,
});
await context.dispose();
await loaded.dispose();
process.exit(0);
