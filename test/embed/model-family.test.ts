/**
 * model-family.ts (issue 12): prefixes and pooling follow the model however it is named (Hugging Face id, Ollama name,
 * local file, GGUF name), for local and remote configs, and EMBEDDINGS_QUERY_PREFIX / EMBEDDINGS_DOCUMENT_PREFIX win.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createLocalEmbedder, resolveEmbedConfig } from "../../src/embed/index.ts";
import { recognizeModelFamily } from "../../src/embed/model-family.ts";
import { getTestModelPath } from "../helpers/models.ts";

const work = mkdtempSync(join(tmpdir(), "recall-family-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe("model families (issue 12)", () => {
  test("recognised from Hugging Face ids, Ollama names, file paths and presets", () => {
    expect(recognizeModelFamily("Qwen/Qwen3-Embedding-0.6B")?.id).toBe("qwen3-embedding");
    expect(recognizeModelFamily("qwen3-embedding:0.6b")?.pooling).toBe("last");
    expect(recognizeModelFamily("nomic-embed-text")?.documentPrefix).toBe("search_document: ");
    expect(recognizeModelFamily("nomic-embed-text:v1.5")?.queryPrefix).toBe("search_query: ");
    expect(recognizeModelFamily("/models/nomic-embed-text-v1.5.Q4_K_M.gguf")?.id).toBe("nomic-embed-text");
    expect(recognizeModelFamily("BAAI/bge-base-en-v1.5")?.pooling).toBe("cls");
    expect(recognizeModelFamily("sentence-transformers/all-MiniLM-L6-v2")?.maxInputTokens).toBe(256);
    expect(recognizeModelFamily("intfloat/multilingual-e5-large")?.documentPrefix).toBe("passage: ");
    expect(recognizeModelFamily("text-embedding-3-small")).toBeUndefined();
  });

  test("a remote EMBEDDINGS_MODEL gets its family's prefixes; the environment overrides them", () => {
    const remote = (env: Record<string, string>) =>
      resolveEmbedConfig({ env: { EMBEDDINGS_URL: "http://127.0.0.1:9/v1", ...env }, home: work });
    expect(remote({ EMBEDDINGS_MODEL: "Qwen/Qwen3-Embedding-0.6B" })).toMatchObject({
      queryPrefix: expect.stringMatching(/\nQuery:$/),
      documentPrefix: "",
    });
    expect(remote({ EMBEDDINGS_MODEL: "nomic-embed-text" })).toMatchObject({
      queryPrefix: "search_query: ",
      documentPrefix: "search_document: ",
    });
    expect(
      remote({
        EMBEDDINGS_MODEL: "nomic-embed-text",
        EMBEDDINGS_QUERY_PREFIX: "",
        EMBEDDINGS_DOCUMENT_PREFIX: "doc: ",
      }),
    ).toMatchObject({ queryPrefix: "", documentPrefix: "doc: " });
  });

  test("a local file named like a family gets its prefixes; EMBEDDINGS_QUERY_PREFIX overrides them", async () => {
    const path = join(work, "nomic-embed-text-v1.5.Q8_0.gguf");
    copyFileSync(getTestModelPath(), path); // a mean-pooled generated model: nomic's pooling
    const config = resolveEmbedConfig({ env: {}, home: work, modelFlag: path });
    if (config.kind !== "local") throw new Error("expected local");
    const embedder = await createLocalEmbedder(config);
    expect(embedder.fingerprint).toMatchObject({ queryPrefix: "search_query: ", documentPrefix: "search_document: " });
    await embedder.dispose();
    const overridden = resolveEmbedConfig({ env: { EMBEDDINGS_QUERY_PREFIX: "q: " }, home: work, modelFlag: path });
    if (overridden.kind !== "local") throw new Error("expected local");
    const second = await createLocalEmbedder(overridden);
    expect(second.fingerprint).toMatchObject({ queryPrefix: "q: ", documentPrefix: "search_document: " });
    await second.dispose();
  });

  test("a GGUF whose pooling is not its family's is refused with a clear error", async () => {
    const path = join(work, "bge-small-en-v1.5-converted.gguf");
    copyFileSync(getTestModelPath(), path); // mean pooling; BGE needs CLS
    const config = resolveEmbedConfig({ env: {}, home: work, modelFlag: path });
    if (config.kind !== "local") throw new Error("expected local");
    await expect(createLocalEmbedder(config)).rejects.toMatchObject({
      code: "EMBED_FAILED",
      message: expect.stringContaining("mean pooling in its GGUF metadata, but bge-en-v1.5 models need cls pooling"),
    });
  });
});
