import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { searchIndex, type SessionResult, type TurnResult } from "../../src/search/index.ts";
import {
  attachLongLivedRanking,
  hasMatchWorker,
  type RankedDocument,
  rankedWindow,
  rankPhraseRange,
  rankRange,
} from "../../src/search/ranking/match-window.ts";
import { rankedFromPhrases } from "../../src/search/ranking/phrase-rankings.ts";
import { fillerText, writeClaudeSession } from "../helpers/claude-writer.ts";

// Ranking a MATCH from its phrases' kept rankings (phrase-rankings.ts) must give FTS5's own bm25() ranks, bit for bit:
// every query below is ranked by FTS5 in one statement and from the phrase rankings, and the two are compared.
const work = mkdtempSync(join(tmpdir(), "recall-phrase-rankings-"));
const home = join(work, "home");
const roots = { "claude-code": [join(work, "claude")], opencode: [] };
// common, middling and rare words, some that stem together (retry/retries, migrate/migration)
const words = [
  "docker",
  "network",
  "bridge",
  "timeout",
  "retry",
  "retries",
  "migration",
  "migrate",
  "schema",
  "parser",
  "zeppelin",
  "kubernetes",
  "flaky",
  "login",
  "cache",
];
let reference: Database; // FTS5 in one statement per query
let kept: Database; // phrase rankings kept, a worker for the halves
let stop: () => void = () => {};

