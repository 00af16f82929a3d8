import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { modelPresets, normalizeEmbeddingsUrl, parseDotEnv, resolveEmbedConfig } from "../../src/embed/index.ts";

const home = mkdtempSync(join(tmpdir(), "recall-config-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("parseDotEnv", () => {
  test("reads plain, exported, quoted and commented lines", () => {
    const text = [
      "# a comment", "A=1", "export B=\"x y\" # trailing", "C='a#b'", "D=v # note", "E=\"line\\nbreak\"", "not a line", "F=",
    ].join("\n");
    expect(parseDotEnv(text)).toEqual({ A: "1", B: "x y", C: "a#b", D: "v", E: "line\nbreak", F: "" });
  });
});

describe("normalizeEmbeddingsUrl", () => {
  test("accepts a base /v1 URL, a full /v1/embeddings URL and a bare host", () => {
    expect(normalizeEmbeddingsUrl("http://h:8080/v1")).toBe("http://h:8080/v1/embeddings");
    expect(normalizeEmbeddingsUrl("http://h:8080/v1/")).toBe("http://h:8080/v1/embeddings");
    expect(normalizeEmbeddingsUrl("https://api.example.com/v1/embeddings")).toBe("https://api.example.com/v1/embeddings");
    expect(normalizeEmbeddingsUrl("http://h:8080")).toBe("http://h:8080/v1/embeddings");
  });

  test("rejects something that is not an http url", () => {
    expect(() => normalizeEmbeddingsUrl("ftp://h/v1")).toThrow(/http or https/);
    expect(() => normalizeEmbeddingsUrl("localhost v1")).toThrow(/not a url/);
  });
});

describe("resolveEmbedConfig", () => {
  test("defaults to the qwen3 preset under RECALL_HOME/models", () => {
    const config = resolveEmbedConfig({ env: {}, home });
    expect(config.kind).toBe("local");
    if (config.kind !== "local") return;
    expect(config.name).toBe("qwen3-embedding-0.6b");
    expect(config.modelPath).toBe(join(home, "models", "Qwen3-Embedding-0.6B-Q8_0.gguf"));
    expect(config.downloadUrl).toBe("https://huggingface.co/Qwen/Qwen3-Embedding-0.6B-GGUF/resolve/main/Qwen3-Embedding-0.6B-Q8_0.gguf");
    expect(config.preset?.dims).toBe(1024);
    expect(config.preset?.queryPrefix).toStartWith("Instruct: Given a search query");
    expect(config.preset?.documentPrefix).toBe("");
  });

  test("the --model flag beats RECALL_MODEL, and RECALL_MODEL_BASE_URL replaces the host", () => {
    const env = { RECALL_MODEL: "nomic-embed-text-v1.5", RECALL_MODEL_BASE_URL: "http://127.0.0.1:1/" };
    const config = resolveEmbedConfig({ env, home, modelFlag: "BGE-small-en-v1.5" });
    expect(config.kind === "local" && config.name).toBe("bge-small-en-v1.5");
    expect(config.kind === "local" && config.downloadUrl).toStartWith("http://127.0.0.1:1/CompendiumLabs/");
  });

  test("a path to a .gguf file is a custom local model without a download url", () => {
    const config = resolveEmbedConfig({ env: {}, home, modelFlag: "models/my-model.gguf", cwd: "/data" });
    expect(config).toMatchObject({ kind: "local", name: "my-model", modelPath: "/data/models/my-model.gguf", downloadUrl: undefined });
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
    const env = { EMBEDDINGS_URL: "http://10.0.0.2:8080/v1", EMBEDDINGS_API_KEY: "k", EMBEDDINGS_MODEL: "nomic-embed-text-v1.5", EMBEDDINGS_MAX_TOKENS: "2048" };
    expect(resolveEmbedConfig({ env, home })).toEqual({
      kind: "remote", url: "http://10.0.0.2:8080/v1/embeddings", apiKey: "k", model: "nomic-embed-text-v1.5", maxTokens: 2048,
      queryPrefix: "search_query: ", documentPrefix: "search_document: ",
    });
  });

  test("settings come from RECALL_HOME/.env, and the environment wins over the file", () => {
    const dotEnvHome = mkdtempSync(join(home, "dotenv-"));
    writeFileSync(join(dotEnvHome, ".env"), "EMBEDDINGS_URL=http://file-host/v1\nEMBEDDINGS_MODEL='from-file'\nEMBEDDINGS_API_KEY=file-key\n");
    const config = resolveEmbedConfig({ env: { EMBEDDINGS_MODEL: "from-env" }, home: dotEnvHome });
    expect(config).toMatchObject({ kind: "remote", url: "http://file-host/v1/embeddings", model: "from-env", apiKey: "file-key" });
  });

  test("RECALL_OFFLINE=1 refuses a remote endpoint and marks local configs offline", () => {
    expect(() => resolveEmbedConfig({ env: { EMBEDDINGS_URL: "http://h/v1", RECALL_OFFLINE: "1" }, home })).toThrow(/RECALL_OFFLINE=1/);
    expect(resolveEmbedConfig({ env: { RECALL_OFFLINE: "1" }, home })).toMatchObject({ kind: "local", offline: true });
  });

  test("an explicit model means local even when EMBEDDINGS_URL is set", () => {
    expect(resolveEmbedConfig({ env: { EMBEDDINGS_URL: "http://h/v1" }, home, modelFlag: "all-MiniLM-L6-v2" }).kind).toBe("local");
  });
});
