import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { forgetSessions } from "../../src/index/store/forget.ts";
import { searchIndex, type SessionResult, type TurnResult } from "../../src/search/index.ts";
import {
  attachMatchWorkers,
  hasMatchWorker,
  type RankedDocument,
  rankedWindow,
  rankPhraseRange,
  rankRange,
} from "../../src/search/ranking/match-window.ts";
import {
  documentsHoldingEvery,
  newPhraseListCache,
  phraseDocumentCounts,
  rankFromPostings,
} from "../../src/search/ranking/postings-ranking.ts";
import { matchedTerms } from "../../src/search/ranking/lexical.ts";
import type { LexicalQuery } from "../../src/search/ranking/query.ts";
import { descendingOrder } from "../../src/search/ranking/score-order.ts";
import { appendClaudeTurns, writeClaudeSession } from "../helpers/claude-writer.ts";
import { type PhraseQuery, randomStream, rankingQueries, writeRankingSessions } from "../helpers/ranking-corpus.ts";

// Ranking from the index's own posting lists (postings-ranking.ts, issue 42) must give FTS5's own bm25() ranking: the
// same documents in the same order with bit-identical ranks, for hundreds of queries at several window sizes, and after
// the index changed.
const work = mkdtempSync(join(tmpdir(), "recall-postings-ranking-"));
const home = join(work, "home");
const roots = { "claude-code": [join(work, "claude")], opencode: [] };
let db: Database;

beforeAll(async () => {
  writeRankingSessions(join(work, "claude"), 80, 1);
  expect((await runIndex({ recallHome: home, roots })).failedUnits).toBe(0);
  db = openIndex(databasePath(home), { readonly: true });
}, 60_000);
afterAll(() => {
  db?.close();
  rmSync(work, { recursive: true, force: true });
});

const rankPhrase = (phrase: string) => rankPhraseRange(db, phrase, 0, Number.MAX_SAFE_INTEGER);
const matchOf = (query: PhraseQuery) => query.phrases.join(query.every ? " " : " OR ");

/** FTS5's whole ranking of `match`, best first, ties by ascending id. */
const fts5Ranking = (match: string): RankedDocument[] =>
  rankRange(db, match, 0, Number.MAX_SAFE_INTEGER, -1).sort((a, b) => a.rank - b.rank || a.id - b.id);

/** Compare every query at four window sizes; returns the documents compared. */
async function compareAll(queries: readonly PhraseQuery[]): Promise<number> {
  let compared = 0;
  for (const query of queries) {
    const expected = fts5Ranking(matchOf(query));
    for (const limit of [1, 10, 80, -1]) {
      const actual = await rankFromPostings(db, query, limit, rankPhrase);
      expect(actual).toEqual(limit < 0 ? expected : expected.slice(0, limit));
      // FTS5's own top `limit` in one statement: the same documents, the same ranks
      expect(rankRange(db, matchOf(query), 0, Number.MAX_SAFE_INTEGER, limit)).toEqual(actual!);
      compared += actual!.length;
    }
    // each phrase's live documents, as the term rarities take them: FTS5's count of that phrase alone
    const cache = newPhraseListCache();
    await rankFromPostings(db, query, 10, rankPhrase, cache);
    const counts = phraseDocumentCounts(cache);
    expect([...counts.keys()].sort()).toEqual([...new Set(query.phrases)].sort());
    for (const [phrase, count] of counts) expect({ phrase, count }).toEqual({ phrase, count: fts5Count(phrase) });
  }
  return compared;
}

const fts5Count = (phrase: string) =>
  db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM documents_fts WHERE documents_fts MATCH ?").get(phrase)!
    .n;

