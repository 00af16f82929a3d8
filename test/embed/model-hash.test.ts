/**
 * The model file's sha256 is cached so a search does not re-hash 639 MB, and never beside a file the user gave by
 * path: a model in a shared or read-only folder (../shared/models, another tool's cache) must stay untouched.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hashModelFile } from "../../src/embed/index.ts";
import { hashSidecarPath } from "../../src/embed/model-hash.ts";

const work = mkdtempSync(join(tmpdir(), "recall-model-hash-"));
afterAll(() => {
  chmodSync(join(work, "shared"), 0o755);
  rmSync(work, { recursive: true, force: true });
});
const sha256 = (text: string) => new Bun.CryptoHasher("sha256").update(text).digest("hex");

describe("model file hashes", () => {
  test("a model given by path is hashed with its sidecar in recall's models folder, and its own folder is left as it was", async () => {
    const shared = join(work, "shared");
    const models = join(work, "cache", "models");
    mkdirSync(shared);
    writeFileSync(join(shared, "m.gguf"), "weights v1");
    chmodSync(shared, 0o555);
    expect(await hashModelFile(join(shared, "m.gguf"), models)).toBe(sha256("weights v1"));
    expect(readdirSync(shared)).toEqual(["m.gguf"]);
    const sidecar = hashSidecarPath(join(shared, "m.gguf"), models);
    expect(sidecar.startsWith(join(models, "hashes"))).toBe(true);
    expect(JSON.parse(await Bun.file(sidecar).text())).toMatchObject({
      path: join(shared, "m.gguf"),
      sha256: sha256("weights v1"),
    });
  });

  test("a preset in recall's models folder keeps its sidecar beside it; a changed file is hashed again", async () => {
    const models = join(work, "models2");
    mkdirSync(models);
    const file = join(models, "preset.gguf");
    writeFileSync(file, "aaaa");
    expect(await hashModelFile(file, models)).toBe(sha256("aaaa"));
    expect(existsSync(`${file}.sha256.json`)).toBe(true);
    writeFileSync(file, "bbbb");
    utimesSync(file, new Date(), new Date(Date.now() + 5000));
    expect(await hashModelFile(file, models)).toBe(sha256("bbbb"));
  });
});
