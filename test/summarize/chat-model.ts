/**
 * The generated tiny llama chat model (scripts/gguf/llama-model.ts) for the local summary backend's tests, cached in
 * test/.models/ beside the generated embedding models (test/helpers/models.ts) and written atomically.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";
import { tinyLlamaShape, writeLlamaChatModel } from "../../scripts/gguf/llama-model.ts";
import { testModelsDir } from "../helpers/models.ts";

/** Returns the path of the tiny chat model (2 layers, 64 dims, 1,024-token context, ChatML), creating it on first use. */
export function getTestChatModelPath(seed = 7): string {
  const path = join(testModelsDir, `llama-chat-tiny-1024-${seed}.gguf`);
  if (!existsSync(path)) {
    mkdirSync(testModelsDir, { recursive: true });
    writeLlamaChatModel(path, { ...tinyLlamaShape, seed, name: "recall-test-chat" });
  }
  return path;
}
