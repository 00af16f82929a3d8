/**
 * CLI: generate a BERT-shaped GGUF embedding model with seeded random weights (tests, benchmarks).
 *   bun scripts/gguf/make-model.ts <out.gguf> [--shape tiny|bge-small|qwen3-0.6b-like] [--layers N] [--embd N]
 *       [--heads N] [--ff N] [--ctx N] [--type f32|f16|q8_0] [--pooling mean|cls] [--vocab synthetic|bge|qwen2] [--seed N]
 * "qwen3-0.6b-like" matches Qwen3-Embedding-0.6B's shape (1024 dims, 28 layers, 3072 ff) and vocabulary (151,669-token
 * Qwen2 BPE), not its architecture (it is a BERT encoder), so it predicts speed and file size, never quality. Prints one summary line to stdout.
 */
import { modelShapes, writeBertModel, type BertModelOptions, type ModelShapeName } from "./bert-model.ts";

function parseArgs(argv: string[]): { out: string; options: BertModelOptions } {
  const [out, ...rest] = argv;
  if (!out || out.startsWith("--"))
    throw new Error("usage: make-model.ts <out.gguf> [--shape tiny|bge-small|qwen3-0.6b-like] [...]");
  const flags = new Map<string, string>();
  for (let i = 0; i < rest.length; i += 2) flags.set(rest[i]!.replace(/^--/, ""), rest[i + 1] ?? "");
  const shapeName = (flags.get("shape") ?? "tiny") as ModelShapeName;
  const shape = modelShapes[shapeName];
  if (!shape) throw new Error(`unknown shape: ${shapeName} (tiny, bge-small, qwen3-0.6b-like)`);
  const int = (key: string, fallback: number): number =>
    flags.has(key) ? Number.parseInt(flags.get(key)!, 10) : fallback;
  const options: BertModelOptions = {
    layers: int("layers", shape.layers),
    embd: int("embd", shape.embd),
    heads: int("heads", shape.heads),
    ff: int("ff", shape.ff),
    ctx: int("ctx", shape.ctx),
    seed: int("seed", 42),
    type: (flags.get("type") ?? shape.type) as BertModelOptions["type"],
    pooling: (flags.get("pooling") ?? shape.pooling) as BertModelOptions["pooling"],
    vocab: (flags.get("vocab") ?? shape.vocab) as BertModelOptions["vocab"],
    name: flags.get("name") ?? `recall-test-${shapeName}`,
  };
  return { out, options };
}

if (import.meta.main) {
  const { out, options } = parseArgs(process.argv.slice(2));
  const startMs = performance.now();
  const result = writeBertModel(out, options);
  const elapsedMs = Math.round(performance.now() - startMs);
  console.log(
    `wrote ${out}: ${result.sizeBytes} bytes, ${result.tensorCount} tensors, vocab ${result.vocabSize}, ` +
      `${options.layers}L x ${options.embd}d, ${options.type}, ${options.pooling} pooling, ${elapsedMs} ms`,
  );
}
