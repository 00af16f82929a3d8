import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  downloadFile,
  ensureModel,
  listModels,
  modelPresets,
  openEmbedder,
  pullModel,
  resolveEmbedConfig,
  type LocalEmbedConfig,
} from "../../src/embed/index.ts";
import { getTestModelPath } from "../helpers/models.ts";

/**
 * A static file server (node:http, for raw control of the socket) with HTTP Range support that can close the
 * connection halfway through one response, after sending Content-Length for the whole body.
 */
async function startFileServer(body: Uint8Array) {
  const requests: { path: string; range: string | null }[] = [];
  let dropNextAtBytes: number | undefined;
  const server = createServer((request, response) => {
    const path = request.url ?? "/";
    const range = request.headers.range ?? null;
    requests.push({ path, range });
    if (path.endsWith("/missing.gguf")) return void response.writeHead(404).end("not found");
    const start = range ? Number(/bytes=(\d+)-/.exec(range)![1]) : 0;
    const slice = body.subarray(start);
    const headers: Record<string, string> = { "content-length": String(slice.length), "accept-ranges": "bytes" };
    if (range) headers["content-range"] = `bytes ${start}-${body.length - 1}/${body.length}`;
    response.writeHead(range ? 206 : 200, headers);
    const dropAt = dropNextAtBytes;
    dropNextAtBytes = undefined;
    if (dropAt === undefined) return void response.end(slice);
    response.write(slice.subarray(0, dropAt), () => setTimeout(() => response.socket?.destroy(), 20));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    dropNextResponseAt(bytes: number) {
      dropNextAtBytes = bytes;
    },
    close() {
      server.closeAllConnections();
      server.close();
    },
  };
}

const modelBytes = readFileSync(getTestModelPath());
let server: Awaited<ReturnType<typeof startFileServer>>;
let home: string;

beforeAll(async () => {
  server = await startFileServer(modelBytes);
  home = mkdtempSync(join(tmpdir(), "recall-models-"));
});
afterAll(() => {
  server.close();
  rmSync(home, { recursive: true, force: true });
});

function presetConfig(name: string, env: Record<string, string> = {}): LocalEmbedConfig {
  const config = resolveEmbedConfig({ env: { RECALL_MODEL_BASE_URL: server.baseUrl, ...env }, home, modelFlag: name });
  if (config.kind !== "local") throw new Error("expected local");
  return config;
}

describe("model download", () => {
  test("pulls a preset from RECALL_MODEL_BASE_URL into RECALL_HOME/models with progress", async () => {
    server.requests.length = 0;
    const progress: [number, number | undefined][] = [];
    const path = await pullModel({
      home,
      env: { RECALL_MODEL_BASE_URL: server.baseUrl },
      name: "embeddinggemma-300m",
      onProgress: (done, total) => progress.push([done, total]),
    });
    expect(path).toBe(join(home, "models", modelPresets["embeddinggemma-300m"]!.fileName));
    expect(readFileSync(path).equals(modelBytes)).toBe(true);
    expect(server.requests[0]!.path).toBe(
      "/ggml-org/embeddinggemma-300M-GGUF/resolve/main/embeddinggemma-300M-Q8_0.gguf",
    );
    expect(progress.at(-1)).toEqual([modelBytes.length, modelBytes.length]);
  });

  test("a pinned preset whose download is not the pinned file is deleted, with a clear error (issue 12)", async () => {
    server.requests.length = 0;
    const pinned = modelPresets["bge-small-en-v1.5"]!;
    expect(pinned.sha256).toMatch(/^[0-9a-f]{64}$/);
    await expect(
      pullModel({ home, env: { RECALL_MODEL_BASE_URL: server.baseUrl }, name: "bge-small-en-v1.5" }),
    ).rejects.toMatchObject({
      code: "MODEL_DOWNLOAD",
      message: expect.stringContaining("is not the pinned file"),
    });
    // Fetched by its pinned revision, and nothing kept.
    expect(server.requests[0]!.path).toBe(
      `/CompendiumLabs/bge-small-en-v1.5-gguf/resolve/${pinned.revision}/bge-small-en-v1.5-q8_0.gguf`,
    );
    expect(existsSync(join(home, "models", pinned.fileName))).toBe(false);
    expect(existsSync(join(home, "models", `${pinned.fileName}.part`))).toBe(false);
  });

  test("a download with the expected sha256 is kept", async () => {
    const target = join(home, "verified", "model.gguf");
    const sha256 = new Bun.CryptoHasher("sha256").update(modelBytes).digest("hex");
    await downloadFile(`${server.baseUrl}/model.gguf`, target, { expectedSha256: sha256 });
    expect(readFileSync(target).equals(modelBytes)).toBe(true);
  });

  test("a present model costs no request", async () => {
    server.requests.length = 0;
    await pullModel({ home, env: { RECALL_MODEL_BASE_URL: server.baseUrl }, name: "embeddinggemma-300m" });
    expect(server.requests).toHaveLength(0);
  });

  test("resumes with a Range request after the connection drops mid-file", async () => {
    server.requests.length = 0;
    server.dropNextResponseAt(100_000);
    const target = join(home, "resume", "model.gguf");
    await downloadFile(`${server.baseUrl}/model.gguf`, target);
    expect(server.requests.map((r) => r.range)).toEqual([null, "bytes=100000-"]);
    expect(readFileSync(target).equals(modelBytes)).toBe(true);
    expect(existsSync(`${target}.part`)).toBe(false);
  });

  test("resumes a .part file left by an earlier run", async () => {
    server.requests.length = 0;
    const target = join(home, "leftover", "model.gguf");
    mkdirSync(join(home, "leftover"), { recursive: true });
    writeFileSync(`${target}.part`, modelBytes.subarray(0, 4096));
    await downloadFile(`${server.baseUrl}/model.gguf`, target);
    expect(server.requests.map((r) => r.range)).toEqual(["bytes=4096-"]);
    expect(readFileSync(target).equals(modelBytes)).toBe(true);
  });

  test("RECALL_OFFLINE=1 makes no request at all and says how to get the model", async () => {
    server.requests.length = 0;
    const config = presetConfig("nomic-embed-text-v1.5", { RECALL_OFFLINE: "1" });
    const error = await ensureModel(config).catch((caught: unknown) => caught);
    expect(error).toMatchObject({
      code: "MODEL_MISSING",
      hint: "run `recall model pull nomic-embed-text-v1.5` while online",
    });
    await expect(
      openEmbedder({
        env: { RECALL_OFFLINE: "1", RECALL_MODEL_BASE_URL: server.baseUrl },
        home,
        modelFlag: "all-minilm-l6-v2",
      }),
    ).rejects.toMatchObject({ code: "MODEL_MISSING" });
    expect(server.requests).toHaveLength(0);
  });

  test("an HTTP error is a one-line MODEL_DOWNLOAD error and leaves no model file", async () => {
    const target = join(home, "err", "missing.gguf");
    const error = await downloadFile(`${server.baseUrl}/missing.gguf`, target).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "MODEL_DOWNLOAD" });
    expect((error as Error).message).not.toContain("\n");
    expect(existsSync(target)).toBe(false);
  });

  test("a host that cannot be reached points to EMBEDDINGS_URL and --model, not to pulling again (issue 38, item 21)", async () => {
    // Port 1 on the loopback refuses at once, as a name that does not resolve fails: no attempt reaches a server.
    const target = join(home, "unreachable", "model.gguf");
    const error = await downloadFile("http://127.0.0.1:1/model.gguf", target).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: "MODEL_DOWNLOAD" });
    expect((error as Error).message).toStartWith(
      "cannot reach 127.0.0.1:1 to download http://127.0.0.1:1/model.gguf: ",
    );
    expect((error as Error).message).not.toContain("\n");
    const hint = (error as { hint: string }).hint;
    expect(hint).toContain("EMBEDDINGS_URL");
    expect(hint).toContain("--model /path/model.gguf");
    expect(hint).not.toContain("again");
    expect(existsSync(target)).toBe(false);
  });

  test("a custom model path that does not exist is MODEL_MISSING without any request", async () => {
    server.requests.length = 0;
    const config = resolveEmbedConfig({ env: {}, home, modelFlag: join(home, "nope.gguf") });
    await expect(ensureModel(config as LocalEmbedConfig)).rejects.toMatchObject({ code: "MODEL_MISSING" });
    expect(server.requests).toHaveLength(0);
  });
});

