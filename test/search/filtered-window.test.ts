import { afterAll, beforeAll, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { searchIndex, type SessionResult, type TurnResult } from "../../src/search/index.ts";
import type { SearchFilters } from "../../src/search/listing/filters.ts";
import { windowDocumentsSql, windowSessionsSql } from "../../src/search/ranking/lexical.ts";
import { fillerText, writeClaudeSession } from "../helpers/claude-writer.ts";

// The keyword leg ranks a window of the best documents (8 per wanted candidate: 800 for a search's 100 candidates),
// then applies the filters. When every document of the window is filtered out, the window must grow until the filter's
// sessions are found: here 1,000 short turns of project "loud" say "kiln" more often than project "quiet"'s one long
// turn, so a search filtered to "quiet" finds nothing in the first window.
const work = mkdtempSync(join(tmpdir(), "recall-filtered-window-"));
let db: Database;
const quiet = "99999999-0000-4000-8000-000000000009";

beforeAll(async () => {
  writeClaudeSession(join(work, "claude", "projects", "-home-u-loud", "11111111-0000-4000-8000-000000000001.jsonl"), {
    sessionId: "11111111-0000-4000-8000-000000000001",
    cwd: "/home/u/loud",
    turns: Array.from({ length: 1000 }, (_, i) => ({ prompt: `kiln kiln ${i}`, response: "kiln" })),
  });
  writeClaudeSession(join(work, "claude", "projects", "-home-u-quiet", `${quiet}.jsonl`), {
    sessionId: quiet,
    cwd: "/home/u/quiet",
    turns: [{ prompt: `${fillerText(1, 60)} kiln ${fillerText(2, 60)}`, response: fillerText(3, 80) }],
  });
  const home = join(work, "home");
  const summary = await runIndex({ recallHome: home, roots: { "claude-code": [join(work, "claude")], opencode: [] } });
  expect(summary.failedUnits).toBe(0);
  db = openIndex(databasePath(home), { readonly: true });
}, 60_000);
afterAll(() => {
  db?.close();
  rmSync(work, { recursive: true, force: true });
});

test("a project filter whose sessions lie outside the first window still finds them, at both levels", async () => {
  const sessions = await searchIndex(db, {
    query: "kiln",
    level: "session",
    filters: { project: "quiet" },
    mode: "keyword",
  });
  expect((sessions.results as SessionResult[]).map((result) => result.sessionId)).toEqual([quiet]);
  const turns = await searchIndex(db, { query: "kiln", level: "turn", filters: { project: "quiet" }, mode: "keyword" });
  expect((turns.results as TurnResult[]).map((result) => `${result.sessionId}#${result.turn}`)).toEqual([`${quiet}#1`]);
});

test("the window's sessions are kept by the default filters from an index alone (schema v22), not their rows", () => {
  const plan = (filters: SearchFilters) => {
    const { sql, params } = windowSessionsSql(filters);
    return db
      .query<{ detail: string }, Array<string | number>>(`EXPLAIN QUERY PLAN ${sql}`)
      .all("[1, 2]", ...params)
      .map((row) => row.detail)
      .join(" | ");
  };
  expect(plan({})).toContain("COVERING INDEX sessions_subagent_by_id");
  // other filters read the session rows, and still answer
  expect(plan({ project: "quiet" })).not.toContain("COVERING INDEX");
  const kept = (filters: SearchFilters) => {
    const { sql, params } = windowSessionsSql(filters);
    return db
      .query<{ id: number }, Array<string | number>>(sql)
      .all("[1, 2, 3]", ...params)
      .map((row) => row.id);
  };
  const quietRowid = db.query<{ id: number }, [string]>("SELECT id FROM sessions WHERE session_id = ?").get(quiet)!.id;
  expect(kept({})).toEqual([1, 2]); // both sessions are main sessions; rowid 3 is none
  expect(kept({ project: "quiet" })).toEqual([quietRowid]);
});

test("the window's documents are read from the narrow index documents_window (schema v23), in id order", () => {
  for (const level of ["session", "turn"] as const) {
    const plan = db
      .query<{ detail: string }, [string]>(`EXPLAIN QUERY PLAN ${windowDocumentsSql(level)}`)
      .all("[1, 2]")
      .map((row) => row.detail)
      .join(" | ");
    expect(plan).toContain("COVERING INDEX documents_window");
    expect(plan).not.toContain("TEMP B-TREE");
  }
  const ids = db.query<{ id: number }, []>("SELECT id FROM documents ORDER BY id DESC LIMIT 3").all();
  const window = [ids[1]!.id, 999_999, ids[0]!.id, ids[2]!.id]; // best first; one id no document has
  const rows = db.query<{ document_id: number }, [string]>(windowDocumentsSql("session")).all(JSON.stringify(window));
  // ascending ids, whatever the window's order: the index read page after page
  expect(rows.map((row) => row.document_id)).toEqual([ids[2]!.id, ids[1]!.id, ids[0]!.id]);
});
