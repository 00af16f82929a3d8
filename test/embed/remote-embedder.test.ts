import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import {
  createLocalEmbedder,
  createRemoteEmbedder,
  parseRetryAfterMs,
  resolveEmbedConfig,
  type Embedder,
  type RemoteEmbedConfig,
} from "../../src/embed/index.ts";
import { getTestModelPath } from "../helpers/models.ts";
import { startEmbeddingsServer, type EmbeddingsServer } from "./embeddings-server.ts";

const fast = { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 2000, timeoutMs: 5000, batchSize: 2, concurrency: 2 };

let local: Embedder;
let server: EmbeddingsServer;

function remoteConfig(env: Record<string, string> = {}): RemoteEmbedConfig {
  const config = resolveEmbedConfig({
    env: { EMBEDDINGS_URL: server.url, EMBEDDINGS_API_KEY: "sk-test", ...env },
    home: tmpdir(),
  });
  if (config.kind !== "remote") throw new Error("expected remote");
  return config;
}

function dot(a: Float32Array, b: Float32Array): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
}

beforeAll(async () => {
  const config = resolveEmbedConfig({ env: {}, home: tmpdir(), modelFlag: getTestModelPath() });
  if (config.kind !== "local") throw new Error("expected local");
  local = await createLocalEmbedder(config);
  server = startEmbeddingsServer(local);
});
afterAll(async () => {
  server.close();
  await local.dispose();
});
beforeEach(() => {
  server.requests.length = 0;
  server.setPlan(() => "ok");
});

