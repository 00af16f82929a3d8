/**
 * Issue 39, item 1: the team archive ranks through the one search pipeline (search/pipeline.ts) over its own store, so
 * its answers are local search's. The example history (sub-agent sessions included) is indexed with the real indexer,
 * pushed to a real PostgreSQL server the test starts, and searched in both, at levels 1 and 2, for queries built from
 * its own titles: plain, with a month that holds sessions ("… in March 2026": the date boost), with a month that holds
 * none, with sub-agent sessions included (the 0.85 down-rank), and a query of nothing but a date. Before, the archive
 * fused plain scores without the confident-keyword tier, the date boost or the down-rank, and its first result differed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { noConfidentMatch } from "../../src/render/search.ts";
import { monthNames } from "../../src/search/dates/calendar.ts";
import type { SearchFilters } from "../../src/search/listing/filters.ts";
import { searchIndex, type SessionResult, type TurnResult } from "../../src/search/index.ts";
import { type ArchiveConnection, openArchive, parseArchiveUrl } from "../../src/team-archive/connection.ts";
import { pushToArchive } from "../../src/team-archive/push.ts";
import { initArchive } from "../../src/team-archive/schema.ts";
import { searchArchive } from "../../src/team-archive/search.ts";
import { searchEverywhere } from "../../src/team-archive/everywhere.ts";
import { type PostgresServer, postgresSkipReason, startPostgres } from "../helpers/postgres.ts";
import { runCli } from "../helpers/cli.ts";

const skipReason = postgresSkipReason();
if (skipReason) console.warn(`skipping the one-pipeline archive tests: ${skipReason}`);

const repo = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "recall-one-pipeline-"));
const home = join(work, "home");
afterAll(() => rmSync(work, { recursive: true, force: true }));

let server: PostgresServer;
let db: Database;
let archive: ArchiveConnection;

/** What an answer ranked: each result's session (and turn), confidence to 4 places and mark, in order. */
function ranking(results: ReadonlyArray<SessionResult | TurnResult>) {
  return results.map((result) => [
    result.sessionId,
    "turn" in result ? result.turn : null,
    Number(result.confidence.toFixed(4)),
    result.confident,
  ]);
}

