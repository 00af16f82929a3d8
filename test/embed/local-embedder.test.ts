import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  createLocalEmbedder,
  resolveEmbedConfig,
  type Embedder,
  type LocalEmbedConfig,
} from "../../src/embed/index.ts";
import { getTestModelPath } from "../helpers/models.ts";

function norm(vector: Float32Array): number {
  return Math.sqrt(vector.reduce((sum, x) => sum + x * x, 0));
}

function localConfig(modelPath: string, prefixes?: { queryPrefix: string; documentPrefix: string }): LocalEmbedConfig {
  const config = resolveEmbedConfig({ env: {}, home: tmpdir(), modelFlag: modelPath });
  if (config.kind !== "local") throw new Error("expected local");
  if (!prefixes) return config;
  const preset = {
    name: "tiny",
    repo: "x/y",
    fileName: "t.gguf",
    dims: 64,
    pooling: "mean" as const,
    approxSizeBytes: 0,
    ...prefixes,
  };
  return { ...config, preset };
}

describe("local embedder with the tiny generated model", () => {
  let embedder: Embedder;
  beforeAll(async () => {
    embedder = await createLocalEmbedder(localConfig(getTestModelPath()));
  });
  afterAll(() => embedder.dispose());

  test("reports the model's dims, pooling and a context below the training context", () => {
    expect(embedder.dims).toBe(64);
    expect(embedder.fingerprint.pooling).toBe("mean");
    expect(embedder.contextTokens).toBe(511);
    expect(embedder.fingerprint.fileHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.parse(embedder.fingerprintKey).dims).toBe(64);
  });

  test("identical texts give identical vectors, across calls and within one batch", async () => {
    const [a, b, c] = await embedder.embedDocuments([
      "fix the sqlite migration",
      "fix the sqlite migration",
      "build the index",
    ]);
    const again = (await embedder.embedDocuments(["fix the sqlite migration"]))[0];
    expect(Array.from(a!)).toEqual(Array.from(b!));
    expect(Array.from(a!)).toEqual(Array.from(again!));
    expect(Array.from(a!)).not.toEqual(Array.from(c!));
  });

  test("document and query vectors are L2-normalized", async () => {
    const vectors = await embedder.embedDocuments(["one", "a longer text about vector search and embeddings", "x"]);
    for (const vector of vectors) expect(norm(vector!)).toBeCloseTo(1, 5);
    expect(norm(await embedder.embedQuery("where is the parser"))).toBeCloseTo(1, 5);
  });

  test("countTokens grows with the text and includes the special tokens", () => {
    const short = embedder.countTokens("fix");
    expect(short).toBeGreaterThanOrEqual(3);
    expect(embedder.countTokens("fix the sqlite migration in the index")).toBeGreaterThan(short);
  });

  test("a text longer than the context is truncated rather than failing", async () => {
    const longText = "search the code ".repeat(400);
    expect(embedder.countTokens(longText)).toBeGreaterThan(embedder.contextTokens);
    const [vector] = await embedder.embedDocuments([longText]);
    expect(norm(vector!)).toBeCloseTo(1, 5);
  });

  test("reports progress once per text", async () => {
    const seen: number[] = [];
    await embedder.embedDocuments(["a", "b", "c"], { onProgress: (done) => seen.push(done) });
    expect(seen).toEqual([1, 2, 3]);
  });
});

describe("prefixes", () => {
  test("a query vector differs from the document vector of the same text when the prefixes differ", async () => {
    const embedder = await createLocalEmbedder(
      localConfig(getTestModelPath(), { queryPrefix: "search query: ", documentPrefix: "" }),
    );
    try {
      const [document] = await embedder.embedDocuments(["git commit"]);
      const query = await embedder.embedQuery("git commit");
      expect(Array.from(query)).not.toEqual(Array.from(document!));
      expect(embedder.fingerprint.queryPrefix).toBe("search query: ");
    } finally {
      await embedder.dispose();
    }
  });

  test("without prefixes the query and document vectors of a text are equal", async () => {
    const embedder = await createLocalEmbedder(localConfig(getTestModelPath()));
    try {
      const [document] = await embedder.embedDocuments(["git commit"]);
      expect(Array.from(await embedder.embedQuery("git commit"))).toEqual(Array.from(document!));
    } finally {
      await embedder.dispose();
    }
  });
});

describe("model variants", () => {
  test("cls pooling and q8_0 weights load and are read from the file", async () => {
    const embedder = await createLocalEmbedder(localConfig(getTestModelPath({ pooling: "cls", type: "q8_0" })));
    try {
      expect(embedder.fingerprint.pooling).toBe("cls");
      expect(norm(await embedder.embedQuery("hello"))).toBeCloseTo(1, 5);
    } finally {
      await embedder.dispose();
    }
  });

  test("the file hash follows the content, not the path", async () => {
    const dir = mkdtempSync(join(tmpdir(), "recall-embed-"));
    try {
      const copy = join(dir, "copy.gguf");
      copyFileSync(getTestModelPath(), copy);
      const [first, second] = [
        await createLocalEmbedder(localConfig(getTestModelPath())),
        await createLocalEmbedder(localConfig(copy)),
      ];
      expect(second.fingerprint.fileHash).toBe(first.fingerprint.fileHash);
      expect(second.fingerprint.name).toBe("copy");
      await first.dispose();
      await second.dispose();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a missing model file is an EmbedError naming the path", async () => {
    const missing = join(tmpdir(), "no-such-model.gguf");
    await expect(createLocalEmbedder(localConfig(missing))).rejects.toThrow(/no-such-model\.gguf/);
  });
});
