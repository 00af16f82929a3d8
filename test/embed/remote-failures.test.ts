/**
 * Issue 12: the remote embedder against a real local `/v1/embeddings` server (embeddings-server.ts, embedding with a
 * generated model) that answers as llama-server does when an input is too large, when the key is wrong, when it is
 * slow, and when it goes away. Request counts are asserted: a too-large text is split and never sent whole again, a
 * learned limit pre-splits later texts, a refused key is never retried, and the circuit breaker stops a dead endpoint
 * within its bound.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { tmpdir } from "node:os";
import {
  createLocalEmbedder,
  createRemoteEmbedder,
  resolveEmbedConfig,
  type Embedder,
  type RemoteEmbedConfig,
} from "../../src/embed/index.ts";
import { remoteOptionsFromEnv } from "../../src/embed/remote-options.ts";
import { classifyHttpFailure } from "../../src/embed/remote-failures.ts";
import { splitForServer } from "../../src/embed/remote-embedder.ts";
import { getTestModelPath } from "../helpers/models.ts";
import { llamaServerTooLarge, startEmbeddingsServer, type EmbeddingsServer } from "./embeddings-server.ts";

const fast = { maxRetries: 3, baseDelayMs: 5, maxDelayMs: 200, batchSize: 4, concurrency: 2, minTimeoutMs: 5000 };
let local: Embedder;
let server: EmbeddingsServer;

function remoteConfig(url = server.url): RemoteEmbedConfig {
  const config = resolveEmbedConfig({ env: { EMBEDDINGS_URL: url, EMBEDDINGS_API_KEY: "sk-test" }, home: tmpdir() });
  if (config.kind !== "remote") throw new Error("expected remote");
  return config;
}

const paragraph = (seed: number) =>
  Array.from({ length: 12 }, (_, i) => `Sentence ${seed}.${i} talks about the walrus parser and its cache.`).join(" ");
const long = [paragraph(1), paragraph(2), paragraph(3), paragraph(4)].join("\n\n"); // ~2.3 KB
const tooLargeAbove = 1000; // bytes: the stand-in server's "physical batch"

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

describe("remote failures classified (issue 12)", () => {
  test("llama-server's too-large answer: the text is split, embedded by parts, and never sent whole again; later texts far over the window are split before sending", async () => {
    const remote = await createRemoteEmbedder(remoteConfig(), fast);
    server.requests.length = 0;
    // A consistent stand-in: 2 bytes per token, a 500-token batch; it names the longest input's tokens.
    server.setPlan((request) => {
      const longest = Math.max(...request.inputs.map((input) => Buffer.byteLength(input)));
      return longest > tooLargeAbove ? llamaServerTooLarge(Math.ceil(longest / 2), tooLargeAbove / 2) : "ok";
    });
    const warnings: string[] = [];
    const rejected: number[] = [];
    const vectors = await remote.embedDocuments(["short one", long, "short two"], {
      onWarning: (line) => warnings.push(line),
      onTextRejected: (i) => rejected.push(i),
    });
    expect(vectors.every((vector) => vector !== null)).toBe(true);
    expect(rejected).toEqual([]);
    const wholeSends = server.requests.filter((request) => request.inputs.includes(long)).length;
    expect(wholeSends).toBe(1); // once, inside the first batch; then the size is learned and it is split before sending
    // The vector of the long text is the mean of its parts: close to each part's direction, unit length.
    let norm = 0;
    for (const value of vectors[1]!) norm += value * value;
    expect(Math.abs(norm - 1)).toBeLessThan(1e-5);
    expect(warnings.filter((line) => line.includes("too large")).length).toBe(1);

    // The limit is learned: a second text far over the window (2.3 KB against 500 tokens × 4 bytes) is never sent
    // whole, nor are parts over the server's limit.
    server.requests.length = 0;
    const other = long.replaceAll("walrus", "narwhal");
    const [vector] = await remote.embedDocuments([other]);
    expect(vector).not.toBeNull();
    expect(server.requests.some((request) => request.inputs.includes(other))).toBe(false);
    expect(
      server.requests.every((request) =>
        request.inputs.every((input) => Buffer.byteLength(input) <= 2 * tooLargeAbove),
      ),
    ).toBe(true);
  });

  test("a text still too large when split to the minimum is rejected for good, not failed", async () => {
    const remote = await createRemoteEmbedder(remoteConfig(), fast);
    server.setPlan((request) =>
      request.inputs.some((input) => input.includes("zzz")) ? llamaServerTooLarge(9000) : "ok",
    );
    const rejected: number[] = [];
    const failed: number[] = [];
    const vectors = await remote.embedDocuments(["fine", "zzz".repeat(200)], {
      onTextRejected: (i) => rejected.push(i),
      onTextFailed: (i) => failed.push(i),
    });
    expect(vectors[0]).not.toBeNull();
    expect(vectors[1]).toBeNull();
    expect(rejected).toEqual([1]);
    expect(failed).toEqual([]);
  });

  test("a refused key (401) is ENDPOINT_AUTH at creation and mid-run, with no retry", async () => {
    server.setPlan(() => ({
      status: 401,
      body: { error: { code: 401, message: "Invalid API Key", type: "authentication_error" } },
    }));
    await expect(createRemoteEmbedder(remoteConfig(), fast)).rejects.toMatchObject({ code: "ENDPOINT_AUTH" });
    expect(server.requests.length).toBe(1);
    server.setPlan(() => "ok");
    const remote = await createRemoteEmbedder(remoteConfig(), fast);
    server.requests.length = 0;
    server.setPlan(() => ({ status: 403 }));
    await expect(remote.embedDocuments(["a", "b", "c"])).rejects.toMatchObject({ code: "ENDPOINT_AUTH" });
    expect(server.requests.length).toBeLessThanOrEqual(2); // one request per worker, none retried
  });

  test("an endpoint that goes away mid-run opens the circuit breaker within seconds and sends nothing more", async () => {
    const second = startEmbeddingsServer(local);
    const remote = await createRemoteEmbedder(remoteConfig(second.url), { ...fast, baseDelayMs: 100 });
    second.close(); // connection refused from now on
    const started = performance.now();
    const texts = Array.from({ length: 200 }, (_, i) => `text ${i}`);
    await expect(remote.embedDocuments(texts)).rejects.toMatchObject({ code: "ENDPOINT_UNREACHABLE" });
    expect(performance.now() - started).toBeLessThan(5000);
  });

  test("a slow but healthy server is waited for (adaptive timeout), and several requests are in flight", async () => {
    const remote = await createRemoteEmbedder(remoteConfig(), {
      ...fast,
      minTimeoutMs: 300,
      concurrency: 3,
      batchSize: 2,
    });
    server.requests.length = 0;
    // Each request takes 600 ms: twice the timeout floor, the speed of a loaded CPU-class server.
    server.setPlan(() => ({ sleepMs: 600 }));
    const warnings: string[] = [];
    const vectors = await remote.embedDocuments(
      Array.from({ length: 12 }, (_, i) => `slow text ${i}`),
      { onWarning: (line) => warnings.push(line) },
    );
    expect(vectors.every((vector) => vector !== null)).toBe(true);
    expect(server.maxInFlight).toBeGreaterThanOrEqual(2);
    expect(remote.parallelTexts).toBe(6);
    // At most the first wave (sent before the speed was known) timed out: 6 batches, plus at most 2 waves of 3 retries.
    expect(server.requests.length).toBeLessThanOrEqual(12);
    // The first wave's timeout is the 300 ms floor or, when the key check at creation was slow, the speed it measured:
    // a whole number of ms, never below the floor.
    const timeouts = warnings
      .map((line) => /timed out after (\S+) ms/.exec(line)?.[1])
      .filter((ms) => ms !== undefined);
    for (const ms of timeouts) {
      expect(ms).toMatch(/^\d+$/);
      expect(Number(ms)).toBeGreaterThanOrEqual(300);
    }
  });
});

describe("remote helpers", () => {
  test("classifies the servers' error bodies", () => {
    const llama = classifyHttpFailure(
      500,
      '{"error":{"code":500,"message":"input (666 tokens) is too large to process. increase the physical batch size (current batch size: 512)"}}',
      undefined,
    );
    expect(llama.kind).toBe("too-large");
    expect(llama.sizes).toEqual({ inputTokens: 666, limitTokens: 512 });
    expect(
      classifyHttpFailure(
        400,
        "This model's maximum context length is 8192 tokens, however you requested 9000 tokens",
        undefined,
      ).sizes,
    ).toEqual({ inputTokens: 9000, limitTokens: 8192 });
    expect(classifyHttpFailure(500, "planned failure", undefined).kind).toBe("retryable");
    expect(classifyHttpFailure(401, "", undefined).kind).toBe("auth");
    expect(classifyHttpFailure(404, "not found", undefined).kind).toBe("permanent");
  });

  test("splits at blank lines first, then sentences, then in the middle", () => {
    expect(splitForServer("a a a\n\nb b b\n\nc c c\n\nd d d")).toEqual(["a a a\n\nb b b", "c c c\n\nd d d"]);
    expect(splitForServer("One. Two. Three. Four.")).toEqual(["One. Two.", "Three. Four."]);
    expect(splitForServer("x".repeat(10))).toEqual(["xxxxx", "xxxxx"]);
  });

  test("EMBEDDINGS_BATCH, EMBEDDINGS_CONCURRENCY and EMBEDDINGS_TIMEOUT_MS override, and bad values are usage errors", () => {
    expect(
      remoteOptionsFromEnv({ EMBEDDINGS_BATCH: "8", EMBEDDINGS_CONCURRENCY: "1", EMBEDDINGS_TIMEOUT_MS: "120000" }),
    ).toEqual({ batchSize: 8, concurrency: 1, timeoutMs: 120000 });
    expect(remoteOptionsFromEnv({})).toEqual({});
    expect(() => remoteOptionsFromEnv({ EMBEDDINGS_BATCH: "0" })).toThrow(/EMBEDDINGS_BATCH must be a whole number/);
    expect(() => remoteOptionsFromEnv({ EMBEDDINGS_TIMEOUT_MS: "soon" })).toThrow(/EMBEDDINGS_TIMEOUT_MS/);
  });
});