describe.skipIf(skipReason !== undefined)("the archive searches through the local pipeline (issue 39)", () => {
  beforeAll(async () => {
    const summary = await runIndex({
      recallHome: home,
      roots: { "claude-code": [join(repo, "examples/claude-code")], opencode: [join(repo, "examples/opencode")] },
    });
    expect(summary.failedUnits).toBe(0);
    db = openIndex(databasePath(home), { readonly: true });
    server = await startPostgres();
    archive = await openArchive(parseArchiveUrl(server.url()));
    await initArchive(archive, ["alpha"]);
    const pushed = await pushToArchive(db, archive, { origin: { machine: "laptop", osUser: "dev" }, team: "alpha" });
    expect(pushed.sent).toBeGreaterThan(5);
  }, 120_000);

  afterAll(async () => {
    await archive?.close();
    db?.close();
    await server?.stop();
  });

  /** Queries from the history's own titles: plain, in a month that holds sessions, in one that holds none, a date alone. */
  function queriesOfTitles(): string[] {
    const sessions = db
      .query<{ title: string; ended_at: number; is_subagent: number }, []>(
        "SELECT coalesce(title, '') AS title, ended_at, is_subagent FROM sessions WHERE ended_at > 0 ORDER BY id",
      )
      .all();
    expect(sessions.some((session) => session.is_subagent === 1)).toBe(true);
    const month = (ms: number) => `${monthNames[new Date(ms).getMonth()]} ${new Date(ms).getFullYear()}`;
    const held = month(sessions[0]!.ended_at);
    const topics = [
      ...new Set(
        sessions.map((session) =>
          session.title
            .split(/\s+/)
            .filter((word) => /^[a-z]{4,}$/i.test(word))
            .slice(0, 3)
            .join(" "),
        ),
      ),
    ].filter(Boolean);
    expect(topics.length).toBeGreaterThan(3);
    return [
      ...topics,
      ...topics.map((topic) => `${topic} in ${held}`),
      ...topics.slice(0, 3).map((topic) => `${topic} in June 2011`),
      `what did we do in ${held}`,
    ];
  }

  test("top 5 sessions and turns, their confidence and marks equal local search's, dates and sub-agents included", async () => {
    const queries = queriesOfTitles();
    const filterSets: SearchFilters[] = [{}, { includeSubagents: true }];
    let compared = 0;
    for (const query of queries)
      for (const filters of filterSets)
        for (const level of ["session", "turn"] as const) {
          const request = { query, level, filters, limit: 5, mode: "keyword" as const };
          const local = await searchIndex(db, request);
          const remote = await searchArchive(archive, request);
          expect({ query, filters, level, ranking: ranking(remote.results) }).toEqual({
            query,
            filters,
            level,
            ranking: ranking(local.results),
          });
          expect(remote.confident).toBe(local.confident);
          expect(noConfidentMatch(remote)).toBe(noConfidentMatch(local)); // the same reason, dates included
          expect(remote.dates.map((date) => [date.label, date.applied])).toEqual(
            local.dates.map((date) => [date.label, date.applied]),
          );
          if (local.results.length > 0) compared++;
        }
    expect(compared).toBeGreaterThan(queries.length);
  }, 120_000);

  test("--everywhere is the same pipeline over both stores: a copy ranks as the local session, an archive alone as the archive", async () => {
    const empty = join(work, "empty");
    await runIndex({ recallHome: empty, roots: { "claude-code": [], opencode: [] } });
    const nothingHere = openIndex(databasePath(empty), { readonly: true });
    try {
      let compared = 0;
      for (const query of queriesOfTitles())
        for (const level of ["session", "turn"] as const) {
          const request = { query, level, filters: { includeSubagents: true }, limit: 5, mode: "keyword" as const };
          // every archived session is a copy of one here: the local ones rank, each naming its archived copy
          const both = await searchEverywhere(db, archive, request, {});
          const local = await searchIndex(db, request);
          expect({ query, level, ranking: ranking(both.results) }).toEqual({
            query,
            level,
            ranking: ranking(local.results),
          });
          expect(both.results.every((result) => result.here && result.archived?.machine === "laptop")).toBe(true);
          // nothing here: the archive's answer, each result held there only
          const elsewhere = await searchEverywhere(nothingHere, archive, request, {});
          const remote = await searchArchive(archive, request);
          expect({ query, level, ranking: ranking(elsewhere.results) }).toEqual({
            query,
            level,
            ranking: ranking(remote.results),
          });
          expect(elsewhere.results.every((result) => !result.here && result.archived !== undefined)).toBe(true);
          if (local.results.length > 0) compared++;
        }
      expect(compared).toBeGreaterThan(5);
    } finally {
      nothingHere.close();
    }
  }, 120_000);

  test("--vector-only without a vector leg is local search's EMBEDDINGS_MISSING, and an alpha outside 0–1 its usage error", async () => {
    const request = { query: "docker", level: "session" as const, filters: {} };
    await expect(searchArchive(archive, { ...request, mode: "vector" })).rejects.toMatchObject({
      code: "EMBEDDINGS_MISSING",
    });
    await expect(searchArchive(archive, { ...request, alpha: 7 })).rejects.toMatchObject({ code: "USAGE" });
  }, 60_000);
});

describe("--archive takes local search's flags, checked before connecting (issue 39)", () => {
  const run = (args: string[]) =>
    runCli(["search", "docker", ...args], { ...process.env, RECALL_HOME: home, HOME: work });
  // Nothing listens on port 9: a search that connected first would exit 1 with a connection error.
  const unreachable = ["--archive-url", "postgresql://nobody@127.0.0.1:9/recall"];

  test("an alpha outside 0–1 is a usage error (exit 2), not a failed connection", () => {
    const alpha = run([...unreachable, "--alpha", "7"]);
    expect([alpha.exitCode, alpha.stderr.toString().trim()]).toEqual([
      2,
      "recall: --alpha must be between 0 and 1, got 7",
    ]);
  });
});