describe("remote embedder against a local /v1/embeddings server", () => {
  test("learns the dims from the first response and sends the bearer key and model", async () => {
    const remote = await createRemoteEmbedder(remoteConfig({ EMBEDDINGS_MODEL: "tiny-model" }), fast);
    expect(remote.dims).toBe(64);
    expect(server.requests[0]!.authorization).toBe("Bearer sk-test");
    expect(server.requests[0]!.model).toBe("tiny-model");
    expect(remote.fingerprint.fileHash).toMatch(/^[0-9a-f]{64}$/);
  });

  test("gives the same vectors and the same ranking as the local backend for the same model", async () => {
    const remote = await createRemoteEmbedder(remoteConfig(), fast);
    const texts = [
      "fix the sqlite migration",
      "git commit and merge the branch",
      "parse the json session file",
      "cache in memory",
    ];
    const [remoteVectors, localVectors] = [await remote.embedDocuments(texts), await local.embedDocuments(texts)];
    for (let i = 0; i < texts.length; i++) {
      for (const [d, value] of remoteVectors[i]!.entries()) expect(value).toBeCloseTo(localVectors[i]![d]!, 5);
    }
    const rank = (query: Float32Array, vectors: (Float32Array | null)[]) =>
      vectors
        .map((vector, i) => ({ i, score: dot(query, vector!) }))
        .sort((a, b) => b.score - a.score)
        .map((hit) => hit.i);
    const [remoteQuery, localQuery] = [
      await remote.embedQuery("sqlite migration"),
      await local.embedQuery("sqlite migration"),
    ];
    expect(rank(remoteQuery, remoteVectors)).toEqual(rank(localQuery, localVectors));
  });

  test("splits documents into batches and keeps the input order", async () => {
    const remote = await createRemoteEmbedder(remoteConfig(), fast);
    server.requests.length = 0;
    const texts = ["a", "b", "c", "d", "e"];
    const vectors = await remote.embedDocuments(texts);
    expect(server.requests.map((r) => r.inputs.length).sort()).toEqual([1, 2, 2]);
    const singles = await Promise.all(texts.map((text) => remote.embedQuery(text)));
    for (const [i, vector] of vectors.entries()) expect(dot(vector!, singles[i]!)).toBeCloseTo(1, 5);
  });

  test("retries a 500 and then succeeds", async () => {
    const remote = await createRemoteEmbedder(remoteConfig(), fast);
    server.requests.length = 0;
    server.setPlan((_, index) => (index === 0 ? { status: 500 } : "ok"));
    const warnings: string[] = [];
    const vectors = await remote.embedDocuments(["x", "y"], { onWarning: (message) => warnings.push(message) });
    expect(vectors.every((vector) => vector !== null)).toBe(true);
    expect(server.requests.length).toBe(2);
    expect(warnings[0]).toContain("http 500");
  });

  test("waits for Retry-After on a 429", async () => {
    const remote = await createRemoteEmbedder(remoteConfig(), { ...fast, baseDelayMs: 1 });
    server.requests.length = 0;
    server.setPlan((_, index) => (index === 0 ? { status: 429, retryAfter: "1" } : "ok"));
    const startMs = performance.now();
    await remote.embedQuery("rate limited");
    expect(performance.now() - startMs).toBeGreaterThanOrEqual(950);
    expect(server.requests.length).toBe(2);
  });

  test("retries a request that outlives the client timeout", async () => {
    // 500 ms leaves room for other processes on a busy 2-core machine; the stalled reply would take 3 s.
    const remote = await createRemoteEmbedder(remoteConfig(), { ...fast, timeoutMs: 500 });
    server.requests.length = 0;
    server.setPlan((_, index) => (index === 0 ? { sleepMs: 3000 } : "ok"));
    const warnings: string[] = [];
    const [vector] = await remote.embedDocuments(["slow"], { onWarning: (message) => warnings.push(message) });
    expect(vector).not.toBeNull();
    expect(warnings[0]).toContain("timed out after 500 ms");
  });

  test("embeds the texts of a batch that always fails one by one", async () => {
    const remote = await createRemoteEmbedder(remoteConfig(), { ...fast, batchSize: 3, maxRetries: 1 });
    server.requests.length = 0;
    server.setPlan((request) => (request.inputs.length > 1 ? { status: 503 } : "ok"));
    const vectors = await remote.embedDocuments(["p", "q", "r"]);
    expect(vectors.every((vector) => vector !== null)).toBe(true);
    expect(server.requests.map((r) => r.inputs.length)).toEqual([3, 3, 1, 1, 1]);
  });

  test("gives null, never a zero vector, for a text that always fails, and reports it", async () => {
    const remote = await createRemoteEmbedder(remoteConfig(), { ...fast, batchSize: 3, maxRetries: 1 });
    server.setPlan((request) => (request.inputs.includes("poison") ? { status: 500 } : "ok"));
    const failed: number[] = [];
    const vectors = await remote.embedDocuments(["good", "poison", "fine"], {
      onTextFailed: (index) => failed.push(index),
    });
    expect(vectors[1]).toBeNull();
    expect(vectors[0]).not.toBeNull();
    expect(vectors[2]).not.toBeNull();
    expect(failed).toEqual([1]);
  });

  test("does not retry a 400 and fails the query with an EmbedError", async () => {
    const remote = await createRemoteEmbedder(remoteConfig(), fast);
    server.requests.length = 0;
    server.setPlan(() => ({ status: 400 }));
    await expect(remote.embedQuery("bad")).rejects.toThrow(/http 400/);
    expect(server.requests.length).toBe(1);
  });

  test("an unreachable endpoint is an EmbedError at creation", async () => {
    const config = { ...remoteConfig(), url: "http://127.0.0.1:9/v1/embeddings" };
    await expect(createRemoteEmbedder(config, { ...fast, maxRetries: 0 })).rejects.toMatchObject({
      code: "ENDPOINT_UNREACHABLE",
    });
  });

  test("estimates tokens conservatively (about 3 bytes per token)", async () => {
    const remote = await createRemoteEmbedder(remoteConfig({ EMBEDDINGS_MAX_TOKENS: "256" }), fast);
    expect(remote.contextTokens).toBe(256);
    expect(remote.countTokens("a".repeat(300))).toBe(102);
  });
});

describe("parseRetryAfterMs", () => {
  test("reads seconds and HTTP dates", () => {
    expect(parseRetryAfterMs("2")).toBe(2000);
    expect(parseRetryAfterMs("Thu, 01 Jan 1970 00:00:10 GMT", 4000)).toBe(6000);
    expect(parseRetryAfterMs(null)).toBeUndefined();
    expect(parseRetryAfterMs("soon")).toBeUndefined();
  });
});
