import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openEmbedder, type Embedder } from "../../../src/embed/index.ts";
import { EmbedError } from "../../../src/errors.ts";
import { chunkStatus, databasePath, openIndex, type Watcher } from "../../../src/index/index.ts";
import { appendClaudeTurns, writeClaudeSession } from "../../helpers/claude-writer.ts";
import { getTestModelPath } from "../../helpers/models.ts";
import { makeWorkspace, startRecorded, waitFor, waitUntilSearchable, type Workspace } from "./helpers.ts";

const sessionId = "e3bed000-0000-4000-8000-000000000001";
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** The real local embedder on the generated tiny model (runtime-notes §6), opened once for the file. */
let model: Promise<Embedder> | undefined;
const openModel = (home: string) =>
  (model ??= openEmbedder({ env: { RECALL_OFFLINE: "1" }, home, modelFlag: getTestModelPath() }));
afterAll(async () => (await model)?.dispose());

/** Chunk counts by status in the workspace's index. */
function chunkCounts(workspace: Workspace): { embedded: number; other: number } {
  const db = openIndex(databasePath(workspace.recallHome), { readonly: true });
  try {
    // `other`: chunks still to embed (pending or failed); skipped ones (documents with nothing to embed) are done.
    const row = db
      .query<{ embedded: number; other: number }, [number, number, number]>(
        "SELECT sum(status = ?) AS embedded, sum(status IN (?, ?)) AS other FROM chunks",
      )
      .get(chunkStatus.embedded, chunkStatus.pending, chunkStatus.failed)!;
    return { embedded: row.embedded ?? 0, other: row.other ?? 0 };
  } finally {
    db.close();
  }
}

function liveWorkspace() {
  const workspace = makeWorkspace();
  cleanups.push(() => workspace.cleanup());
  const file = join(workspace.claude, "-home-dev-embed", `${sessionId}.jsonl`);
  const state = writeClaudeSession(file, {
    sessionId,
    cwd: "/home/dev/embed",
    turns: [{ prompt: "profile the render loop", response: "It allocates per frame." }],
  });
  return { workspace, append: (prompt: string) => appendClaudeTurns(file, state, [{ prompt, response: "Noted." }]) };
}

async function track(started: Promise<{ watcher: Watcher; recorded: import("./helpers.ts").Recorded }>) {
  const result = await started;
  cleanups.push(() => result.watcher.close());
  return result;
}

describe("background embedding in the watcher (issue 10)", () => {
  test("after the keyword commit, what changed is embedded; a later cycle embeds only the new turn's documents (idempotent)", async () => {
    const { workspace, append } = liveWorkspace();
    const { recorded } = await track(
      startRecorded(workspace, { debounceMs: 300, openEmbedder: () => openModel(workspace.recallHome) }),
    );
    await waitFor(() => recorded.embedded.length === 1, 30_000, 50);
    const first = recorded.embedded[0]!;
    expect(first.embedded).toBeGreaterThan(10);
    expect(chunkCounts(workspace).other).toBe(0);
    append("cache the glyph atlas between frames");
    await waitFor(() => recorded.embedded.length === 2, 30_000, 50);
    // The changed session's documents only: the new turn (a chunk or two; the session document embeds only a title).
    expect(recorded.embedded[1]!.embedded).toBeGreaterThan(0);
    expect(recorded.embedded[1]!.embedded).toBeLessThanOrEqual(4);
    expect(chunkCounts(workspace).other).toBe(0);
    expect(recorded.warnings).toEqual([]);
  }, 60_000);

  test("a model that cannot be opened costs only the embedding: indexing goes on, and the notice is given once", async () => {
    const { workspace, append } = liveWorkspace();
    let attempts = 0;
    const { recorded } = await track(
      startRecorded(workspace, {
        debounceMs: 300,
        openEmbedder: () => {
          attempts++;
          return Promise.reject(
            new EmbedError("MODEL_MISSING", "the embedding model tiny is missing: it is not downloaded"),
          );
        },
      }),
    );
    await waitFor(() => recorded.indexed.length === 1, 10_000, 20);
    append("why does the walrus migration lock the table");
    expect(await waitUntilSearchable(workspace, "walrus migration", "walrus migration")).toBeLessThan(5000);
    append("and the second walrus question");
    await waitFor(() => recorded.indexed.length === 3, 5000, 20);
    await Bun.sleep(200);
    expect(attempts).toBeGreaterThanOrEqual(2); // every cycle tries again (the model may have been pulled meanwhile)
    expect(
      recorded.notices.filter((line) => line.includes("keyword-only index: the embedding model tiny is missing")),
    ).toHaveLength(1);
    expect(recorded.embedded).toEqual([]);
    expect(recorded.warnings).toEqual([]);
  }, 30_000);

  test("a text that fails to embed does not stop the others, and is embedded by a later cycle", async () => {
    const { workspace, append } = liveWorkspace();
    let isPoisoned = true;
    const flaky = async (): Promise<Embedder> => {
      const real = await openModel(workspace.recallHome);
      return Object.assign(Object.create(real) as Embedder, {
        embedDocuments: async (texts: string[]) => {
          const vectors = await real.embedDocuments(texts);
          return vectors.map((vector, i) => (isPoisoned && texts[i]!.includes("render loop") ? null : vector));
        },
      });
    };
    const { recorded } = await track(startRecorded(workspace, { debounceMs: 300, openEmbedder: flaky }));
    await waitFor(() => recorded.embedded.length === 1, 30_000, 50);
    expect(recorded.embedded[0]!.failed).toBeGreaterThan(0);
    expect(recorded.embedded[0]!.embedded).toBeGreaterThan(10);
    isPoisoned = false;
    append("unrelated follow-up about fonts");
    await waitFor(() => chunkCounts(workspace).other === 0, 30_000, 50);
    expect(recorded.embedded.at(-1)!.failed).toBe(0);
  }, 60_000);
});
