/**
 * Issue 42: the counts a cold search and an index run read (src/index/store/scope-counts.ts) equal counting the rows, after a first
 * index, a session whose project changes, a new sub-agent, a deleted file (kept), a forgotten session, and on an index
 * migrated from schema 15 (which had no counts).
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, unlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../../src/index/index.ts";
import { forgetSessions } from "../../../src/index/store/forget.ts";
import {
  projectKeySql,
  readDocumentCount,
  readScopeCounts,
  readSourceSessionCount,
} from "../../../src/index/store/scope-counts.ts";
import { writeClaudeSession } from "../../helpers/claude-writer.ts";

const work = mkdtempSync(join(tmpdir(), "recall-scope-counts-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const claude = join(work, "claude");
const home = join(work, "home");
const roots = { "claude-code": [claude], opencode: [join(import.meta.dir, "../../../examples/opencode")] };

/** A main session (and with `agent`, one sub-agent of it) in the project folder of `cwd`. */
function session(id: string, cwd: string, prompt: string, agent = false): string {
  const folder = join(claude, cwd.replace(/[^A-Za-z0-9]/g, "-"));
  const file = join(folder, `${id}.jsonl`);
  writeClaudeSession(file, {
    sessionId: id,
    cwd,
    turns: [
      { prompt, response: "done" },
      { prompt: "and", response: "ok" },
    ],
  });
  if (agent)
    writeClaudeSession(join(folder, id, "subagents", "agent-a1.jsonl"), {
      sessionId: id,
      cwd,
      turns: [{ prompt: `explore ${prompt}`, response: "found" }],
    });
  return file;
}

/** The counts read back and the same counts made from the rows, for every source and both sub-agent choices. */
function compare(): Array<{ case: string; kept: unknown; counted: unknown }> {
  const db = openIndex(databasePath(home), { readonly: true });
  try {
    const cases: Array<{ case: string; kept: unknown; counted: unknown }> = [];
    for (const source of [undefined, "claude-code", "opencode", "codex"])
      for (const includeSubagents of [false, true]) {
        const row = db
          .query<{ sessions: number; projects: number; sources: string | null }, [string | null, number]>(
            `SELECT count(*) AS sessions, count(DISTINCT ${projectKeySql("s")}) AS projects,
               group_concat(DISTINCT s.source) AS sources
             FROM sessions s WHERE (?1 IS NULL OR s.source = ?1) AND (?2 OR s.is_subagent = 0)`,
          )
          .get(source ?? null, includeSubagents ? 1 : 0)!;
        cases.push({
          case: `${source ?? "every source"}, sub-agents ${includeSubagents}`,
          kept: readScopeCounts(db, source, includeSubagents),
          counted: { sessions: row.sessions, projects: row.projects, sources: row.sources?.split(",").sort() ?? [] },
        });
      }
    for (const source of ["claude-code", "opencode", "codex"]) {
      const row = db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM sessions WHERE source = ?").get(source)!;
      cases.push({ case: `${source}: every session`, kept: readSourceSessionCount(db, source), counted: row.n });
    }
    const documents = db.query<{ n: number }, []>("SELECT count(*) AS n FROM documents").get()!.n;
    cases.push({ case: "documents", kept: readDocumentCount(db), counted: documents });
    return cases;
  } finally {
    db.close();
  }
}

const expectKeptEqualsCounted = () => {
  for (const entry of compare()) expect(entry.kept).toEqual(entry.counted);
};

describe("counts kept by triggers (schema 16)", () => {
  test("equal counting the rows through every kind of write", async () => {
    session("11111111-1111-4111-8111-111111111111", "C:\\Users\\me\\Vault", "fix the vault sync", true);
    session("22222222-2222-4222-8222-222222222222", "c:\\users\\me\\vault", "same folder, other case");
    const moving = session("33333333-3333-4333-8333-333333333333", "/home/me/shop", "cart refactor");
    const doomed = session("44444444-4444-4444-8444-444444444444", "/home/me/blog", "write the post");
    await runIndex({ recallHome: home, roots });
    const first = compare();
    expect(first.find((entry) => entry.case === "claude-code, sub-agents false")?.kept).toMatchObject({
      sessions: 4,
      projects: 3, // the two spellings of the Windows folder are one project
    });
    expectKeptEqualsCounted();

    // the same file now says another project, a new session with a sub-agent, a deleted file (kept, marked deleted)
    writeClaudeSession(moving, {
      sessionId: "33333333-3333-4333-8333-333333333333",
      cwd: "/home/me/store",
      turns: [{ prompt: "cart refactor, moved", response: "done" }],
    });
    session("55555555-5555-4555-8555-555555555555", "/home/me/shop", "add coupons", true);
    unlinkSync(doomed);
    await runIndex({ recallHome: home, roots, scan: "whole" });
    expectKeptEqualsCounted();

    const db = openIndex(databasePath(home), { readonly: true });
    const rowid = db
      .query<{ id: number }, []>("SELECT id FROM sessions WHERE session_id = '11111111-1111-4111-8111-111111111111'")
      .get()!.id;
    db.close();
    await forgetSessions(home, [rowid], { lockWaitMs: 0 });
    expectKeptEqualsCounted();
    expect(compare().find((entry) => entry.case === "every source, sub-agents false")?.kept).not.toEqual(
      first.find((entry) => entry.case === "every source, sub-agents false")?.kept,
    );
  });

  test("an index written by schema 15 gets its counts from the rows it holds", async () => {
    const old = new Database(databasePath(home));
    old.exec(`DROP TRIGGER session_counts_ai; DROP TRIGGER session_counts_ad; DROP TRIGGER session_counts_au;
      DROP TRIGGER document_count_ai; DROP TRIGGER document_count_ad;
      DROP TABLE session_counts; DROP TABLE document_count; PRAGMA user_version = 15;`);
    old.close();
    openIndex(databasePath(home)).close(); // migrates
    expectKeptEqualsCounted();
  });
});
