/**
 * The embedding phase of issue 12, on the hand-made Claude Code fixtures and generated GGUF models: nothing pending
 * that cannot be embedded (no model load when nothing is to embed), permanent rejections never sent again, a model
 * change built beside the vectors in use and swapped in when complete (an interrupted re-embed keeps the old vectors
 * searchable), switching back drops the unfinished re-embed, `--reembed`, and recovery of a half-done swap.
 */
import { afterAll, afterEach, describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openEmbedder, type Embedder, type EmbedHooks } from "../../../src/embed/index.ts";
import { EmbedError } from "../../../src/errors.ts";
import {
  chunkStatus,
  databasePath,
  embedFingerprintKey,
  nextFingerprintKey,
  openIndex,
  readMeta,
  runIndex,
  type IndexSummary,
} from "../../../src/index/index.ts";
import { createVectorLeg, openVectorStores } from "../../../src/search/index.ts";
import { fillerText, writeClaudeSession } from "../../helpers/claude-writer.ts";
import { getTestModelPath } from "../../helpers/models.ts";

const fixtures = resolve(import.meta.dir, "../../fixtures/claude-code");
const temps: string[] = [];
const opened: Embedder[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});
afterAll(async () => {
  for (const embedder of opened) await embedder.dispose();
});

function workspace(): { home: string; roots: Record<string, string[]> } {
  const dir = mkdtempSync(join(tmpdir(), "recall-embed-pipeline-"));
  temps.push(dir);
  const root = join(dir, "claude");
  mkdirSync(root);
  cpSync(fixtures, join(root, "-work-fixtures"), { recursive: true });
  // Enough turns for several embedding slices (embedding.ts `sliceSizeFor`: 32 chunks for a local model), so a run can stop between them.
  for (let n = 0; n < 4; n++) {
    const turns = Array.from({ length: 12 }, (_, t) => ({
      prompt: `question ${n}.${t} about ${fillerText(n * 100 + t, 8)}`,
      response: fillerText(n * 1000 + t, 40),
    }));
    writeClaudeSession(
      join(root, "-work-generated", `${String(n).padStart(8, "0")}-0000-4000-8000-000000000000.jsonl`),
      { sessionId: `${String(n).padStart(8, "0")}-0000-4000-8000-000000000000`, cwd: "/work/generated", turns },
    );
  }
  return { home: join(dir, "home"), roots: { "claude-code": [root], opencode: [join(dir, "no-opencode")] } };
}

const models = { a: getTestModelPath(), b: getTestModelPath({ embd: 48, heads: 2, seed: 7 }) };

async function load(path: string, home: string): Promise<Embedder> {
  const embedder = await openEmbedder({ env: { RECALL_OFFLINE: "1" }, home, modelFlag: path });
  opened.push(embedder);
  return embedder;
}

/** Wraps an embedder: counts texts sent, and lets a test reject or fail chosen texts, or stop after some calls. */
function instrumented(real: Embedder, behaviour: { reject?: (text: string) => boolean; stopAfterCalls?: number } = {}) {
  const sent: string[] = [];
  let calls = 0;
  const embedder = Object.assign(Object.create(real) as Embedder, {
    async embedDocuments(texts: string[], hooks: EmbedHooks = {}) {
      if (behaviour.stopAfterCalls !== undefined && calls >= behaviour.stopAfterCalls) {
        throw new EmbedError(
          "ENDPOINT_UNREACHABLE",
          "embedding endpoint http://127.0.0.1:9/v1/embeddings stopped answering (connection refused)",
        );
      }
      calls++;
      sent.push(...texts);
      const keep = texts.map((text) => !behaviour.reject?.(text));
      const vectors = await real.embedDocuments(texts.filter((_, i) => keep[i]));
      let next = 0;
      return texts.map((_, i) => {
        if (keep[i]) return vectors[next++]!;
        hooks.onTextRejected?.(i, "too large");
        return null;
      });
    },
  });
  return { embedder, sent, calls: () => calls };
}

function read<T>(home: string, run: (db: import("bun:sqlite").Database) => T): T {
  const db = openIndex(databasePath(home), { readonly: true });
  try {
    return run(db);
  } finally {
    db.close();
  }
}

const countStatus = (home: string, table: string, status: number) =>
  read(
    home,
    (db) => db.query<{ n: number }, [number]>(`SELECT count(*) AS n FROM ${table} WHERE status = ?`).get(status)!.n,
  );

