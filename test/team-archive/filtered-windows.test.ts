/**
 * Issue 42: the team archive ranks a search whose filters keep few sessions as local search does (keyword-rank.ts
 * allowedMatchTerms, archive-store.ts rankWindow): once its first window comes back short, only the documents of the
 * sessions the filters keep. The generated history of test/helpers/filtered-history.ts (30 projects × 4 sessions × 20
 * turns: more matches than a search's first window of 800 documents) is indexed with the real indexer, pushed to a real
 * PostgreSQL server the test starts, and searched in both with project and date filters, at levels 1 and 2: the same
 * sessions and turns in the same order, with the same confidence; and a project's search looks up two windows (the
 * first, then the masked one) where the window used to grow 4× to the whole match.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import type pg from "pg";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { type SearchFilters, searchIndex, type SessionResult, type TurnResult } from "../../src/search/index.ts";
import { type ArchiveConnection, openArchive, parseArchiveUrl } from "../../src/team-archive/connection.ts";
import { pushToArchive } from "../../src/team-archive/push.ts";
import { initArchive } from "../../src/team-archive/schema.ts";
import { searchArchive } from "../../src/team-archive/search.ts";
import { narrowingFilters, wordsOf, writeFilteredHistory } from "../helpers/filtered-history.ts";
import { randomStream } from "../helpers/ranking-corpus.ts";
import { type PostgresServer, postgresSkipReason, startPostgres } from "../helpers/postgres.ts";

const skipReason = postgresSkipReason();
if (skipReason) console.warn(`skipping the archive's filtered-window tests: ${skipReason}`);

const work = mkdtempSync(join(tmpdir(), "recall-archive-filtered-"));
const home = join(work, "home");
afterAll(() => rmSync(work, { recursive: true, force: true }));
const random = randomStream(7);

let server: PostgresServer;
let db: Database;
let archive: ArchiveConnection;

/** What an answer ranked: each result's session (and turn) and confidence to 4 places, in order. */
function ranking(results: ReadonlyArray<SessionResult | TurnResult>) {
  return results.map((result) => [
    result.sessionId,
    "turn" in result ? result.turn : null,
    Number(result.confidence.toFixed(4)),
  ]);
}

describe.skipIf(skipReason !== undefined)(
  "issue 42: the archive ranks narrowly filtered searches as local search",
  () => {
    beforeAll(async () => {
      writeFilteredHistory(join(work, "claude"), random, 20);
      const summary = await runIndex({ recallHome: home, roots: { "claude-code": [join(work, "claude")] } });
      expect(summary.failedUnits).toBe(0);
      // one turn whose agent recorded no time: it passes no date filter, in either store
      const writable = openIndex(databasePath(home));
      writable.run(
        `UPDATE turns SET timestamp = 0 WHERE number = 3 AND session_rowid =
           (SELECT id FROM sessions WHERE project_name = 'project-07' ORDER BY started_at LIMIT 1)`,
      );
      writable.close();
      db = openIndex(databasePath(home), { readonly: true });
      server = await startPostgres();
      archive = await openArchive(parseArchiveUrl(server.url()));
      await initArchive(archive, ["alpha"]);
      const pushed = await pushToArchive(db, archive, { origin: { machine: "laptop", osUser: "dev" }, team: "alpha" });
      expect(pushed.sent).toBe(120);
    }, 120_000);

    afterAll(async () => {
      await archive?.close();
      db?.close();
      await server?.stop();
    });

    test("project and date filters at both levels: the same results in the same order as local search", async () => {
      const filters = narrowingFilters(random);
      let compared = 0;
      for (let n = 0; n < 6; n++) {
        const query = wordsOf(random, 1 + (n % 3));
        for (const filter of filters.slice(n * 10, n * 10 + 10))
          for (const level of ["session", "turn"] as const) {
            const request = { query, level, filters: filter, limit: 10, mode: "keyword" as const };
            const local = await searchIndex(db, request);
            const remote = await searchArchive(archive, request);
            expect({ query, filter, level, ranking: ranking(remote.results) }).toEqual({
              query,
              filter,
              level,
              ranking: ranking(local.results),
            });
            if (local.results.length > 0) compared++;
          }
      }
      expect(compared).toBeGreaterThan(100);
    }, 120_000);

    test("a turn without a recorded time passes no date filter at level 2, in the archive as locally", async () => {
      const untimed = db
        .query<{ session_id: string; number: number; prompt: string }, []>(
          "SELECT s.session_id, t.number, t.prompt FROM turns t JOIN sessions s ON s.id = t.session_rowid WHERE t.timestamp = 0",
        )
        .get()!;
      const key = `${untimed.session_id}#${untimed.number}`;
      const found = async (filters: SearchFilters) => {
        const request = {
          query: untimed.prompt,
          level: "turn" as const,
          filters,
          limit: 100,
          mode: "keyword" as const,
        };
        const local = ((await searchIndex(db, request)).results as TurnResult[]).map((t) => `${t.sessionId}#${t.turn}`);
        const remote = ((await searchArchive(archive, request)).results as TurnResult[]).map(
          (t) => `${t.sessionId}#${t.turn}`,
        );
        expect(remote).toEqual(local);
        return local;
      };
      const forever = Date.now() + 365 * 86_400_000;
      expect(await found({ project: "project-07" })).toContain(key);
      expect(await found({ project: "project-07", until: forever })).not.toContain(key);
      expect(await found({ project: "project-07", since: 1 })).not.toContain(key);
      expect((await found({ project: "project-07", until: forever })).length).toBeGreaterThan(10);
    }, 60_000);

    test("a project's search looks up its first window, then only the project's 84 documents, not the whole match", async () => {
      const lookedUp: number[] = [];
      const counting: ArchiveConnection = {
        ...archive,
        query: async <Row extends pg.QueryResultRow>(sql: string, params?: unknown[]) => {
          const rows = await archive.query<Row>(sql, params);
          if (sql.includes("unnest(")) lookedUp.push(rows.length); // a window's positions looked up (keyword-rank.ts)
          return rows;
        },
      };
      const query = wordsOf(random, 2);
      const request = {
        query,
        level: "session" as const,
        filters: { project: "project-07" },
        mode: "keyword" as const,
      };
      const remote = await searchArchive(counting, request);
      expect(remote.results.length).toBe(4); // the project's four sessions
      expect(ranking(remote.results)).toEqual(ranking((await searchIndex(db, request)).results));
      // 4 sessions × (20 turn documents + 1 session document); the window that grew took every match (~1,400)
      expect(lookedUp.length).toBe(2);
      expect(lookedUp[0]).toBeGreaterThanOrEqual(800);
      expect(lookedUp[1]).toBeLessThanOrEqual(84);
    }, 60_000);
  },
);
