import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { searchIndex, type SessionResult } from "../../src/search/index.ts";
import {
  attachMatchWorkers,
  hasMatchWorker,
  MatchWorker,
  rankedWindow,
  rankRange,
} from "../../src/search/ranking/match-window.ts";
import { fillerText, writeClaudeSession } from "../helpers/claude-writer.ts";

// The window of a MATCH ranked in two halves at once (the lower half here, the upper half in a worker thread with its
// own connection) must be the window ranked in one pass: bm25() takes its statistics from the whole table whatever
// rowid range is ranked.
const work = mkdtempSync(join(tmpdir(), "recall-match-window-"));
const home = join(work, "home");
const words = ["docker", "network", "bridge", "timeout", "retry", "migration", "schema", "parser"];
let single: Database;
let split: Database;
let stopWorkers: () => void = () => {};

beforeAll(async () => {
  for (let session = 0; session < 40; session++) {
    const id = `${String(session).padStart(8, "0")}-0000-4000-8000-000000000000`;
    writeClaudeSession(join(work, "claude", "projects", `-home-u-p${session % 5}`, `${id}.jsonl`), {
      sessionId: id,
      cwd: `/home/u/p${session % 5}`,
      turns: Array.from({ length: 12 }, (_, turn) => ({
        // each turn holds 1–3 of the words, some several times, in texts of different lengths
        prompt: `${fillerText(session * 100 + turn, 4 + (turn % 7))} ${words[(session + turn) % 8]} ${words[(session * 3 + turn) % 8]}`,
        response: `${fillerText(session * 100 + turn + 50, 10 + ((session + turn) % 13))} ${turn % 3 === 0 ? words[turn % 8] : ""}`,
      })),
    });
  }
  const summary = await runIndex({ recallHome: home, roots: { "claude-code": [join(work, "claude")], opencode: [] } });
  expect(summary.failedUnits).toBe(0);
  single = openIndex(databasePath(home), { readonly: true });
  split = openIndex(databasePath(home), { readonly: true });
  stopWorkers = attachMatchWorkers(split);
  await workerReady(split);
}, 60_000);
afterAll(() => {
  stopWorkers();
  single?.close();
  split?.close();
  rmSync(work, { recursive: true, force: true });
});

/** Wait (up to 10 s) until the worker attached to `db` has its connection open. */
async function workerReady(db: Database): Promise<void> {
  for (let waited = 0; !hasMatchWorker(db) && waited < 10_000; waited += 20) await Bun.sleep(20);
  expect(hasMatchWorker(db)).toBe(true);
}

/** Ranks rounded to 12 significant digits: the two passes sum the same terms, the order may differ in the last bit. */
const rounded = (documents: Array<{ id: number; rank: number }>) =>
  documents.map((document) => ({ id: document.id, rank: Number(document.rank.toPrecision(12)) }));

describe("a MATCH ranked in two halves (a worker thread and this one)", () => {
  for (const match of ['"docker"', '"docker" "network"', '"timeout" OR "retry" OR "parser"', '"schem"*']) {
    for (const limit of [5, 40, -1]) {
      test(`${match}, limit ${limit}: the same documents and ranks as one pass`, async () => {
        const expected = rankRange(single, match, 0, Number.MAX_SAFE_INTEGER, limit);
        expect(expected.length).toBeGreaterThan(0);
        const actual = await rankedWindow(split, match, limit);
        expect(rounded(actual)).toEqual(rounded(expected));
        expect(hasMatchWorker(split)).toBe(true); // the worker answered (a failed one would leave one pass)
      });
    }
  }

  test("both halves hold matches (the split is real), and a one-pass window is asked for no worker", async () => {
    const all = rankRange(single, '"docker"', 0, Number.MAX_SAFE_INTEGER, -1);
    const last = single.query<{ last: number }, []>("SELECT max(id) AS last FROM documents").get()!.last;
    const middle = Math.floor(last / 2);
    expect(all.some((document) => document.id <= middle)).toBe(true);
    expect(all.some((document) => document.id > middle)).toBe(true);
    expect(await rankedWindow(single, '"docker"', -1)).toEqual(all);
  });

  test("searchIndex answers the same on a connection with a worker as on one without", async () => {
    for (const query of ["docker network", "why does the retry time out", "schema migration parser"]) {
      const ask = async (db: Database) =>
        (
          (await searchIndex(db, { query, level: "session", filters: {}, mode: "keyword", limit: 10 }))
            .results as SessionResult[]
        ).map((result) => `${result.sessionId} ${result.bestTurn} ${result.score.toFixed(9)}`);
      expect(await ask(split)).toEqual(await ask(single));
    }
  });

  test("a worker that stopped: its half is ranked on this thread, with the same answer", async () => {
    const db = openIndex(databasePath(home), { readonly: true });
    const stop = attachMatchWorkers(db);
    try {
      await workerReady(db);
      const before = await rankedWindow(db, '"network"', 30);
      expect(hasMatchWorker(db)).toBe(true);
      stop(); // detached: one pass
      expect(hasMatchWorker(db)).toBe(false);
      expect(rounded(await rankedWindow(db, '"network"', 30))).toEqual(rounded(before));
      const worker = new MatchWorker(databasePath(home), -2000);
      worker.start();
      worker.close();
      expect(worker.usable).toBe(false);
      await expect(worker.rank('"network"', 0, 10, 5)).rejects.toThrow("not running");
    } finally {
      db.close();
    }
  });

  test("a worker on a file that is no index answers with an error, not a hang", async () => {
    const worker = new MatchWorker(join(work, "no-such-dir", "index.sqlite"), -2000);
    try {
      await expect(worker.rank('"network"', 0, 10, 5)).rejects.toThrow();
    } finally {
      worker.close();
    }
  });
});
