/**
 * Embedding speed of the local backend (node-llama-cpp, threads by threads.ts) on generated random-weight models
 * with real shapes: bge-small (12L, 384d, q8_0, real BGE vocab) and qwen3-0.6b-like (28L, 1024d, 3072 ff,
 * q8_0: Qwen3-Embedding-0.6B's shape, but a BERT encoder, so it predicts speed, not quality). Measures model
 * load (loadModel + embedding context), a short query (~8 tokens) and 200-token documents, the documents again with a
 * background CPU load (2 busy loops per core; `loaded_ratio` = loaded docs/s ÷ unloaded, target ≥ 0.5, issue 12) both
 * with the threads threads.ts picks and with all cores (the rule before issue 12). Physical reference:
 * runtime-notes §6 (bge-small shape: 215 ms load, 262 ms per 200-token text, 9–15 ms per short query).
 * Prints JSON lines {name, n, p50_ms, p95_ms, docs_per_s, model, machine, commit}; `--save` appends them to
 * scripts/bench/results/<date>-<machine>.jsonl. Models are cached in $RECALL_BENCH_CACHE or ~/.cache/recall-bench.
 * Options: --shapes bge-small,qwen3-0.6b-like  --queries N (20)  --docs N (bge 20, qwen3 6)  --loads N (3)
 */
import { appendFileSync, existsSync, mkdirSync } from "node:fs";
import { cpus, homedir, loadavg } from "node:os";
import { join, resolve } from "node:path";
import {
  createLocalEmbedder,
  resolveEmbedConfig,
  type Embedder,
  type LocalEmbedConfig,
} from "../../src/embed/index.ts";
import { modelShapes, writeBertModel, type ModelShapeName } from "../gguf/bert-model.ts";

interface Row {
  name: string;
  n: number;
  p50_ms: number;
  p95_ms: number;
  docs_per_s: number | null;
  model: string;
  size_bytes: number;
  load_avg_1m: number;
  machine: string;
  commit: string;
  loaded_ratio?: number;
}

const words = (
  "the index stores every session turn so search can find the fix for a failing sqlite migration later " +
  "while embeddings capture meaning beyond keywords and tool calls record files edited by the agent"
).split(" ");

function argValue(name: string): string | undefined {
  const at = process.argv.indexOf(`--${name}`);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

function percentile(sortedMs: number[], fraction: number): number {
  return sortedMs[Math.min(sortedMs.length - 1, Math.floor(fraction * sortedMs.length))]!;
}

function ensureBenchModel(shape: ModelShapeName): string {
  const dir = process.env.RECALL_BENCH_CACHE ?? join(homedir(), ".cache", "recall-bench");
  // the vocab is part of the name: a copy made when qwen3-0.6b-like still had the BGE vocab is not reused
  const path = join(dir, `${shape}-${modelShapes[shape].vocab}-seed42.gguf`);
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    writeBertModel(path, { ...modelShapes[shape], seed: 42, name: `recall-bench-${shape}` });
  }
  return path;
}

/** A text of exactly `tokens` model tokens (BOS/EOS included), built from cycling words. */
function makeDocument(embedder: Embedder, tokens: number, offset: number): string {
  const parts: string[] = [];
  for (let i = offset; embedder.countTokens(parts.join(" ")) < tokens; i++) parts.push(words[i % words.length]!);
  return parts.join(" ");
}

async function timeMs(run: () => Promise<unknown>): Promise<number> {
  const startMs = performance.now();
  await run();
  return performance.now() - startMs;
}

