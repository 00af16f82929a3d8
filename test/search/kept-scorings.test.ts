import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { attachLongLivedSearch, searchIndex, type SessionResult, type TurnResult } from "../../src/search/index.ts";
import { keptScoringsLimit, searchScorings } from "../../src/search/ranking/postings-ranking.ts";
import { appendClaudeTurns, writeClaudeSession } from "../helpers/claude-writer.ts";
import { randomStream, rankingWords, writeRankingSessions } from "../helpers/ranking-corpus.ts";

// A long-lived reader keeps a search's keyword scorings and its words' posting lists for the next search while nothing
// is committed (postings-ranking.ts `keepScorings`, issue 42): one session's turns are then picked out of the scoring
// its list was ranked by instead of FTS5 ranking them again, and a query typed on reads only its new words. The answers
// must be those of a connection that keeps nothing.
const work = mkdtempSync(join(tmpdir(), "recall-kept-scorings-"));
const home = join(work, "home");
const roots = { "claude-code": [join(work, "claude")], opencode: [] };
let kept: Database;
let plain: Database;
let detach: () => void;

beforeAll(async () => {
  writeRankingSessions(join(work, "claude"), 60, 5);
  expect((await runIndex({ recallHome: home, roots })).failedUnits).toBe(0);
  kept = openIndex(databasePath(home), { readonly: true });
  plain = openIndex(databasePath(home), { readonly: true });
  detach = attachLongLivedSearch(kept);
}, 60_000);
afterAll(() => {
  detach?.();
  kept?.close();
  plain?.close();
  rmSync(work, { recursive: true, force: true });
});

/** 1–3 words of the corpus, some stemming together, as a person types them. */
function textQueries(count: number): string[] {
  const random = randomStream(11);
  return Array.from({ length: count }, () =>
    Array.from(
      { length: 1 + Math.floor(random() * 3) },
      () => rankingWords[Math.floor(random() * rankingWords.length)],
    ).join(" "),
  );
}

/** The page of sessions for `query`, as the web view asks for it. */
async function sessionsFor(db: Database, query: string): Promise<SessionResult[]> {
  const answer = await searchIndex(db, { query, level: "session", filters: {}, mode: "keyword", limit: 10 });
  return answer.results as SessionResult[];
}

/** One session's matching turns, as the web view's turn column asks for them, with what decides their order. */
async function turnsFor(db: Database, query: string, sessionId: string): Promise<string[]> {
  const answer = await searchIndex(db, {
    query,
    level: "turn",
    filters: { sessionId, includeSubagents: true },
    mode: "keyword",
    limit: 20,
  });
  return (answer.results as TurnResult[]).map(
    (turn) =>
      `${turn.turn} ${turn.score} ${turn.keywordRaw} ${turn.confidence} ${turn.confident} ${turn.matchedTerms.join(",")}`,
  );
}

/** The SQL `db` prepares while `run` runs (its statements, observed, not replaced). */
async function statementsDuring(db: Database, run: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const query = db.query.bind(db);
  db.query = ((sql: string) => {
    seen.push(sql);
    return query(sql);
  }) as Database["query"];
  try {
    await run();
  } finally {
    delete (db as { query?: unknown }).query; // the own property hid the prototype's method
  }
  return seen;
}

const ranksInFts5 = (sql: string) => sql.includes("bm25(");

