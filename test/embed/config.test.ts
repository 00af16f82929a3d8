import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  defaultPresetFor,
  describeDefaultModel,
  detectHardware,
  modelPresets,
  normalizeEmbeddingsUrl,
  parseDotEnv,
  presetDownloadUrl,
  resolveEmbedConfig,
} from "../../src/embed/index.ts";

const home = mkdtempSync(join(tmpdir(), "recall-config-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("parseDotEnv", () => {
  test("reads plain, exported, quoted and commented lines", () => {
    const text = [
      "# a comment",
      "A=1",
      'export B="x y" # trailing',
      "C='a#b'",
      "D=v # note",
      'E="line\\nbreak"',
      "not a line",
      "F=",
    ].join("\n");
    expect(parseDotEnv(text)).toEqual({ A: "1", B: "x y", C: "a#b", D: "v", E: "line\nbreak", F: "" });
  });
});

describe("normalizeEmbeddingsUrl", () => {
  test("accepts a base /v1 URL, a full /v1/embeddings URL and a bare host", () => {
    expect(normalizeEmbeddingsUrl("http://h:8080/v1")).toBe("http://h:8080/v1/embeddings");
    expect(normalizeEmbeddingsUrl("http://h:8080/v1/")).toBe("http://h:8080/v1/embeddings");
    expect(normalizeEmbeddingsUrl("https://api.example.com/v1/embeddings")).toBe(
      "https://api.example.com/v1/embeddings",
    );
    expect(normalizeEmbeddingsUrl("http://h:8080")).toBe("http://h:8080/v1/embeddings");
  });

  test("rejects something that is not an http url", () => {
    expect(() => normalizeEmbeddingsUrl("ftp://h/v1")).toThrow(/http or https/);
    expect(() => normalizeEmbeddingsUrl("localhost v1")).toThrow(/not a url/);
  });
});

