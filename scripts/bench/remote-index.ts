/**
 * Bench (issue 12): a first and a no-change `recall index` of the real corpus (../shared/corpus) against a slow
 * OpenAI-compatible server on 127.0.0.1, like a CPU-class llama-server: one slot (requests are answered one at a
 * time), a fixed cost per text (`--ms-per-text`, default 20 ms) on top of embedding with a generated model, and
 * llama-server's HTTP 500 "input (N tokens) is too large" for any input over `--max-bytes` (default 1500 bytes, a
 * 512-token batch). Prints a table: wall time, requests, texts sent, texts/s, chunks embedded/failed/rejected, and the
 * second run's requests (must be 0: nothing is re-sent, rejected texts included).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalEmbedder, openEmbedder, resolveEmbedConfig } from "../../src/embed/index.ts";
import { runIndex } from "../../src/index/index.ts";
import { allCorpusRoots, hasCorpus } from "../../test/helpers/corpus.ts";
import { getTestModelPath } from "../../test/helpers/models.ts";
import { argValue, commit, machine } from "./lib.ts";

if (!hasCorpus) {
  process.stderr.write("remote-index: ../shared/corpus is missing; skipped\n");
  process.exit(0);
}
const msPerText = argValue("--ms-per-text", 20);
const maxBytes = argValue("--max-bytes", 1000);
const home = mkdtempSync(join(tmpdir(), "recall-remote-index-"));
const modelConfig = resolveEmbedConfig({
  env: {},
  home,
  modelFlag: getTestModelPath({ vocab: "bge", embd: 32, heads: 2, ff: 64, ctx: 512 }),
});
if (modelConfig.kind !== "local") throw new Error("expected a local model");
const model = await createLocalEmbedder(modelConfig, { threads: 1 });
let requests = 0;
let textsSent = 0;
let slot: Promise<unknown> = Promise.resolve();
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 255,
  async fetch(request) {
    const body = (await request.json()) as { input: string[] };
    requests++;
    textsSent += body.input.length;
    const tooLarge = body.input.find((text) => Buffer.byteLength(text) > maxBytes);
    if (tooLarge) {
      const tokens = Math.ceil(Buffer.byteLength(tooLarge) / 3);
      return Response.json(
        {
          error: {
            code: 500,
            message: `input (${tokens} tokens) is too large to process. increase the physical batch size (current batch size: 512)`,
            type: "server_error",
          },
        },
        { status: 500 },
      );
    }
    const turn = slot.then(async () => {
      await Bun.sleep(msPerText * body.input.length);
      return model.embedDocuments(body.input);
    });
    slot = turn.catch(() => undefined);
    const vectors = await turn;
    return Response.json({ data: vectors.map((vector, index) => ({ index, embedding: Array.from(vector!) })) });
  },
});
try {
  const env = { EMBEDDINGS_URL: `http://127.0.0.1:${server.port}/v1`, EMBEDDINGS_MODEL: "bench" };
  const embedder = await openEmbedder({ env, home });
  const run = async () => {
    const before = { requests, textsSent };
    const started = performance.now();
    const summary = await runIndex({
      recallHome: home,
      roots: allCorpusRoots(),
      openEmbedder: async () => embedder,
      followModelChange: true,
    });
    return {
      ms: performance.now() - started,
      requests: requests - before.requests,
      texts: textsSent - before.textsSent,
      embedding: summary.embedding,
    };
  };
  const first = await run();
  const second = await run();
  const rows = [
    ["first index: wall", `${(first.ms / 1000).toFixed(1)} s`],
    ["first index: requests / texts sent", `${first.requests} / ${first.texts}`],
    ["first index: texts/s", (first.texts / (first.ms / 1000)).toFixed(1)],
    [
      "first index: chunks embedded / failed / rejected",
      `${first.embedding?.embedded ?? 0} / ${first.embedding?.failed ?? 0} / ${first.embedding?.rejected ?? 0}`,
    ],
    ["no-change index: requests", String(second.requests)],
  ];
  console.log(
    `| remote index of the corpus (${msPerText} ms per text, one slot, > ${maxBytes} bytes is too large) | |\n|---|---|`,
  );
  for (const [name, value] of rows) console.log(`| ${name} | ${value} |`);
  console.log(
    JSON.stringify({
      name: "remote-index: first index",
      n: first.texts,
      p50_ms: Math.round(first.ms),
      p95_ms: null,
      requests: first.requests,
      embedded: first.embedding?.embedded ?? 0,
      failed: first.embedding?.failed ?? 0,
      rejected: first.embedding?.rejected ?? 0,
      machine,
      commit,
    }),
  );
  console.log(
    JSON.stringify({
      name: "remote-index: no-change index",
      n: second.texts,
      p50_ms: Math.round(second.ms),
      p95_ms: null,
      requests: second.requests,
      machine,
      commit,
    }),
  );
  await embedder.dispose();
} finally {
  server.stop(true);
  await model.dispose();
  rmSync(home, { recursive: true, force: true });
}