describe("listModels", () => {
  test("lists downloaded files with size, dims and pooling from the GGUF header, skipping partial files", () => {
    writeFileSync(join(home, "models", "half.gguf.part"), "x");
    const entries = listModels(home);
    expect(entries.map((entry) => entry.fileName)).toEqual(["embeddinggemma-300M-Q8_0.gguf"]);
    expect(entries[0]).toMatchObject({
      presetName: "embeddinggemma-300m",
      sizeBytes: statSync(getTestModelPath()).size,
    });
    expect(entries[0]!.info).toMatchObject({ architecture: "bert", dims: 64, pooling: "mean", contextTokens: 512 });
  });

  test("an unreadable file is listed with an error instead of throwing", () => {
    writeFileSync(join(home, "models", "broken.gguf"), "not a model");
    const broken = listModels(home).find((entry) => entry.fileName === "broken.gguf");
    expect(broken?.info).toBeUndefined();
    expect(broken?.error).toContain("broken.gguf");
    rmSync(join(home, "models", "broken.gguf"));
  });

  test("a home without models gives an empty list", () => {
    expect(listModels(join(home, "nothing-here"))).toEqual([]);
  });
});

describe("openEmbedder", () => {
  test("downloads a missing preset and embeds with it", async () => {
    const freshHome = mkdtempSync(join(tmpdir(), "recall-open-"));
    try {
      const embedder = await openEmbedder({
        env: { RECALL_MODEL_BASE_URL: server.baseUrl },
        home: freshHome,
        modelFlag: "all-minilm-l6-v2",
      });
      expect(embedder.fingerprint.name).toBe("all-minilm-l6-v2");
      // all-MiniLM-L6-v2 takes at most 256 word pieces (its max_seq_length): chunks are cut to fit (issue 12).
      expect(embedder.contextTokens).toBe(256);
      expect((await embedder.embedQuery("hello")).length).toBe(64);
      await embedder.dispose();
    } finally {
      rmSync(freshHome, { recursive: true, force: true });
    }
  });
});
