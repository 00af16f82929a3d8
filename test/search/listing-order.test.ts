/**
 * Listings read newest first from the `sessions_listing` index (issue 42, schema v19): `recall sessions`, the MCP
 * recent tool, the picker's and the web view's lists. Checked on an index of 60 generated Claude Code sessions in four
 * projects and three branches, several ending at the same time: every filter and page lists exactly the sessions a plain
 * reading of all rows gives, in the same order; and the statements of a first page and its count read that index alone
 * (no sort of every session, no session row for the count).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import type { SearchFilters } from "../../src/search/listing/filters.ts";
import { countingSql, countSessions, listingSql, listSessions } from "../../src/search/listing/sessions.ts";
import { fillerText, writeClaudeSession } from "../helpers/claude-writer.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";

const tempDir = tempDirs("recall-listing-order-");
const projects = ["shop", "billing", "catalog", "infra"];
const branches = ["main", "fix/login", "feature/cart"];
let db: Database;

interface Row {
  session_id: string;
  source: string;
  project_path: string;
  project_name: string;
  git_branch: string | null;
  started_at: number;
  ended_at: number;
  turn_count: number;
  is_subagent: number;
}

beforeAll(async () => {
  const root = tempDir();
  const home = tempDir();
  const day = Date.UTC(2026, 5, 1);
  for (let n = 0; n < 60; n++) {
    const project = projects[n % projects.length]!;
    const sessionId = `${String(n).padStart(8, "0")}-1111-4111-8111-111111111111`;
    writeClaudeSession(join(root, `-home-dev-${project}`, `${sessionId}.jsonl`), {
      sessionId,
      cwd: `/home/dev/${project}`,
      gitBranch: branches[n % branches.length],
      // Every fifth session starts at the same time as the one before it with as many turns: equal end times.
      startMs: day + (n % 5 === 4 ? n - 1 : n) * 3_600_000,
      turns: Array.from({ length: 1 + (n % 5 === 4 ? (n - 1) % 3 : n % 3) }, (_, t) => ({
        prompt: `task ${n}.${t} ${fillerText(n + t, 6)}`,
        response: fillerText(n * 7 + t, 10),
      })),
    });
  }
  await runIndex({ recallHome: home, roots: { "claude-code": [root], opencode: [tempDir()] } });
  db = openIndex(databasePath(home), { readonly: true });
});

afterAll(() => db.close());

/** What a listing must give: every row that passes `keep`, newest first, ties by session id. */
function expected(keep: (row: Row) => boolean): string[] {
  return db
    .query<Row, []>("SELECT * FROM sessions")
    .all()
    .filter(keep)
    .sort((a, b) => b.ended_at - a.ended_at || (a.session_id < b.session_id ? -1 : a.session_id > b.session_id ? 1 : 0))
    .map((row) => row.session_id);
}

const cases: Array<[string, SearchFilters, (row: Row) => boolean]> = [
  ["the default listing", { hasTurns: true }, (row) => row.turn_count > 0 && row.is_subagent === 0],
  ["one project", { project: "billing", hasTurns: true }, (row) => row.project_name.includes("billing")],
  ["one branch", { branch: "fix/login", hasTurns: true }, (row) => row.git_branch === "fix/login"],
  ["one source", { source: "claude-code", hasTurns: true }, (row) => row.source === "claude-code"],
  ["a source with none", { source: "codex", hasTurns: true }, () => false],
  [
    "a time range",
    { since: Date.UTC(2026, 5, 1, 20), until: Date.UTC(2026, 5, 2, 12), hasTurns: true },
    (row) => row.ended_at >= Date.UTC(2026, 5, 1, 20) && row.started_at <= Date.UTC(2026, 5, 2, 12),
  ],
  ["with sub-agents", { includeSubagents: true }, () => true],
];

describe("listings newest first (issue 42, schema v19)", () => {
  test("every filter lists what a reading of all rows gives, page by page, ties by session id", () => {
    expect(
      new Set(
        db
          .query<{ e: number }, []>("SELECT ended_at AS e FROM sessions")
          .all()
          .map((r) => r.e),
      ).size,
    ).toBeLessThan(60);
    for (const [name, filters, keep] of cases) {
      const all = expected(keep);
      if (name !== "a source with none") expect(all.length, name).toBeGreaterThan(3);
      expect(
        listSessions(db, filters, -1).map((s) => s.sessionId),
        name,
      ).toEqual(all);
      expect(countSessions(db, filters), name).toBe(all.length);
      const pages = [0, 7, 14, 21, 28, 35, 42, 49, 56].flatMap((offset) =>
        listSessions(db, filters, 7, offset).map((s) => s.sessionId),
      );
      expect(pages, name).toEqual(all);
    }
  });

  test("a first page and its count read the listing index alone: no sort of every session, no session row counted", () => {
    const plan = (sql: string, params: Array<string | number>) =>
      db
        .query<{ detail: string }, Array<string | number>>(`EXPLAIN QUERY PLAN ${sql}`)
        .all(...params)
        .map((row) => row.detail)
        .join(" | ");
    for (const filters of [
      { hasTurns: true },
      { hasTurns: true, branch: "main" },
      { hasTurns: true, project: "shop" },
    ]) {
      const page = listingSql(filters, 21, 0);
      expect(plan(page.sql, page.params)).toContain("USING INDEX sessions_listing");
      expect(plan(page.sql, page.params)).not.toContain("TEMP B-TREE");
    }
    for (const filters of [{ hasTurns: true }, { hasTurns: false }]) {
      const count = countingSql(filters);
      expect(plan(count.sql, count.params)).toContain("COVERING INDEX sessions_listing");
    }
  });
});
