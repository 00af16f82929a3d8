/**
 * `recall index` and the embedding model, end to end through the CLI (issue 12): a model switched in the environment
 * is found by the next run and re-embedded (no flag needed), a run with nothing to embed loads no model, `--reembed`
 * forces a rebuild, the JSON summary carries the embedding counts, and an endpoint that refuses the API key makes
 * `recall index` exit 1 with ENDPOINT_AUTH after the keyword index is written.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createLocalEmbedder, resolveEmbedConfig } from "../../src/embed/index.ts";
import { type EmbeddingsServer, llamaServerTooLarge, startEmbeddingsServer } from "../embed/embeddings-server.ts";
import { repo, spawnCli } from "../helpers/cli.ts";
import { getTestModelPath } from "../helpers/models.ts";

const work = mkdtempSync(join(tmpdir(), "recall-index-embedding-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function history(name: string): string[] {
  const root = join(work, name, "claude");
  mkdirSync(root, { recursive: true });
  cpSync(resolve(repo, "test/fixtures/claude-code"), join(root, "-work-fixtures"), { recursive: true });
  mkdirSync(join(work, name, "no-opencode")); // a named folder must exist (issue 15)
  return ["--claude-dir", root, "--opencode-dir", join(work, name, "no-opencode")];
}

async function recall(args: string[], home: string, extraEnv: Record<string, string> = {}) {
  const env: Record<string, string | undefined> = {
    ...process.env,
    HOME: work,
    RECALL_HOME: home,
    RECALL_EMBED_HELPER: "off",
    ...extraEnv,
  };
  for (const key of [
    "XDG_DATA_HOME",
    "XDG_CONFIG_HOME",
    "CLAUDE_CONFIG_DIR",
    "RECALL_CLAUDE_DIRS",
    "RECALL_OPENCODE_DIRS",
    "EMBEDDINGS_API_KEY",
    "RECALL_MODEL",
  ]) {
    if (!(key in extraEnv)) delete env[key];
  }
  if (!("EMBEDDINGS_URL" in extraEnv)) delete env.EMBEDDINGS_URL;
  const child = spawnCli(args, env, { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  return { code, stdout, stderr };
}

/** Runs `body` against an OpenAI-compatible server on 127.0.0.1 that embeds with the generated test model. */
async function withEmbeddingsServer(body: (server: EmbeddingsServer) => Promise<void>): Promise<void> {
  const config = resolveEmbedConfig({ env: {}, home: tmpdir(), modelFlag: getTestModelPath() });
  if (config.kind !== "local") throw new Error("expected a local model");
  const local = await createLocalEmbedder(config);
  const server = startEmbeddingsServer(local);
  try {
    await body(server);
  } finally {
    server.close();
    await local.dispose();
  }
}

