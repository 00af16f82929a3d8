/**
 * Issue 42: a keyword search under filters that keep few sessions ranks only the documents of those sessions
 * (search/ranking/document-mask.ts) once its first window comes back short, instead of growing the window through
 * every match. Checked on a generated history of 30 projects × 4 sessions × 5 turns, one session a day
 * (test/helpers/filtered-history.ts):
 *   - the masked ranking is the unmasked ranking of every match with the other documents taken out, ids and ranks;
 *   - a level-1 search answers what ranking every match and filtering them all answers (the window of 80 documents then
 *     holds every document of a filter's sessions), for hundreds of queries and filters;
 *   - a level-2 search with dates keeps turns by their own time, never comes back short, and the writer made every
 *     session's range cover its turns' times (what the mask relies on).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { parseLexicalQuery, searchLexical, type LexicalHit } from "../../src/search/index.ts";
import { allowedDocuments, filtersNarrow } from "../../src/search/ranking/document-mask.ts";
import { rankedWindow } from "../../src/search/ranking/match-window.ts";
import { narrowingFilters, wordsOf, writeFilteredHistory } from "../helpers/filtered-history.ts";
import { randomStream } from "../helpers/ranking-corpus.ts";

const work = mkdtempSync(join(tmpdir(), "recall-document-mask-"));
const random = randomStream(42);
let db: Database;

beforeAll(async () => {
  writeFilteredHistory(join(work, "claude"), random);
  const home = join(work, "home");
  const summary = await runIndex({ recallHome: home, roots: { "claude-code": [join(work, "claude")] } });
  expect(summary.failedUnits).toBe(0);
  db = openIndex(databasePath(home), { readonly: true });
}, 120_000);
afterAll(() => {
  db?.close();
  rmSync(work, { recursive: true, force: true });
});

const someFilters = () => narrowingFilters(random);
const queries = Array.from({ length: 20 }, (_, n) => wordsOf(random, 1 + (n % 3)));
const hitKey = (hit: LexicalHit) => [hit.sessionRowid, hit.documentId, hit.turnNumber, hit.raw, hit.allTerms];

describe("issue 42: a filtered keyword search ranks only the documents its filters keep", () => {
  test("the masked ranking is the whole ranking with the other documents taken out (ids and ranks)", async () => {
    let compared = 0;
    for (const text of queries.slice(0, 8)) {
      const query = parseLexicalQuery(text);
      for (const every of [true, false]) {
        const match = every ? query.allTerms : query.anyTerm;
        const phrases = { phrases: query.terms, every };
        const all = await rankedWindow(db, match, -1, phrases);
        for (const filters of someFilters().slice(0, 10)) {
          const allowed = allowedDocuments(db, filters);
          const kept = all.filter((document) => allowed[document.id] === 255);
          expect(await rankedWindow(db, match, 25, phrases, undefined, allowed)).toEqual(kept.slice(0, 25));
          compared++;
        }
      }
    }
    expect(compared).toBe(160);
  });

  test("a level-1 search answers what ranking every match and filtering them all answers, for 1,200 queries and filters", async () => {
    let exact = 0;
    for (const text of queries) {
      const query = parseLexicalQuery(text);
      for (const filters of someFilters()) {
        expect(filtersNarrow(filters)).toBe(true);
        const found = await searchLexical(db, query, "session", filters, 10);
        // 1,000 candidates: the first window (8,000 documents) holds every match of this history, so no window is cut
        const everything = await searchLexical(db, query, "session", filters, 1000);
        expect(found.length).toBe(Math.min(10, everything.length));
        // when the filters keep no more documents than the first window (80) holds, no evidence is cut either
        if (allowedDocuments(db, filters).filter((byte) => byte === 255).length > 80) continue;
        expect(found.map(hitKey)).toEqual(everything.slice(0, found.length).map(hitKey));
        exact++;
      }
    }
    expect(exact).toBeGreaterThan(600);
  });

  test("a level-2 search with dates keeps turns by their own time and never comes back short", async () => {
    const turnTime = db.query<{ timestamp: number }, [number]>(
      "SELECT t.timestamp FROM documents d JOIN turns t ON t.session_rowid = d.session_rowid AND t.number = d.turn_number WHERE d.id = ?",
    );
    const matchingTurns = db.query<{ n: number }, [string, number, number]>(
      `SELECT count(*) AS n FROM documents_fts f JOIN documents d ON d.id = f.rowid JOIN turns t
         ON t.session_rowid = d.session_rowid AND t.number = d.turn_number
       WHERE documents_fts MATCH ? AND d.level = 'turn' AND t.timestamp >= ? AND t.timestamp <= ?`,
    );
    let checked = 0;
    for (const text of queries) {
      const query = parseLexicalQuery(text);
      for (const filters of someFilters().filter((filter) => filter.project === undefined)) {
        const since = filters.since ?? 0;
        const until = filters.until ?? Number.MAX_SAFE_INTEGER;
        const found = await searchLexical(db, query, "turn", filters, 10);
        for (const hit of found) {
          const { timestamp } = turnTime.get(hit.documentId)!;
          expect(timestamp >= since && timestamp <= until).toBe(true);
        }
        expect(found.length).toBe(Math.min(10, matchingTurns.get(query.anyTerm, since, until)!.n));
        checked++;
      }
    }
    expect(checked).toBe(720);
    const uncovered = db
      .query<{ n: number }, []>(
        `SELECT count(*) AS n FROM turns t JOIN sessions s ON s.id = t.session_rowid
         WHERE t.timestamp > 0 AND (t.timestamp < s.started_at OR t.timestamp > s.ended_at)`,
      )
      .get()!.n;
    expect(uncovered).toBe(0);
  });
});