describe("BM25 top k from the posting lists (postings-ranking.ts)", () => {
  test("descendingOrder: a comparison sort's order of (−score, position), ties and ±0 included", () => {
    expect(Array.from(descendingOrder(Float64Array.of(1, 3, 1, 2)))).toEqual([1, 3, 0, 2]);
    expect(Array.from(descendingOrder(Float64Array.of(0, -0, 0, 5)))).toEqual([3, 0, 1, 2]);
    expect(Array.from(descendingOrder(new Float64Array(0)))).toEqual([]);
    const next = randomStream(7);
    for (let round = 0; round < 200; round++) {
      const n = Math.floor(next() * 900);
      const distinct = 1 + Math.floor(next() * (round % 2 === 0 ? 5 : 1000)); // many ties, or few
      const scores = Float64Array.from({ length: n }, () => {
        const value = Math.floor(next() * distinct) / 7 - 1;
        return value === 0 && next() < 0.5 ? -0 : value;
      });
      const expected = Array.from({ length: n }, (_, i) => i).sort((x, y) => -scores[x]! - -scores[y]! || x - y);
      expect(Array.from(descendingOrder(scores))).toEqual(expected);
    }
  });

  test("searchIndex answers the same from the posting lists as from FTS5 alone, at both levels", async () => {
    // a copy whose lists do not add up to FTS5's totals ranks everything in FTS5
    const copy = join(work, "fts5-only");
    cpSync(home, copy, { recursive: true });
    const fts5Only = openIndex(databasePath(copy));
    fts5Only.exec("UPDATE keyword_segments SET documents = documents + 1");
    expect(await rankFromPostings(fts5Only, { phrases: ['"docker"'], every: true }, 1, rankPhrase)).toBeUndefined();
    for (const query of ["docker network", "why does the retry time out", "zeppelin migration schema parser", "flaky"])
      for (const level of ["session", "turn"] as const) {
        const ask = async (on: Database) =>
          (
            (await searchIndex(on, { query, level, filters: {}, mode: "keyword", limit: 10 })).results as Array<
              SessionResult | TurnResult
            >
          ).map(
            (result) =>
              // the confidence too: its term rarities come from the lists' counts on one, from FTS5 on the other
              `${result.sessionId} ${"turn" in result ? result.turn : result.bestTurn} ${result.score} ${result.confidence}`,
          );
        const answer = await ask(db);
        expect(answer.length).toBeGreaterThan(0);
        expect(answer).toEqual(await ask(fts5Only));
      }
    fts5Only.close();
  });

  test("a prefix ranked by FTS5 in two halves, the upper one by a long-lived reader's worker: the same ranking", async () => {
    const reader = openIndex(databasePath(home), { readonly: true });
    const stop = attachMatchWorkers(reader);
    for (let waited = 0; !hasMatchWorker(reader) && waited < 10_000; waited += 20) await Bun.sleep(20);
    expect(hasMatchWorker(reader)).toBe(true);
    for (const query of [
      { phrases: ['"kube"*'], every: true },
      { phrases: ['"docker"', '"mig"*', '"bridge network"'], every: false },
    ])
      expect(await rankedWindow(reader, matchOf(query), -1, query)).toEqual(fts5Ranking(matchOf(query)));
    stop();
    reader.close();
  });

  test("300 queries, each at 4 window sizes: FTS5's documents, order and bit-identical ranks", async () => {
    expect(await compareAll(rankingQueries())).toBeGreaterThan(20_000);
  }, 120_000);

  test("issue 42: the documents a scoring counts as holding every phrase are those FTS5 matches with each, for 300 queries", async () => {
    let holding = 0;
    let partial = 0;
    for (const query of rankingQueries()) {
      const cache = newPhraseListCache();
      const ranked = await rankFromPostings(db, { ...query, every: false }, 60, rankPhrase, cache);
      const ids = [...(ranked ?? []).map((document) => document.id), 0, 1_000_000]; // and one id never scored
      const known = documentsHoldingEvery(cache, query.phrases, ids);
      const perTerm = matchedTerms(db, { terms: query.phrases } as LexicalQuery, ids);
      const expected = new Set(ids.filter((id) => perTerm.get(id)!.length === query.phrases.length));
      expect(known).toEqual(expected);
      holding += expected.size;
      partial += ids.length - expected.size;
    }
    expect(holding).toBeGreaterThan(1000); // both kinds met, many times
    expect(partial).toBeGreaterThan(1000);
    // the counts of a scoring are gone once another scoring came in between: no answer then, FTS5 is asked
    const cache = newPhraseListCache();
    await rankFromPostings(db, { phrases: ['"docker"'], every: true }, 10, rankPhrase, cache);
    await rankFromPostings(db, { phrases: ['"network"'], every: true }, 10, rankPhrase, cache);
    expect(documentsHoldingEvery(cache, ['"docker"'], [1, 2])).toBeUndefined();
    expect(documentsHoldingEvery(cache, ['"network"'], [1, 2])).toBeDefined();
  }, 120_000);

  test("after sessions are added, grown and forgotten, the lists still rank as FTS5 does", async () => {
    writeRankingSessions(join(work, "claude"), 6, 2, "quasar docker");
    const grown = join(work, "claude", "projects", "-home-u-p1", "00010001-0000-4000-8000-000000000000.jsonl");
    const state = writeClaudeSession(grown.replace("00010001", "00090001"), {
      sessionId: "00090001-0000-4000-8000-000000000000",
      cwd: "/home/u/p1",
      turns: [{ prompt: "docker bridge quasar", response: "network zeppelin" }],
    });
    expect((await runIndex({ recallHome: home, roots })).added).toBe(7);
    appendClaudeTurns(grown.replace("00010001", "00090001"), state, [
      { prompt: "docker docker network retries", response: "bridge" },
    ]);
    expect((await runIndex({ recallHome: home, roots })).updated).toBe(1);
    await forgetSessions(home, [3, 5]);
    const queries = [...rankingQueries().slice(0, 60), { phrases: ['"quasar"', '"docker"'], every: true }];
    expect(await compareAll(queries)).toBeGreaterThan(2_000);
  }, 120_000);

  test("lists that do not hold what FTS5 holds are not used: rankedWindow answers from FTS5", async () => {
    const scratch = join(work, "scratch");
    writeRankingSessions(join(scratch, "claude"), 5, 3);
    await runIndex({
      recallHome: join(scratch, "home"),
      roots: { "claude-code": [join(scratch, "claude")], opencode: [] },
    });
    const changed = openIndex(databasePath(join(scratch, "home")));
    changed.exec(
      "DELETE FROM keyword_postings WHERE term = 'docker'; UPDATE keyword_segments SET documents = documents + 1",
    );
    const query = { phrases: ['"docker"'], every: true };
    expect(await rankFromPostings(changed, query, 10, rankPhrase)).toBeUndefined();
    const expected = rankRange(changed, '"docker"', 0, Number.MAX_SAFE_INTEGER, -1);
    expect(expected.length).toBeGreaterThan(0);
    expect(await rankedWindow(changed, '"docker"', -1, query)).toEqual(expected);
    changed.close();
  });
});
