/**
 * Generated GGUF test models for any test that needs an embedder (runtime-notes §6: no sentence-embedding model is
 * obtainable here). Files are cached in test/.models/ (git-ignored by test/.gitignore), keyed by their
 * options, and written atomically so parallel test files never see half a model.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { modelShapes, writeBertModel, type BertModelOptions } from "../../scripts/gguf/bert-model.ts";

/** Cache folder of generated models. */
export const testModelsDir = join(import.meta.dir, "..", ".models");

/**
 * Returns the path of a generated BERT model, creating it on first use. Default: the tiny shape (64 dims,
 * 2 layers, synthetic vocab, mean pooling, f32: ~470 KB, ~10 ms to write).
 * @param overrides any BertModelOptions, e.g. `{ pooling: "cls" }` or `{ vocab: "bge", embd: 32, heads: 2 }`
 */
export function getTestModelPath(overrides: Partial<BertModelOptions> = {}): string {
  const options: BertModelOptions = { ...modelShapes.tiny, seed: 42, name: "recall-test-tiny", ...overrides };
  const key = [
    options.layers,
    options.embd,
    options.heads,
    options.ff,
    options.ctx,
    options.type,
    options.pooling,
    options.vocab,
    options.seed,
  ].join("-");
  const path = join(testModelsDir, `bert-${key}.gguf`);
  if (!existsSync(path)) {
    mkdirSync(testModelsDir, { recursive: true });
    writeBertModel(path, options);
  }
  return path;
}

/**
 * The one real, trained embedding model these machines have: `../shared/models/glove-wink-100d-f16.gguf` (GloVe word
 * vectors, mean pooled; its README in that folder). May be absent: tests that need it skip with a clear message.
 */
export const sharedModelPath: string = resolve(import.meta.dir, "../../../shared/models/glove-wink-100d-f16.gguf");

/** True when the shared trained model is present. */
export const hasSharedModel: boolean = existsSync(sharedModelPath);