async function benchShape(
  shape: ModelShapeName,
  emit: (name: string, timesMs: number[], extra: Partial<Row>) => void,
): Promise<void> {
  const path = ensureBenchModel(shape);
  const config = resolveEmbedConfig({ env: {}, home: homedir(), modelFlag: path }) as LocalEmbedConfig;
  await (await createLocalEmbedder(config)).dispose(); // warm-up: llama init, file hash sidecar, page cache
  const loadTimes: number[] = [];
  for (let i = 0; i < Number(argValue("loads") ?? 3); i++) {
    let embedder: Embedder | undefined;
    loadTimes.push(await timeMs(async () => (embedder = await createLocalEmbedder(config))));
    await embedder!.dispose();
  }
  emit(`embed-load-${shape}`, loadTimes, {});
  const embedder = await createLocalEmbedder(config);
  const queryTimes: number[] = [];
  await embedder.embedQuery("warm up");
  for (let i = 0; i < Number(argValue("queries") ?? 20); i++) {
    queryTimes.push(await timeMs(() => embedder.embedQuery(`how did we fix the sqlite migration ${i}`)));
  }
  emit(`embed-query-short-${shape}`, queryTimes, {});
  const docCount = Number(argValue("docs") ?? (shape === "qwen3-0.6b-like" ? 6 : 20));
  const documents = Array.from({ length: docCount }, (_, i) => makeDocument(embedder, 200, i));
  const docTimes: number[] = [];
  const totalMs = await timeMs(async () => {
    for (const document of documents) docTimes.push(await timeMs(() => embedder.embedDocuments([document])));
  });
  const unloadedDocsPerS = docCount / (totalMs / 1000);
  emit(`embed-doc200-${shape}`, docTimes, { docs_per_s: +unloadedDocsPerS.toFixed(2) });
  await embedder.dispose();
  // The same documents with a background CPU load (2 busy loops per core, as when the coding agent and its tools run):
  // threads chosen by threads.ts, then all cores (the old rule), each with a model loaded under the load.
  const busy = Array.from({ length: 2 * cpus().length }, () =>
    Bun.spawn([process.execPath, "-e", "for (;;) {}"], { stdout: "ignore", stderr: "ignore" }),
  );
  try {
    await Bun.sleep(1500);
    for (const [label, threads] of [
      ["loaded", undefined],
      ["loaded-all-cores", cpus().length],
    ] as const) {
      const loaded = await createLocalEmbedder(config, threads === undefined ? {} : { threads });
      const times: number[] = [];
      const loadedMs = await timeMs(async () => {
        for (const document of documents) times.push(await timeMs(() => loaded.embedDocuments([document])));
      });
      const docsPerS = docCount / (loadedMs / 1000);
      emit(`embed-doc200-${label}-${shape}`, times, {
        docs_per_s: +docsPerS.toFixed(2),
        loaded_ratio: +(docsPerS / unloadedDocsPerS).toFixed(2),
      });
      await loaded.dispose();
    }
  } finally {
    for (const child of busy) child.kill();
  }
}

if (import.meta.main) {
  const machine = `${cpus()[0]?.model ?? "cpu"} ${cpus().length}c`;
  const commit = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: import.meta.dir })
    .stdout.toString()
    .trim();
  const shapes = (argValue("shapes") ?? "bge-small,qwen3-0.6b-like").split(",") as ModelShapeName[];
  const rows: Row[] = [];
  for (const shape of shapes) {
    const sizeBytes = Bun.file(ensureBenchModel(shape)).size;
    await benchShape(shape, (name, timesMs, extra) => {
      const sorted = [...timesMs].sort((a, b) => a - b);
      const row: Row = {
        name,
        n: timesMs.length,
        p50_ms: +percentile(sorted, 0.5).toFixed(2),
        p95_ms: +percentile(sorted, 0.95).toFixed(2),
        docs_per_s: null,
        model: shape,
        size_bytes: sizeBytes,
        load_avg_1m: +loadavg()[0]!.toFixed(2),
        machine,
        commit,
        ...extra,
      };
      rows.push(row);
      console.log(JSON.stringify(row));
    });
  }
  if (process.argv.includes("--save")) {
    const dir = resolve(import.meta.dir, "results");
    mkdirSync(dir, { recursive: true });
    appendFileSync(
      join(dir, `${new Date().toISOString().slice(0, 10)}-${machine.replace(/\W+/g, "-")}.jsonl`),
      rows.map((r) => `${JSON.stringify(r)}\n`).join(""),
    );
  }
}
