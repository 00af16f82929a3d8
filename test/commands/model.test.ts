import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repo, spawnCli } from "../helpers/cli.ts";
import { getTestModelPath } from "../helpers/models.ts";

const work = mkdtempSync(join(tmpdir(), "recall-model-cmd-"));
const modelBytes = readFileSync(getTestModelPath());
const requests: string[] = [];
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    requests.push(new URL(request.url).pathname);
    return new Response(modelBytes, { headers: { "content-type": "application/octet-stream" } });
  },
});
const failedRequests: string[] = [];
const failingServer = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(request) {
    failedRequests.push(new URL(request.url).pathname);
    return new Response("unavailable", { status: 503 });
  },
});
afterAll(() => {
  server.stop(true);
  failingServer.stop(true);
  rmSync(work, { recursive: true, force: true });
});

/** Async spawn: the HTTP server lives in this process, so a blocking spawnSync would deadlock it. */
async function recall(args: string[], env: Record<string, string | undefined>) {
  const merged: Record<string, string | undefined> = {
    ...process.env,
    RECALL_HOME: join(work, "home"),
    HOME: work,
    RECALL_MODEL_BASE_URL: `http://127.0.0.1:${server.port}`,
    ...env,
  };
  for (const [key, value] of Object.entries(merged)) if (value === undefined) delete merged[key];
  const child = spawnCli(args, merged, { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}

describe("recall model", () => {
  test("pull under RECALL_OFFLINE=1 makes no request and says how to fix it", async () => {
    const result = await recall(["model", "pull", "bge-small-en-v1.5"], { RECALL_OFFLINE: "1" });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("RECALL_OFFLINE=1 forbids downloading");
    expect(requests).toEqual([]);
  });

  test("pull downloads a preset from the configured host, and list shows its size and dims", async () => {
    const pulled = await recall(["model", "pull", "embeddinggemma-300m"], { RECALL_OFFLINE: undefined });
    expect(pulled.code).toBe(0);
    expect(requests.length).toBe(1);
    expect(requests[0]).toEndWith(".gguf");
    const listed = JSON.parse((await recall(["model", "list", "--json"], {})).stdout);
    expect(listed.present).toHaveLength(1);
    expect(listed.present[0]).toMatchObject({ preset: "embeddinggemma-300m", size_bytes: modelBytes.length, dims: 64 });
    expect(listed.default).toBe("bge-small-en-v1.5"); // no GPU on this machine
    expect(listed.default_reason).toContain("no GPU");
  });

  test("index tries to fetch a missing default model, falls back to keyword-only, and does not retry within the hour", async () => {
    const examples = [
      "--claude-dir",
      join(repo, "examples/claude-code"),
      "--opencode-dir",
      join(repo, "examples/opencode"),
    ];
    const env = {
      RECALL_OFFLINE: undefined,
      RECALL_HOME: join(work, "home-failing"),
      RECALL_MODEL_BASE_URL: `http://127.0.0.1:${failingServer.port}`,
    };
    const first = await recall(["index", ...examples], env);
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("keyword-only index");
    const afterFirst = failedRequests.length;
    expect(afterFirst).toBeGreaterThan(0);
    const second = await recall(["index", ...examples], env);
    expect(second.code).toBe(0);
    expect(second.stderr).toContain("last automatic download failed less than an hour ago");
    expect(failedRequests.length).toBe(afterFirst);
  });
});

describe("recall model use (issue 15: the skill saves the user's choice before anything is downloaded)", () => {
  test("saves RECALL_MODEL in the settings file, private, keeping its other lines; `default` removes it; nothing is fetched", async () => {
    const recallHome = join(work, "use-home");
    mkdirSync(recallHome, { recursive: true });
    writeFileSync(
      join(recallHome, ".env"),
      "# my endpoint\nEMBEDDINGS_API_KEY=sk-keep\nexport RECALL_MODEL=qwen3-embedding-0.6b\n",
      { mode: 0o644 },
    );
    const before = requests.length;
    const chosen = await recall(["model", "use", "all-minilm-l6-v2"], {
      RECALL_HOME: recallHome,
      RECALL_MODEL: undefined,
    });
    expect(chosen.code).toBe(0);
    expect(chosen.stdout).toBe(`model: all-minilm-l6-v2 (saved in ${join(recallHome, ".env")})\n`);
    expect(readFileSync(join(recallHome, ".env"), "utf8")).toBe(
      "# my endpoint\nEMBEDDINGS_API_KEY=sk-keep\nRECALL_MODEL=all-minilm-l6-v2\n",
    );
    expect(statSync(join(recallHome, ".env")).mode & 0o777).toBe(0o600);
    const listed = JSON.parse(
      (await recall(["model", "list", "--json"], { RECALL_HOME: recallHome, RECALL_MODEL: undefined })).stdout,
    );
    expect(listed.default).toBe("bge-small-en-v1.5"); // the hardware default is unchanged; the configured model is the saved one
    const file = join(work, "my model.gguf");
    writeFileSync(file, modelBytes);
    expect((await recall(["model", "use", file], { RECALL_HOME: recallHome })).code).toBe(0);
    expect(readFileSync(join(recallHome, ".env"), "utf8")).toContain(`RECALL_MODEL='${file}'`);
    expect((await recall(["model", "use", "default"], { RECALL_HOME: recallHome })).code).toBe(0);
    expect(readFileSync(join(recallHome, ".env"), "utf8")).toBe("# my endpoint\nEMBEDDINGS_API_KEY=sk-keep\n");
    const unknown = await recall(["model", "use", "gpt-embedder"], { RECALL_HOME: recallHome });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('unknown model "gpt-embedder"');
    expect(requests.length).toBe(before);
  });
});