/** A deterministic pseudo-random stream (mulberry32). */
function randomStream(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function writeSessions(count: number, seed: number, extra = ""): void {
  const random = randomStream(seed);
  const word = () => words[Math.floor(random() ** 2 * words.length)]!; // skewed: the first words are common
  for (let session = 0; session < count; session++) {
    const id = `${String(seed).padStart(4, "0")}${String(session).padStart(4, "0")}-0000-4000-8000-000000000000`;
    writeClaudeSession(join(work, "claude", "projects", `-home-u-p${session % 6}`, `${id}.jsonl`), {
      sessionId: id,
      cwd: `/home/u/p${session % 6}`,
      turns: Array.from({ length: 2 + Math.floor(random() * 10) }, (_, turn) => ({
        prompt: `${fillerText(seed * 1000 + session * 20 + turn, 2 + Math.floor(random() * 8))} ${word()} ${word()} ${extra}`,
        response: `${fillerText(seed * 1000 + session * 20 + turn + 7, 5 + Math.floor(random() * 30))} ${random() < 0.5 ? word() : ""} ${random() < 0.3 ? `${word()} ${word()}` : ""}`,
      })),
    });
  }
}

beforeAll(async () => {
  writeSessions(60, 1);
  expect((await runIndex({ recallHome: home, roots })).failedUnits).toBe(0);
  reference = openIndex(databasePath(home), { readonly: true });
  kept = openIndex(databasePath(home), { readonly: true });
  stop = attachLongLivedRanking(kept);
  for (let waited = 0; !hasMatchWorker(kept) && waited < 10_000; waited += 20) await Bun.sleep(20);
}, 60_000);
afterAll(() => {
  stop();
  reference?.close();
  kept?.close();
  rmSync(work, { recursive: true, force: true });
});

/** A phrase ranked anew on the kept connection's thread. */
const rankAnew = async (phrase: string) => rankPhraseRange(kept, phrase, 0, Number.MAX_SAFE_INTEGER);

/** FTS5's whole ranking of `match`, best first, ties by ascending id: the order the kept rankings promise. */
const fts5Ranking = (db: Database, match: string): RankedDocument[] =>
  rankRange(db, match, 0, Number.MAX_SAFE_INTEGER, -1).sort((a, b) => a.rank - b.rank || a.id - b.id);

/** Hundreds of queries: 1–4 phrases (words, two-word phrases, prefixes), all or any of them. */
function queries(): Array<{ phrases: string[]; every: boolean }> {
  const random = randomStream(42);
  const pick = () => words[Math.floor(random() * words.length)]!;
  const phrase = () => {
    const roll = random();
    if (roll < 0.15) return `"${pick()} ${pick()}"`;
    if (roll < 0.25) return `"${pick().slice(0, 3)}"*`;
    return `"${pick()}"`;
  };
  const out: Array<{ phrases: string[]; every: boolean }> = [];
  for (let i = 0; i < 300; i++) {
    const phrases = [...new Set(Array.from({ length: 1 + Math.floor(random() * 4) }, phrase))];
    out.push({ phrases, every: random() < 0.5 });
  }
  return out;
}

describe("BM25 from kept phrase rankings (phrase-rankings.ts)", () => {
  test("300 queries, each at 4 window sizes: FTS5's documents and bit-identical ranks", async () => {
    // each phrase ranked alone first, so every query below is combined from kept rankings
    for (const phrase of new Set(queries().flatMap((query) => query.phrases)))
      expect(await rankedFromPhrases(kept, { phrases: [phrase], every: true }, 1, rankAnew)).toBeDefined();
    let compared = 0;
    for (const query of queries()) {
      const match = query.phrases.join(query.every ? " " : " OR ");
      const expected = fts5Ranking(reference, match);
      for (const limit of [1, 10, 80, -1]) {
        const actual = (await rankedFromPhrases(kept, query, limit, rankAnew))!;
        expect(actual).toEqual(limit < 0 ? expected : expected.slice(0, limit));
        // and FTS5's own top `limit` (ties in any order) has the very same ranks
        expect(rankRange(reference, match, 0, Number.MAX_SAFE_INTEGER, limit).map((d) => d.rank)).toEqual(
          actual.map((d) => d.rank),
        );
        compared += actual.length;
      }
    }
    expect(compared).toBeGreaterThan(20_000); // the queries match documents, most of them many
  }, 120_000);

  test("a query with two phrases not kept yet is left to FTS5; once one is kept, it is combined here", async () => {
    const match = { phrases: ['"flaky" "login"', '"cache"*'], every: false };
    expect(await rankedFromPhrases(kept, match, 10, rankAnew)).toBeUndefined();
    // rankedWindow answers it through FTS5 all the same
    expect((await rankedWindow(kept, '"flaky" "login" OR "cache"*', 10, match)).map((d) => d.rank)).toEqual(
      fts5Ranking(reference, '"flaky" "login" OR "cache"*')
        .slice(0, 10)
        .map((d) => d.rank),
    );
    await rankedWindow(kept, '"cache"*', 1, { phrases: ['"cache"*'], every: true }); // one new phrase: ranked and kept
    expect(await rankedFromPhrases(kept, match, 10, rankAnew)).toEqual(
      fts5Ranking(reference, '"flaky" "login" OR "cache"*').slice(0, 10),
    );
  });

  test("a new phrase is ranked in two halves, the upper one by the worker thread: the same ranking", async () => {
    const phrase = '"kube"*'; // a four-letter prefix: the queries above have three-letter ones, so it is new here
    const ranked = await rankedWindow(kept, phrase, -1, { phrases: [phrase], every: true });
    expect(hasMatchWorker(kept)).toBe(true);
    expect(ranked.length).toBeGreaterThan(0);
    expect(ranked).toEqual(fts5Ranking(reference, phrase));
  });

  test("searchIndex answers the same with kept rankings as with FTS5 alone, at both levels", async () => {
    for (const query of [
      "docker network",
      "why does the retry time out",
      "zeppelin migration schema parser",
      "flaky",
    ]) {
      for (const level of ["session", "turn"] as const) {
        const ask = async (db: Database) =>
          (
            (await searchIndex(db, { query, level, filters: {}, mode: "keyword", limit: 10 })).results as Array<
              SessionResult | TurnResult
            >
          ).map((result) => `${result.sessionId} ${"turn" in result ? result.turn : result.bestTurn} ${result.score}`);
        expect(await ask(kept)).toEqual(await ask(reference));
      }
    }
  });

  test("kept rankings answer until another connection changes the index, then the change is ranked", async () => {
    const before = await rankedWindow(kept, '"quasar"', -1, { phrases: ['"quasar"'], every: true });
    expect(before).toEqual([]);
    writeSessions(3, 2, "quasar quasar");
    expect((await runIndex({ recallHome: home, roots })).added).toBe(3);
    const after = await rankedWindow(kept, '"quasar"', -1, { phrases: ['"quasar"'], every: true });
    expect(after.length).toBeGreaterThan(0);
    expect(after).toEqual(fts5Ranking(reference, '"quasar"'));
    // the other words' rankings were dropped too: their statistics changed with the new documents
    expect(await rankedWindow(kept, '"docker"', 20, { phrases: ['"docker"'], every: true })).toEqual(
      fts5Ranking(reference, '"docker"').slice(0, 20),
    );
  });
});
