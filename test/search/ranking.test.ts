import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import {
  matchedTerms,
  parseLexicalQuery,
  searchIndex,
  searchLexical,
  type SessionResult,
  type TurnResult,
} from "../../src/search/index.ts";
import { fillerText, writeClaudeSession, type TestTurn } from "../helpers/claude-writer.ts";

// A 400-turn session that mentions every query word, but each in a different turn, against short
// sessions whose one turn is about the query. Ranked by its whole text (all prompts as one document)
// the long session wins every any-term and all-terms match; ranked by its best turns it must not.
const work = mkdtempSync(join(tmpdir(), "recall-ranking-"));
const projects = join(work, "claude", "projects");
let db: Database;

const longTurns: TestTurn[] = Array.from({ length: 400 }, (_, i) => {
  const word = ["pottery", "workshop", "glaze", "kiln"][i % 4]!;
  return { prompt: `${fillerText(i, 12)} ${word} ${fillerText(i + 1000, 12)}`, response: fillerText(i + 2000, 20) };
});

beforeAll(async () => {
  writeClaudeSession(join(projects, "-home-u-long", "11111111-1111-4111-8111-111111111111.jsonl"), {
    sessionId: "11111111-1111-4111-8111-111111111111",
    cwd: "/home/u/long",
    turns: longTurns,
  });
  writeClaudeSession(join(projects, "-home-u-short", "22222222-2222-4222-8222-222222222222.jsonl"), {
    sessionId: "22222222-2222-4222-8222-222222222222",
    cwd: "/home/u/short",
    turns: [
      { prompt: "set up the deploy cache", response: fillerText(1, 30) },
      {
        prompt: "I went to a pottery workshop and learned to glaze in a kiln",
        response: "That sounds like a lovely weekend.",
      },
      { prompt: "build the parser", response: fillerText(2, 30) },
    ],
  });
  writeClaudeSession(join(projects, "-home-u-other", "33333333-3333-4333-8333-333333333333.jsonl"), {
    sessionId: "33333333-3333-4333-8333-333333333333",
    cwd: "/home/u/other",
    turns: [
      { prompt: "which glaze works best at low kiln temperatures", response: "A low-fire glaze." },
      { prompt: "render the schema", response: fillerText(3, 30) },
    ],
  });
  const summary = await runIndex({
    recallHome: join(work, "home"),
    roots: { "claude-code": [join(work, "claude")], opencode: [] },
  });
  expect(summary.failedUnits).toBe(0);
  db = openIndex(databasePath(join(work, "home")), { readonly: true });
});
afterAll(() => {
  db?.close();
  rmSync(work, { recursive: true, force: true });
});

const search = async (query: string, level: "session" | "turn" = "session") =>
  (await searchIndex(db, { query, level, filters: {}, mode: "keyword", limit: 3 })).results;

describe("sessions rank by their best turns, not by their longest text (issue 13)", () => {
  test("a short session whose one turn holds every query word outranks a 400-turn session that spreads them over many turns", async () => {
    const results = (await search("pottery workshop glaze kiln")) as SessionResult[];
    expect(results.map((result) => result.sessionId)).toEqual([
      "22222222-2222-4222-8222-222222222222",
      "33333333-3333-4333-8333-333333333333",
      "11111111-1111-4111-8111-111111111111",
    ]);
  });

  test("an any-term question is answered by the session with the best-matching turn, and its preview is that turn", async () => {
    const results = (await search("what did I learn at the pottery workshop?")) as SessionResult[];
    expect(results[0]).toMatchObject({ sessionId: "22222222-2222-4222-8222-222222222222", bestTurn: 2 });
    expect(results.length).toBe(2);
    expect(results[1]!.sessionId).toBe("11111111-1111-4111-8111-111111111111");
  });

  test("the long session is still found by a one-word query it holds", async () => {
    const results = (await search("pottery")) as SessionResult[];
    expect(results.map((result) => result.sessionId)).toContain("11111111-1111-4111-8111-111111111111");
  });

  test("a session that only its session document matches (its project name, no turn) is still found", async () => {
    const results = (await search("other")) as SessionResult[];
    expect(results.map((result) => result.sessionId)).toEqual(["33333333-3333-4333-8333-333333333333"]);
    expect(results[0]!.bestTurn).toBe(0);
  });

  test("at level 2 the turn that holds every query word ranks first, and a turn without any query word is never returned", async () => {
    const results = (await search("glaze kiln pottery", "turn")) as TurnResult[];
    const turns = results.map((result) => `${result.sessionId.slice(0, 1)}:${result.turn}`);
    expect(turns[0]).toBe("2:2");
    expect(turns).not.toContain("2:1"); // "set up the deploy cache": next to the answer, but none of the words
    expect(turns).not.toContain("2:3");
    const [best, ...rest] = await searchLexical(db, parseLexicalQuery("glaze kiln pottery"), "turn", {}, 100);
    expect(best!.score).toBeLessThanOrEqual(1);
    for (const hit of rest) expect(hit.score).toBeLessThanOrEqual(best!.score);
  });

  test("at level 2 a date filter that keeps every turn changes nothing", async () => {
    const turnsOf = async (filters: { since?: number }) =>
      (
        (await searchIndex(db, { query: "glaze kiln pottery", level: "turn", filters, mode: "keyword", limit: 3 }))
          .results as TurnResult[]
      ).map((result) => `${result.sessionId.slice(0, 1)}:${result.turn}`);
    const unfiltered = await turnsOf({});
    expect(unfiltered.slice(0, 2)).toEqual(["2:2", "3:1"]);
    expect(await turnsOf({ since: 0 })).toEqual(unfiltered);
  });
});

describe("the raw keyword evidence behind a hit, for --explain (issue 13)", () => {
  test("hits carry their raw BM25 evidence and whether one turn held every term", async () => {
    const hits = await searchLexical(db, parseLexicalQuery("pottery workshop glaze kiln"), "session", {}, 10);
    expect(hits.map((hit) => hit.allTerms)).toEqual([true, false, false]);
    for (const hit of hits) expect(hit.raw).toBeGreaterThan(0);
    expect(hits[0]!.score).toBe(1);
  });

  test("matchedTerms lists the query terms each document holds", async () => {
    const query = parseLexicalQuery("pottery workshop glaze kiln");
    const [short, other, long] = await searchLexical(db, query, "session", {}, 10); // each with the document that added most
    const matched = matchedTerms(db, query, [short!.documentId, other!.documentId, long!.documentId]);
    expect(matched.get(short!.documentId)).toEqual(['"pottery"', '"workshop"', '"glaze"', '"kiln"']);
    expect(matched.get(other!.documentId)).toEqual(['"glaze"', '"kiln"']);
    expect(matched.get(long!.documentId)!.length).toBe(1);
  });
});

describe("issue 42: a search without previews (the picker's list)", () => {
  test("ranks, scores and describes the same sessions, with empty previews", async () => {
    const request = {
      query: "pottery workshop glaze kiln",
      level: "session" as const,
      filters: {},
      mode: "keyword" as const,
      limit: 3,
    };
    const withPreviews = (await searchIndex(db, request)).results as SessionResult[];
    const without = (await searchIndex(db, { ...request, previews: false })).results as SessionResult[];
    expect(withPreviews.every((result) => result.preview.text.length > 0)).toBe(true);
    expect(without.map((result) => result.preview)).toEqual(without.map(() => ({ text: "", highlights: [] })));
    const apartFromPreview = (results: SessionResult[]) => results.map(({ preview: _preview, ...rest }) => rest);
    expect(apartFromPreview(without)).toEqual(apartFromPreview(withPreviews));
  });
});