describe("resolveEmbedConfig", () => {
  test("defaults by hardware: bge-small-en-v1.5 on this CPU-only machine, pinned, under RECALL_HOME/models", () => {
    expect(detectHardware().gpu).toBeUndefined(); // no GPU here (the machine these tests run on)
    const config = resolveEmbedConfig({ env: {}, home });
    expect(config.kind).toBe("local");
    if (config.kind !== "local") return;
    expect(config.name).toBe("bge-small-en-v1.5");
    expect(config.modelPath).toBe(join(home, "models", "bge-small-en-v1.5-q8_0.gguf"));
    expect(config.downloadUrl).toBe(
      "https://huggingface.co/CompendiumLabs/bge-small-en-v1.5-gguf/resolve/d32f8c040ea3b516330eeb75b72bcc2d3a780ab7/bge-small-en-v1.5-q8_0.gguf",
    );
    expect(describeDefaultModel()).toEqual({ name: "bge-small-en-v1.5", reason: expect.stringContaining("no GPU") });
  });

  test("with a GPU the default is qwen3-embedding-0.6b, pinned, its query prompt as the model's own config writes it", () => {
    expect(detectHardware("darwin", "arm64")).toEqual({ gpu: "metal", reason: "Apple silicon (Metal)" });
    expect(defaultPresetFor(true).name).toBe("qwen3-embedding-0.6b");
    const preset = modelPresets["qwen3-embedding-0.6b"]!;
    expect(presetDownloadUrl(preset, undefined)).toBe(
      "https://huggingface.co/Qwen/Qwen3-Embedding-0.6B-GGUF/resolve/370f27d7550e0def9b39c1f16d3fbaa13aa67728/Qwen3-Embedding-0.6B-Q8_0.gguf",
    );
    expect(preset.queryPrefix).toStartWith("Instruct: Given a search query");
    expect(preset.queryPrefix).toEndWith("\nQuery:"); // "Query:" then the query, no space (config_sentence_transformers.json)
    expect(preset.documentPrefix).toBe("");
    expect(preset.sha256).toBe("06507c7b42688469c4e7298b0a1e16deff06caf291cf0a5b278c308249c3e439");
  });

  test("the --model flag beats RECALL_MODEL, and RECALL_MODEL_BASE_URL replaces the host", () => {
    const env = { RECALL_MODEL: "nomic-embed-text-v1.5", RECALL_MODEL_BASE_URL: "http://127.0.0.1:1/" };
    const config = resolveEmbedConfig({ env, home, modelFlag: "BGE-small-en-v1.5" });
    expect(config.kind === "local" && config.name).toBe("bge-small-en-v1.5");
    expect(config.kind === "local" && config.downloadUrl).toStartWith("http://127.0.0.1:1/CompendiumLabs/");
  });

  test("a path to a .gguf file is a custom local model without a download url", () => {
    const config = resolveEmbedConfig({ env: {}, home, modelFlag: "models/my-model.gguf", cwd: "/data" });
    expect(config).toMatchObject({
      kind: "local",
      name: "my-model",
      modelPath: "/data/models/my-model.gguf",
      downloadUrl: undefined,
    });
  });

  test("an unknown model name is a usage error that lists the presets", () => {
    expect(() => resolveEmbedConfig({ env: {}, home, modelFlag: "gpt-embed" })).toThrow(/unknown model: gpt-embed/);
    try {
      resolveEmbedConfig({ env: {}, home, modelFlag: "gpt-embed" });
    } catch (error) {
      expect((error as { exitCode: number }).exitCode).toBe(2);
      expect((error as { hint: string }).hint).toContain(Object.keys(modelPresets)[0]!);
    }
  });

  test("EMBEDDINGS_URL selects the remote backend with its key, model and token budget", () => {
    const env = {
      EMBEDDINGS_URL: "http://10.0.0.2:8080/v1",
      EMBEDDINGS_API_KEY: "k",
      EMBEDDINGS_MODEL: "nomic-embed-text-v1.5",
      EMBEDDINGS_MAX_TOKENS: "2048",
    };
    expect(resolveEmbedConfig({ env, home })).toEqual({
      kind: "remote",
      url: "http://10.0.0.2:8080/v1/embeddings",
      apiKey: "k",
      model: "nomic-embed-text-v1.5",
      maxTokens: 2048,
      queryPrefix: "search_query: ",
      documentPrefix: "search_document: ",
    });
  });

  test("settings come from RECALL_HOME/.env, and the environment wins over the file", () => {
    const dotEnvHome = mkdtempSync(join(home, "dotenv-"));
    writeFileSync(
      join(dotEnvHome, ".env"),
      "EMBEDDINGS_URL=http://file-host/v1\nEMBEDDINGS_MODEL='from-file'\nEMBEDDINGS_API_KEY=file-key\n",
    );
    const config = resolveEmbedConfig({ env: { EMBEDDINGS_MODEL: "from-env" }, home: dotEnvHome });
    expect(config).toMatchObject({
      kind: "remote",
      url: "http://file-host/v1/embeddings",
      model: "from-env",
      apiKey: "file-key",
    });
  });

  test("RECALL_OFFLINE=1 refuses a remote endpoint and marks local configs offline", () => {
    expect(() => resolveEmbedConfig({ env: { EMBEDDINGS_URL: "http://h/v1", RECALL_OFFLINE: "1" }, home })).toThrow(
      /RECALL_OFFLINE=1/,
    );
    expect(resolveEmbedConfig({ env: { RECALL_OFFLINE: "1" }, home })).toMatchObject({ kind: "local", offline: true });
  });

  test("RECALL_OFFLINE=1 allows an endpoint on this machine's loopback: it downloads nothing", () => {
    for (const url of [
      "http://127.0.0.1:8080/v1",
      "http://localhost:11434",
      "http://[::1]:9000/v1",
      "http://127.8.0.1/",
    ])
      expect(resolveEmbedConfig({ env: { EMBEDDINGS_URL: url, RECALL_OFFLINE: "1" }, home }).kind).toBe("remote");
    for (const url of ["http://10.0.0.2/v1", "http://127.0.0.1.example.com/v1", "http://localhost.evil.test/v1"])
      expect(() => resolveEmbedConfig({ env: { EMBEDDINGS_URL: url, RECALL_OFFLINE: "1" }, home })).toThrow(
        /RECALL_OFFLINE=1/,
      );
  });

  test("a remote model's window comes from its family unless EMBEDDINGS_MAX_TOKENS states it", () => {
    const use = { EMBEDDINGS_URL: "http://h/v1", EMBEDDINGS_MODEL: "universal-sentence-encoder-lite" };
    expect(resolveEmbedConfig({ env: use, home })).toMatchObject({ maxTokens: 128, bytesPerToken: 2.2 });
    expect(resolveEmbedConfig({ env: { ...use, EMBEDDINGS_MAX_TOKENS: "100" }, home })).toMatchObject({
      maxTokens: 100,
    });
    expect(
      resolveEmbedConfig({ env: { EMBEDDINGS_URL: "http://h/v1", EMBEDDINGS_MODEL: "mystery" }, home }),
    ).toMatchObject({
      maxTokens: 512,
    });
  });

  test("an explicit model means local even when EMBEDDINGS_URL is set", () => {
    expect(
      resolveEmbedConfig({ env: { EMBEDDINGS_URL: "http://h/v1" }, home, modelFlag: "all-MiniLM-L6-v2" }).kind,
    ).toBe("local");
  });
});