describe("recall index and the embedding model (issue 12)", () => {
  test("a model switched in the environment is re-embedded by the next run; nothing to embed loads no model; --reembed rebuilds", async () => {
    const sources = history("switch");
    const home = join(work, "switch-home");
    const modelA = getTestModelPath();
    const modelB = getTestModelPath({ embd: 48, heads: 2, seed: 7 });
    const first = await recall(["index", "--json", ...sources], home, { RECALL_MODEL: modelA, RECALL_OFFLINE: "1" });
    expect(first.code).toBe(0);
    const firstJson = JSON.parse(first.stdout);
    expect(firstJson.embedding).toMatchObject({
      failed: 0,
      rejected: 0,
      pending: 0,
      degraded: false,
      reembed: null,
      stopped: null,
    });
    expect(firstJson.embedding.embedded).toBeGreaterThan(10);
    expect(firstJson.embedding.skipped).toBeGreaterThan(0);

    const again = await recall(["index", "--json", ...sources], home, { RECALL_MODEL: modelA, RECALL_OFFLINE: "1" });
    expect(JSON.parse(again.stdout).embedding).toBeNull(); // nothing to embed: the model was not loaded

    const switched = await recall(["index", "--json", ...sources], home, { RECALL_MODEL: modelB, RECALL_OFFLINE: "1" });
    expect(switched.code).toBe(0);
    const switchedJson = JSON.parse(switched.stdout).embedding;
    expect(switchedJson.reembed.state).toBe("swapped");
    expect(switchedJson.embedded).toBe(firstJson.embedding.embedded);

    const search = await recall(["search", "rewind the branch", "--json", ...sources, "--no-reindex"], home, {
      RECALL_MODEL: modelB,
      RECALL_OFFLINE: "1",
    });
    expect(JSON.parse(search.stdout).mode).toBe("hybrid");

    const rebuilt = await recall(["index", "--reembed", "--json", ...sources], home, {
      RECALL_MODEL: modelB,
      RECALL_OFFLINE: "1",
    });
    expect(JSON.parse(rebuilt.stdout).embedding.reembed.state).toBe("swapped");
    const contradiction = await recall(["index", "--reembed", "--keyword-only", ...sources], home);
    expect(contradiction.code).toBe(2);
    expect(contradiction.stderr).toContain("--reembed and --keyword-only");
  }, 120_000);

  test("an endpoint that refuses the API key: the keyword index is written, then recall index exits 1 with ENDPOINT_AUTH", async () => {
    let requests = 0;
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch() {
        requests++;
        // llama-server's answer to a wrong --api-key (tools/server/server.cpp): 401 with an OpenAI-style error object
        return Response.json(
          { error: { code: 401, message: "Invalid API Key", type: "authentication_error" } },
          { status: 401 },
        );
      },
    });
    try {
      const sources = history("auth");
      const home = join(work, "auth-home");
      const env = {
        EMBEDDINGS_URL: `http://127.0.0.1:${server.port}/v1`,
        EMBEDDINGS_API_KEY: "wrong",
        RECALL_OFFLINE: "0",
      };
      const result = await recall(["index", "--json", ...sources], home, env);
      expect(result.code).toBe(1);
      const summary = JSON.parse(result.stdout);
      expect(summary.added).toBeGreaterThan(0);
      expect(summary.degraded).toBe(true);
      expect(summary.embedding_error.code).toBe("ENDPOINT_AUTH");
      const error = JSON.parse(result.stderr.trim().split("\n").at(-1)!).error;
      expect(error.code).toBe("ENDPOINT_AUTH");
      expect(error.hint).toContain("EMBEDDINGS_API_KEY");
      expect(requests).toBe(1); // no retries of a refused key
      // The keyword index is there: a search finds the session, keyword-only.
      const search = await recall(["search", "walrus tokenizer", "--json", ...sources, "--no-reindex"], home, env);
      expect(search.code).toBe(0);
      expect(JSON.parse(search.stdout).results.length).toBeGreaterThan(0);
    } finally {
      server.stop(true);
    }
  }, 60_000);

  test(
    "an endpoint that fails while a search embeds its query: the search answers keyword-only and says why",
    () =>
      withEmbeddingsServer(async (server) => {
        const sources = history("query-fails");
        const home = join(work, "query-fails-home");
        const env = { EMBEDDINGS_URL: server.url, RECALL_OFFLINE: "0" };
        expect((await recall(["index", ...sources], home, env)).code).toBe(0);
        // A search's probe ("recall") is answered; the query fails like an overloaded server.
        server.setPlan((request) => (request.inputs[0] === "recall" ? "ok" : { status: 500 }));
        const search = await recall(["search", "walrus tokenizer", "--json", ...sources, "--no-reindex"], home, env);
        expect(search.code).toBe(0);
        const json = JSON.parse(search.stdout);
        expect(json.mode).toBe("keyword");
        expect(json.results.length).toBeGreaterThan(0);
        expect(search.stderr).toContain("keyword-only search: query embedding failed");
        // Vector-only has no words to fall back on: it fails, saying why.
        const vectorOnly = await recall(
          ["search", "walrus tokenizer", "--vector-only", ...sources, "--no-reindex"],
          home,
          env,
        );
        expect(vectorOnly.code).toBe(1);
        expect(vectorOnly.stderr).toContain("query embedding failed");
      }),
    120_000,
  );

  test(
    "chunks longer than the endpoint's window are split and embedded as the mean of their parts, and status counts them",
    () =>
      withEmbeddingsServer(async (server) => {
        // A server whose window is smaller than the chunks recall makes for a 512-token model: llama-server's refusal.
        server.setPlan((request) => {
          const longest = Math.max(...request.inputs.map((input) => input.length));
          return longest > 150 ? llamaServerTooLarge(Math.ceil(longest / 3), 50) : "ok";
        });
        const sources = history("split");
        const home = join(work, "split-home");
        const env = { EMBEDDINGS_URL: server.url, RECALL_OFFLINE: "0" };
        const indexed = JSON.parse((await recall(["index", "--json", ...sources], home, env)).stdout);
        expect(indexed.embedding).toMatchObject({ failed: 0, rejected: 0 });
        const status = JSON.parse((await recall(["status", "--json"], home, env)).stdout);
        expect(status.chunks.split).toBeGreaterThan(0);
        expect(status.chunks.rejected).toBe(0);
        const text = (await recall(["status"], home, env)).stdout;
        expect(text).toContain(
          `${status.chunks.split} longer than the model's window, each embedded as the mean of its parts (none cut)`,
        );
      }),
    120_000,
  );
});