describe("keyword scorings kept between a long-lived reader's searches (issue 42)", () => {
  test("a session's turns picked out of its list's scoring are the turns FTS5 ranks, for 40 queries", async () => {
    let compared = 0;
    for (const query of textQueries(40)) {
      const sessions = await sessionsFor(kept, query);
      expect(sessions.map((session) => session.sessionId)).toEqual(
        (await sessionsFor(plain, query)).map((session) => session.sessionId),
      );
      for (const session of sessions.slice(0, 3)) {
        let fromScoring: string[] = [];
        const statements = await statementsDuring(kept, async () => {
          fromScoring = await turnsFor(kept, query, session.sessionId);
        });
        expect(statements.filter(ranksInFts5)).toEqual([]); // picked out of the kept scoring
        const fromFts5 = await turnsFor(plain, query, session.sessionId);
        expect(fromFts5.length).toBeGreaterThan(0);
        expect(fromScoring).toEqual(fromFts5);
        compared += fromFts5.length;
      }
    }
    expect(compared).toBeGreaterThan(150);
  }, 60_000);

  test("a connection that keeps nothing ranks one session's turns in FTS5", async () => {
    const [session] = await sessionsFor(plain, "docker network");
    const statements = await statementsDuring(plain, () => turnsFor(plain, "docker network", session!.sessionId));
    expect(statements.filter(ranksInFts5).length).toBeGreaterThan(0);
  });

  test("a commit by another connection drops the kept scorings: a turn added since is found", async () => {
    const query = "zeppelin quasar";
    const path = join(work, "claude", "projects", "-home-u-p9", "00990001-0000-4000-8000-000000000000.jsonl");
    const state = writeClaudeSession(path, {
      sessionId: "00990001-0000-4000-8000-000000000000",
      cwd: "/home/u/p9",
      turns: [{ prompt: "zeppelin quasar launch", response: "docker" }],
    });
    expect((await runIndex({ recallHome: home, roots })).added).toBe(1);
    expect(await turnsFor(kept, query, "00990001-0000-4000-8000-000000000000")).toHaveLength(1);
    await sessionsFor(kept, query); // scored and kept in this state of the index
    appendClaudeTurns(path, state, [{ prompt: "zeppelin quasar landing", response: "bridge" }]);
    expect((await runIndex({ recallHome: home, roots })).updated).toBe(1);
    const statements = await statementsDuring(kept, async () => {
      await sessionsFor(kept, query);
    });
    expect(statements.filter((sql) => sql.includes("CROSS JOIN keyword_postings"))).toHaveLength(2); // read again
    const turns = await turnsFor(kept, query, "00990001-0000-4000-8000-000000000000");
    expect(turns).toHaveLength(2);
    expect(turns).toEqual(await turnsFor(plain, query, "00990001-0000-4000-8000-000000000000"));
  });

  test("a word's posting lists are read once while it is typed on, and the answers stay FTS5's", async () => {
    const readsLists = (sql: string) => sql.includes("CROSS JOIN keyword_postings");
    const typed = "docker bridge".split("").map((_, i, all) => all.slice(0, i + 1).join(""));
    let reads = 0;
    for (const query of typed) {
      let answer: SessionResult[] = [];
      const statements = await statementsDuring(kept, async () => {
        answer = await sessionsFor(kept, query);
      });
      reads += statements.filter(readsLists).length;
      expect(answer.map((session) => `${session.sessionId} ${session.score} ${session.confidence}`)).toEqual(
        (await sessionsFor(plain, query)).map(
          (session) => `${session.sessionId} ${session.score} ${session.confidence}`,
        ),
      );
    }
    // one read per token first met (Porter stems "docke" to "dock" and "bridge" to "bridg"): d do doc dock docker,
    // then, after "docker " (whose words were all read), b br bri brid bridg
    expect(reads).toBe(10);
    const again = await statementsDuring(plain, () => sessionsFor(plain, "docker bridge"));
    expect(again.filter(readsLists)).toHaveLength(2); // a connection that keeps nothing reads both
  });

  test("at most the newest four scorings are kept", async () => {
    for (const query of textQueries(30)) await sessionsFor(kept, query);
    expect(keptScoringsLimit).toBe(4);
    expect(searchScorings(kept).size).toBeLessThanOrEqual(keptScoringsLimit);
    expect(searchScorings(kept).size).toBeGreaterThan(1);
    expect(searchScorings(plain).size).toBe(0); // a connection that keeps nothing starts each search empty
  });
});