async function index(
  home: string,
  roots: Record<string, string[]>,
  embedder: Embedder | undefined,
  extra: Partial<Parameters<typeof runIndex>[0]> = {},
): Promise<{ summary: IndexSummary; opens: number }> {
  let opens = 0;
  const summary = await runIndex({
    recallHome: home,
    roots,
    followModelChange: true,
    ...extra,
    openEmbedder: embedder
      ? async () => {
          opens++;
          return embedder;
        }
      : undefined,
  });
  return { summary, opens };
}

/** The vector leg's top session for a query, through the vectors in use. */
async function vectorTop(home: string, embedder: Embedder, query: string): Promise<number | undefined> {
  const db = openIndex(databasePath(home), { readonly: true });
  const stores = openVectorStores(home, embedder);
  try {
    const hits = await createVectorLeg(db, home, embedder, stores).search(query, "session", {}, 5);
    return hits[0]?.sessionRowid;
  } finally {
    for (const store of Object.values(stores)) store.close();
    db.close();
  }
}

describe("the embedding phase (issue 12)", () => {
  test("documents with nothing to embed are done: a second run loads no model, and no prompt is embedded twice", async () => {
    const { home, roots } = workspace();
    const a = await load(models.a, home);
    const first = await index(home, roots, a);
    expect(first.opens).toBe(1);
    expect(first.summary.embedding!.embedded).toBeGreaterThan(10);
    expect(first.summary.embedding!.skipped).toBeGreaterThan(0); // session documents without a title, empty turns
    expect(countStatus(home, "chunks", chunkStatus.pending) + countStatus(home, "chunks", chunkStatus.failed)).toBe(0);
    // Session documents embed their title only: no session chunk repeats a turn's prompt.
    const repeated = read(
      home,
      (db) =>
        db
          .query<{ n: number }, []>(
            `SELECT count(*) AS n FROM chunks sc JOIN documents sd ON sd.id = sc.document_id AND sd.level = 'session'
       JOIN turns t ON t.session_rowid = sd.session_rowid WHERE sc.text != '' AND length(t.prompt) > 20 AND instr(sc.text, t.prompt) > 0`,
          )
          .get()!.n,
    );
    expect(repeated).toBe(0);
    const second = await index(home, roots, a);
    expect(second.opens).toBe(0);
    expect(second.summary.embedding).toBeUndefined();
  }, 60_000);

  test("a text the model rejects for good is marked rejected and never sent again", async () => {
    const { home, roots } = workspace();
    const a = await load(models.a, home);
    const isPoison = (text: string) => text.toLowerCase().includes("compact");
    const first = instrumented(a, { reject: isPoison });
    const run1 = await index(home, roots, first.embedder);
    const rejected = countStatus(home, "chunks", chunkStatus.rejected);
    expect(rejected).toBeGreaterThan(0);
    expect(run1.summary.embedding!.rejected).toBe(rejected);
    expect(run1.summary.embedding!.degraded).toBe(false);
    const second = instrumented(a, { reject: isPoison });
    const run2 = await index(home, roots, second.embedder);
    expect(run2.opens).toBe(0);
    expect(second.sent).toEqual([]);
  }, 60_000);

  test("a model change is re-embedded beside the vectors in use: interrupted, the old vectors still answer; finished, they are swapped", async () => {
    const { home, roots } = workspace();
    const a = await load(models.a, home);
    await index(home, roots, a);
    const fingerprintA = read(home, (db) => readMeta(db, embedFingerprintKey));
    const topWithA = await vectorTop(home, a, "rewind the branch");
    expect(topWithA).toBeDefined();

    const b = await load(models.b, home);
    const stopping = instrumented(b, { stopAfterCalls: 0 }); // the endpoint is down from the start
    const interrupted = await index(home, roots, stopping.embedder, { embedConfigKey: "model-b" });
    expect(interrupted.summary.embedding!.stopped?.code).toBe("ENDPOINT_UNREACHABLE");
    expect(interrupted.summary.embedding!.reembed?.state).toBe("unfinished");
    expect(interrupted.summary.degraded).toBe(true);
    expect(read(home, (db) => readMeta(db, embedFingerprintKey))).toBe(fingerprintA);
    expect(read(home, (db) => readMeta(db, nextFingerprintKey))).toBe(b.fingerprintKey);
    expect(await vectorTop(home, a, "rewind the branch")).toBe(topWithA!); // the vectors in use are whole

    const finished = await index(home, roots, b, { embedConfigKey: "model-b" });
    expect(finished.summary.embedding!.reembed?.state).toBe("swapped");
    expect(read(home, (db) => readMeta(db, embedFingerprintKey))).toBe(b.fingerprintKey);
    expect(read(home, (db) => readMeta(db, nextFingerprintKey))).toBeUndefined();
    expect(countStatus(home, "next_chunks", chunkStatus.embedded)).toBe(0);
    expect(existsSync(join(home, "vectors-next"))).toBe(false);
    expect(await vectorTop(home, b, "rewind the branch")).toBeDefined();

    // The configuration key is stored: the next run loads nothing.
    expect((await index(home, roots, b, { embedConfigKey: "model-b" })).opens).toBe(0);
  }, 90_000);

  test("going back to the model in use drops the unfinished re-embed; --reembed rebuilds with the same model", async () => {
    const { home, roots } = workspace();
    const a = await load(models.a, home);
    await index(home, roots, a, { embedConfigKey: "model-a" });
    const embeddedBefore = countStatus(home, "chunks", chunkStatus.embedded);
    const b = await load(models.b, home);
    await index(home, roots, instrumented(b, { stopAfterCalls: 1 }).embedder, { embedConfigKey: "model-b" });
    expect(countStatus(home, "next_chunks", chunkStatus.embedded)).toBeGreaterThan(0);

    const back = await index(home, roots, a, { embedConfigKey: "model-a" });
    expect(back.opens).toBe(1); // the key changed back: the model is opened to compare
    expect(read(home, (db) => readMeta(db, nextFingerprintKey))).toBeUndefined();
    expect(read(home, (db) => db.query<{ n: number }, []>("SELECT count(*) AS n FROM next_chunks").get()!.n)).toBe(0);
    expect(existsSync(join(home, "vectors-next"))).toBe(false);

    const counted = instrumented(a);
    const rebuilt = await index(home, roots, counted.embedder, { embedConfigKey: "model-a", reembed: true });
    expect(rebuilt.summary.embedding!.reembed?.state).toBe("swapped");
    expect(counted.sent.length).toBe(embeddedBefore);
    expect(countStatus(home, "chunks", chunkStatus.embedded)).toBe(embeddedBefore);
    expect(await vectorTop(home, a, "rewind the branch")).toBeDefined();
  }, 90_000);

  test("a search's refresh never starts a re-embed: another model only makes the search keyword-only", async () => {
    const { home, roots } = workspace();
    const a = await load(models.a, home);
    await index(home, roots, a);
    const b = instrumented(await load(models.b, home));
    const refresh = await index(home, roots, b.embedder, { followModelChange: false });
    expect(refresh.opens).toBe(0); // nothing pending for the stored model
    expect(b.sent).toEqual([]);
    expect(read(home, (db) => readMeta(db, nextFingerprintKey))).toBeUndefined();
  }, 60_000);

  test("a swap cut between its renames and its commit is undone by the next run", async () => {
    const { home, roots } = workspace();
    const a = await load(models.a, home);
    await index(home, roots, a);
    const b = await load(models.b, home);
    await index(home, roots, instrumented(b, { stopAfterCalls: 1 }).embedder, { embedConfigKey: "model-b" });
    const embeddedNext = countStatus(home, "next_chunks", chunkStatus.embedded);
    expect(embeddedNext).toBeGreaterThan(0);
    // The crash: both renames of swapInNextGeneration happened, the transaction did not.
    renameSync(join(home, "vectors"), join(home, "vectors-old"));
    renameSync(join(home, "vectors-next"), join(home, "vectors"));
    const afterCrash = await index(home, roots, b, { embedConfigKey: "model-b" });
    expect(afterCrash.summary.embedding!.reembed?.state).toBe("swapped");
    // Resumed, not restarted: the chunks embedded before the crash were not sent again.
    expect(afterCrash.summary.embedding!.embedded).toBe(
      countStatus(home, "chunks", chunkStatus.embedded) - embeddedNext,
    );
    expect(existsSync(join(home, "vectors-old"))).toBe(false);
    expect(await vectorTop(home, b, "rewind the branch")).toBeDefined();
  }, 90_000);
});
