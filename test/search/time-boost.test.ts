import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { paletteFor } from "../../src/render/format.ts";
import { renderSearchJson, renderSearchText } from "../../src/render/search.ts";
import { explainResponse } from "../../src/render/search-explain.ts";
import { dateFactorOf, dateFactors, searchIndex, type SessionResult, type TurnResult } from "../../src/search/index.ts";
import { fillerText, writeClaudeSession } from "../helpers/claude-writer.ts";

// Issue 13, "time in the query": the March 2023 session matches the words best (short, every word twice); the
// July 2022 one holds them too, in a long prompt (a lower BM25); three 2021 sessions mention "docker" only. A
// query naming July 2022 must put the July session first. (Scores are min-max normalized per query, so the
// weakest candidate scores 0 and no factor lifts it: the fixture keeps July above the weakest.)
const work = mkdtempSync(join(tmpdir(), "recall-time-boost-"));
const projects = join(work, "claude", "projects");
let db: Database;
const now = new Date(2026, 10, 23, 15, 0).getTime();
const ids = {
  july: "aaaaaaaa-0000-4000-8000-000000000001",
  march: "bbbbbbbb-0000-4000-8000-000000000002",
  other: "cccccccc-0000-4000-8000-000000000003",
};

beforeAll(async () => {
  const write = (id: string, cwd: string, startMs: number, prompts: string[]) =>
    writeClaudeSession(join(projects, cwd.replace(/\//g, "-"), `${id}.jsonl`), {
      sessionId: id,
      cwd,
      startMs,
      turns: prompts.map((prompt) => ({ prompt, response: "done" })),
    });
  write(ids.july, "/home/u/app", new Date(2022, 6, 14, 10).getTime(), [
    "set up the build",
    `we should fix the docker network ${fillerText(1, 30)}`,
    "write the changelog",
  ]);
  write(ids.march, "/home/u/infra", new Date(2023, 2, 10, 10).getTime(), [
    "fix docker network, fix docker network",
    "docker network works now",
  ]);
  write(ids.other, "/home/u/web", new Date(2022, 6, 20, 10).getTime(), ["style the landing page"]);
  for (const n of [4, 5, 6])
    write(`dddddddd-0000-4000-8000-00000000000${n}`, `/home/u/old${n}`, new Date(2021, 4, n, 10).getTime(), [
      `${fillerText(n, 40)} docker ${fillerText(n + 10, 40)}`,
    ]);
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

const search = (query: string, level: "session" | "turn" = "session") =>
  searchIndex(db, { query, level, filters: {}, mode: "keyword", limit: 5, now });
const sessionsOf = (results: unknown) =>
  (results as Array<SessionResult | TurnResult>).map((result) => result.sessionId);

describe("dates named in the query move results in that time up (issue 13)", () => {
  test("without a date the best keyword match ranks first", async () => {
    const response = await search("fix docker network");
    expect(sessionsOf(response.results).slice(0, 2)).toEqual([ids.march, ids.july]);
    expect(response.dates).toEqual([]);
  });

  test("naming July 2022 puts the July 2022 session first, keeps the others (a boost, not a filter) and reports the date as used", async () => {
    const response = await search("fix docker network in July 2022");
    expect(sessionsOf(response.results).slice(0, 2)).toEqual([ids.july, ids.march]);
    expect(response.dates).toEqual([
      {
        text: "in July 2022",
        label: "July 2022",
        since: new Date(2022, 6, 1).getTime(),
        until: new Date(2022, 7, 1).getTime() - 1,
        applied: true,
      },
    ]);
    const [july, march] = response.results as SessionResult[];
    expect(july!.score).toBe(july!.keywordScore!);
    expect(march!.score).toBeCloseTo(march!.keywordScore! * dateFactors.outside, 6);
  });

  test("a date no candidate falls in is reported as not used", async () => {
    const response = await search("docker network last year");
    expect(response.dates[0]).toMatchObject({ label: "2025", applied: false });
    expect(sessionsOf(response.results).slice(0, 2)).toEqual([ids.march, ids.july]);
  });

  test("a date no candidate falls in changes no score", async () => {
    const dated = await search("fix docker network in June 2019");
    expect(dated.dates).toMatchObject([{ label: "June 2019", applied: false }]);
    expect(dated.results.length).toBeGreaterThan(1);
    for (const result of dated.results) expect(result.score).toBe(result.keywordScore!); // keyword mode: the leg's score, untouched
  });

  test("a month without a year falls back to the latest year that holds a candidate", async () => {
    const response = await search("fix docker network in July");
    expect(response.dates).toMatchObject([{ text: "in July", label: "July 2022", applied: true }]);
    expect(sessionsOf(response.results)[0]).toBe(ids.july);
  });

  test("open ranges: before 2023 favours the 2022 session, since 2023 the 2023 one", async () => {
    expect(sessionsOf((await search("fix docker network before 2023")).results)[0]).toBe(ids.july);
    expect(sessionsOf((await search("fix docker network since 2023")).results)[0]).toBe(ids.march);
  });

  test("at level 2, turns are ranked by their own time", async () => {
    const plain = await search("docker network", "turn");
    expect(sessionsOf(plain.results)[0]).toBe(ids.march);
    const dated = await search("docker network in July 2022", "turn");
    expect(dated.results[0]).toMatchObject({ sessionId: ids.july, turn: 2 });
    expect(dated.results.length).toBe(plain.results.length);
  });
});

describe("the answer shows the dates understood", () => {
  test("JSON carries a dates array with inclusive ISO bounds and text names them on one line", async () => {
    const response = await search("fix docker network in July 2022");
    const json = JSON.parse(renderSearchJson(response, { format: "index" }));
    expect(json.dates).toEqual([
      {
        text: "in July 2022",
        label: "July 2022",
        since: new Date(2022, 6, 1).toISOString(),
        until: new Date(new Date(2022, 7, 1).getTime() - 1).toISOString(),
        applied: true,
      },
    ]);
    const text = renderSearchText(response, await paletteFor(1, { NO_COLOR: "1" }));
    expect(text.split("\n")[1]).toBe('dates understood: "in July 2022" → 2022-07-01 … 2022-07-31');
    const unused = renderSearchText(
      await search("docker network in June 2019"),
      await paletteFor(1, { NO_COLOR: "1" }),
    );
    expect(unused).toContain('dates understood: "in June 2019" → 2019-06-01 … 2019-06-30 (no result then, not used)');
    expect(JSON.parse(renderSearchJson(await search("docker network"))).dates).toEqual([]);
  });

  test("--explain itemizes the date factor of each result", async () => {
    const response = await search("fix docker network in July 2022");
    const [first, second] = explainResponse(response);
    expect(first!.boosts).toEqual([{ reason: "in the dates named (July 2022)", factor: 1 }]);
    expect(second!.boosts).toEqual([{ reason: "outside the dates named (July 2022)", factor: dateFactors.outside }]);
  });
});

describe("dateFactorOf", () => {
  const july = [{ since: new Date(2023, 6, 1).getTime(), until: new Date(2023, 7, 1).getTime() - 1, applied: true }];
  const at = (month: number, date: number) => new Date(2023, month - 1, date, 12).getTime();
  test("inside a range 1, within the range's length of it 0.8, further away 0.3; a session overlapping it counts as inside", () => {
    expect(dateFactorOf(at(7, 14), at(7, 14), july)).toBe(dateFactors.inRange);
    expect(dateFactorOf(at(8, 3), at(8, 3), july)).toBe(dateFactors.near);
    expect(dateFactorOf(at(3, 1), at(3, 1), july)).toBe(dateFactors.outside);
    expect(dateFactorOf(at(6, 28), at(7, 2), july)).toBe(dateFactors.inRange);
  });
  test("dates that were not applied change nothing", () => {
    expect(dateFactorOf(at(3, 1), at(3, 1), [{ ...july[0]!, applied: false }])).toBe(1);
  });
});
