/**
 * Issue 38, items 2 and 3: the "No confident match" line says why from the first result's own evidence, so it never
 * contradicts `--explain`; and the words of a date the query names count by the result's date, not its text ("what
 * did we do last week" over a history with nothing from then is no confident match, however often a session says
 * "last week"). Sessions are Claude Code JSONL at fixed dates, indexed by the real indexer and searched through the
 * real search API, CLI and renderers, with a fixed "now".
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { noConfidentMatch } from "../../src/render/search.ts";
import { explainResponse } from "../../src/render/search-explain.ts";
import { searchIndex, type SessionResult } from "../../src/search/index.ts";
import { fillerText, writeClaudeSession } from "../helpers/claude-writer.ts";
import { runCli } from "../helpers/cli.ts";

const work = mkdtempSync(join(tmpdir(), "recall-confidence-evidence-"));
const claude = join(work, "claude");
const home = join(work, "home");
const now = Date.UTC(2026, 10, 28, 12); // Saturday 28 Nov 2026: "last week" is 16–22 Nov
let db: Database;

const ids = ["1", "2", "3", "4", "5", "6"].map((n) => `${n.repeat(8)}-0000-4000-8000-${n.repeat(12)}`);

beforeAll(async () => {
  mkdirSync(join(work, "none"));
  const write = (n: number, startMs: number, turns: Array<{ prompt: string; response: string }>) =>
    writeClaudeSession(join(claude, "projects", `-home-u-p${n}`, `${ids[n]}.jsonl`), {
      sessionId: ids[n]!,
      cwd: `/home/u/p${n}`,
      startMs,
      turns,
    });
  // In April 2026, about the postgres schema, and never saying "april".
  write(0, Date.UTC(2026, 3, 14), [
    {
      prompt: "migrate the postgres schema to add a tenants table",
      response: "Added the tenants table and a foreign key.",
    },
  ]);
  // In October, says "last week" and "what did we do" in its text.
  write(1, Date.UTC(2026, 9, 2), [
    {
      prompt: "summarize what did we do last week on the billing service",
      response: "Last week we moved the billing cron to a queue worker.",
    },
  ]);
  // An unrelated filler session, in September, that mentions postgres once.
  write(2, Date.UTC(2026, 8, 3), [
    { prompt: `check the postgres logs ${fillerText(2, 6)}`, response: fillerText(3, 30) },
  ]);
  for (let n = 3; n < 6; n++)
    write(n, Date.UTC(2026, 7, n), [
      { prompt: `refactor the module ${fillerText(n, 8)}`, response: fillerText(n + 10, 30) },
    ]);
  const summary = await runIndex({ recallHome: home, roots: { "claude-code": [claude], opencode: [] } });
  expect(summary.failedUnits).toBe(0);
  db = openIndex(databasePath(home), { readonly: true });
});
afterAll(() => {
  db?.close();
  rmSync(work, { recursive: true, force: true });
});

const search = (query: string, at = now) =>
  searchIndex(db, { query, level: "session", filters: {}, mode: "keyword", limit: 5, now: at });

describe("date words count by the result's date (issue 38, item 3)", () => {
  test("a query of only date words whose date matched nothing is no confident match, and the line says so", async () => {
    const response = await search("what did we do last week");
    expect(response.dates).toMatchObject([{ text: "last week", applied: false }]);
    // Before: the October session that says "last week" was a confident 0.98 match.
    expect((response.results[0] as SessionResult).sessionId).toBe(ids[1]!);
    expect(response.confident).toBe(false);
    expect(response.results.every((result) => !result.confident && result.confidence === 0)).toBe(true);
    expect(noConfidentMatch(response)).toBe(
      "No confident match: nothing searched falls in the week of 16 Nov 2026, and the query names nothing else; the best candidates follow, marked weak.",
    );
  });

  test("when the date does match, a result inside it holds the date words", async () => {
    // Seen from 8 Oct 2026, "last week" is 28 Sep – 4 Oct and holds the session of 2 October.
    const response = await search("what did we do last week", Date.UTC(2026, 9, 8, 12));
    expect(response.dates[0]?.applied).toBe(true);
    const first = response.results[0] as SessionResult;
    expect(first.sessionId).toBe(ids[1]!);
    expect(first).toMatchObject({ confident: true, outsideDates: false, matchedTerms: ["last", "week"] });
  });

  test("a query of only date words lists what happened then, though no text says it (sessions and turns)", async () => {
    // Seen from Monday 20 April 2026, "last week" is 13–19 April: the postgres session of 14 April, which never says
    // "last week". Before, the only candidates were the sessions whose text holds the words (the October one), weak.
    const at = Date.UTC(2026, 3, 20, 12);
    const response = await search("what did we do last week", at);
    expect(response.dates).toMatchObject([{ applied: true }]);
    expect(response.results.map((result) => (result as SessionResult).sessionId)).toEqual([ids[0]!]);
    expect(response.confident).toBe(true);
    const turns = await searchIndex(db, {
      query: "what did we do last week",
      level: "turn",
      filters: {},
      mode: "keyword",
      limit: 5,
      now: at,
    });
    expect(turns.results.map((result) => [result.sessionId, (result as { turn: number }).turn])).toEqual([
      [ids[0]!, 1],
    ]);
    // The filters still hold: another project has nothing then, and the text hits stay, weak.
    const filtered = await searchIndex(db, {
      query: "what did we do last week",
      level: "session",
      filters: { project: "p1" },
      mode: "keyword",
      limit: 5,
      now: at,
    });
    expect(filtered.results.map((result) => (result as SessionResult).sessionId)).toEqual([ids[1]!]);
    expect(filtered.confident).toBe(false);
  });

  test("a named month that matched nothing does not cost the best result its confidence", async () => {
    // June holds no session and none near it: the date is not applied, and "june" must not count against the result.
    const plain = await search("postgres schema");
    const dated = await search("postgres schema in june");
    expect(dated.dates).toMatchObject([{ applied: false }]);
    const [best, bestDated] = [plain.results[0] as SessionResult, dated.results[0] as SessionResult];
    expect(bestDated.sessionId).toBe(best.sessionId);
    expect(bestDated.sessionId).toBe(ids[0]!);
    expect(bestDated.confident).toBe(true);
    expect(bestDated.confidence).toBeCloseTo(best.confidence, 6);
    expect(bestDated.missingTerms).toEqual([]);
  });

  test("a named month that matched counts as held inside it: the April session is confident without saying april", async () => {
    const response = await search("postgres schema in april");
    expect(response.dates).toMatchObject([{ label: "April 2026", applied: true }]);
    const first = response.results[0] as SessionResult;
    expect(first.sessionId).toBe(ids[0]!);
    expect(first).toMatchObject({
      confident: true,
      outsideDates: false,
      matchedTerms: ["postgres", "schema", "april"],
    });
    const outside = (response.results as SessionResult[]).find((result) => result.sessionId === ids[2]!);
    expect(outside).toMatchObject({ outsideDates: true, missingTerms: ["schema"] });
    expect(outside?.matchedTerms).toEqual(["postgres"]);
  });
});

describe("the no-confident-match line agrees with --explain (issue 38, item 2)", () => {
  test("it names what the first result holds and lacks, the same words --explain gives as held and missing", async () => {
    const response = await search("postgres logs zanzibar");
    expect(response.confident).toBe(false);
    const [explained] = explainResponse(response);
    expect(explained).toMatchObject({ terms_held: ["postgres", "logs"], terms_missing: ["zanzibar"] });
    expect(noConfidentMatch(response)).toBe(
      "No confident match: the first result holds postgres, logs but not zanzibar; the best candidates follow, marked weak.",
    );
  });

  test("a first result outside an applied date says it does not fall in it", async () => {
    // The refactoring sessions are from early August: near September, not in it; September holds only the postgres one.
    const response = await search("refactor module in september");
    expect(response.dates).toMatchObject([{ label: "September 2026", applied: true }]);
    const first = response.results[0] as SessionResult;
    expect(first).toMatchObject({ confident: false, outsideDates: true, matchedTerms: ["refactor", "module"] });
    expect(noConfidentMatch(response)).toBe(
      "No confident match: the first result holds refactor, module but does not fall in September 2026; the best candidates follow, marked weak.",
    );
  });

  test("the CLI prints the same line and --explain's confidence evidence", () => {
    const run = runCli(
      [
        "search",
        "postgres logs zanzibar",
        "--keyword-only",
        "--no-reindex",
        "--explain",
        "--claude-dir",
        claude,
        "--opencode-dir",
        join(work, "none"),
      ],
      { ...process.env, RECALL_HOME: home, HOME: work, NO_COLOR: "1" },
    );
    expect(run.exitCode).toBe(0);
    expect(run.stdout.toString()).toContain("the first result holds postgres, logs but not zanzibar");
    expect(run.stderr.toString()).toMatch(
      /explain 1\. 33333333-000 .*confidence 0\.\d\d \(holds postgres, logs; lacks zanzibar\)/,
    );
  });
});
