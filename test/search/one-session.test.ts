import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { parseLexicalQuery, searchLexical, type LexicalHit } from "../../src/search/index.ts";
import { appendClaudeTurns, fillerText, writeClaudeSession, type TestTurn } from "../helpers/claude-writer.ts";

// A search restricted to one session (`--session`, level 2 of the picker and the web view) ranks only that session's
// documents, by rowid ranges. A session that grew while others were indexed has its documents in several runs of ids:
// one run after a small gap (merged into one range that holds another session's documents, which must be dropped) and
// one after more than 4,096 other documents (a range of its own). Its turns must score exactly as in the global ranking.
const work = mkdtempSync(join(tmpdir(), "recall-one-session-"));
const projects = join(work, "claude", "projects");
const home = join(work, "home");
const grown = "aaaaaaaa-0000-4000-8000-000000000001";
const between = "bbbbbbbb-0000-4000-8000-000000000002";
const huge = "cccccccc-0000-4000-8000-000000000003";
let db: Database;

const index = async () => {
  const summary = await runIndex({ recallHome: home, roots: { "claude-code": [join(work, "claude")], opencode: [] } });
  expect(summary.failedUnits).toBe(0);
};
const turn = (seed: number, words: string): TestTurn => ({
  prompt: `${fillerText(seed, 8)} ${words} ${fillerText(seed + 500, 8)}`,
  response: fillerText(seed + 900, 15),
});

beforeAll(async () => {
  const grownPath = join(projects, "-home-u-grown", `${grown}.jsonl`);
  const state = writeClaudeSession(grownPath, {
    sessionId: grown,
    cwd: "/home/u/grown",
    turns: [turn(1, "the kiln cracked the glaze"), turn(2, "nothing here"), turn(3, "glaze recipe")],
  });
  await index();
  writeClaudeSession(join(projects, "-home-u-between", `${between}.jsonl`), {
    sessionId: between,
    cwd: "/home/u/between",
    turns: Array.from({ length: 6 }, (_, i) => turn(100 + i, "kiln glaze kiln glaze")),
  });
  await index();
  appendClaudeTurns(grownPath, state, [turn(4, "a kiln at low fire"), turn(5, "the glaze ran in the kiln")]);
  await index();
  writeClaudeSession(join(projects, "-home-u-huge", `${huge}.jsonl`), {
    sessionId: huge,
    cwd: "/home/u/huge",
    turns: Array.from({ length: 4200 }, (_, i) => turn(1000 + i, i % 50 === 0 ? "kiln" : "pottery")),
  });
  await index();
  appendClaudeTurns(grownPath, state, [turn(6, "glaze"), turn(7, "kiln glaze test tiles")]);
  await index();
  db = openIndex(databasePath(home), { readonly: true });
}, 120_000);
afterAll(() => {
  db?.close();
  rmSync(work, { recursive: true, force: true });
});

const byTurn = (hits: LexicalHit[]) =>
  hits.map((hit) => ({ turn: hit.turnNumber, raw: hit.raw })).sort((a, b) => a.turn - b.turn);

describe("a search restricted to one session (rowid ranges)", () => {
  test("the grown session's documents lie in runs of ids with a small gap and a gap of more than 4,096", () => {
    const ids = db
      .query<{ id: number }, [string]>(
        "SELECT d.id FROM documents d JOIN sessions s ON s.id = d.session_rowid WHERE s.session_id = ? AND d.level = 'turn' ORDER BY d.id",
      )
      .all(grown)
      .map((row) => row.id);
    const gaps = ids.slice(1).map((id, i) => id - ids[i]!);
    expect(gaps.some((gap) => gap > 1 && gap <= 4096)).toBe(true);
    expect(gaps.some((gap) => gap > 4096)).toBe(true);
  });

  for (const words of ["kiln glaze", "kiln", "glaze tiles"]) {
    test(`"${words}": the session's turns and scores equal those of the global ranking, no other session's turn`, async () => {
      const query = parseLexicalQuery(words);
      const grownRowid = db
        .query<{ id: number }, [string]>("SELECT id FROM sessions WHERE session_id = ?")
        .get(grown)!.id;
      const restricted = await searchLexical(db, query, "turn", { sessionId: grown }, 100);
      const global = (await searchLexical(db, query, "turn", {}, 10_000)).filter(
        (hit) => hit.sessionRowid === grownRowid,
      );
      expect(restricted.length).toBeGreaterThan(0);
      expect(restricted.every((hit) => hit.sessionRowid === grownRowid)).toBe(true);
      // raw is −bm25 (plus the neighbour's share): equal scores prove the same global statistics were used
      const expected = byTurn(global);
      const actual = byTurn(restricted);
      expect(actual.map((hit) => hit.turn)).toEqual(expected.map((hit) => hit.turn));
      for (const [i, hit] of actual.entries()) expect(hit.raw!).toBeCloseTo(expected[i]!.raw!, 9);
    });
  }

  test("turns appended after the gap are found (turn 7 holds every word)", async () => {
    const hits = await searchLexical(db, parseLexicalQuery("kiln glaze test tiles"), "turn", { sessionId: grown }, 20);
    expect(hits[0]?.turnNumber).toBe(7);
  });

  test("an unknown session id gives no hits", async () => {
    expect(await searchLexical(db, parseLexicalQuery("kiln"), "turn", { sessionId: "no-such-session" }, 20)).toEqual(
      [],
    );
  });
});
