/**
 * `recall forget <parent>` takes the parent's sub-agent sessions with it, and `recall forget --undo <parent>` must
 * bring them back too (issue 26: only the parent's tombstone was removed, so the next index left its sub-agents out
 * for good). Runs the real CLI on a copy of the Claude Code fixture home, whose session 11111111… has two sub-agents.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import { repo, runCli } from "../helpers/cli.ts";
import { restoreResumeStateColumn } from "../helpers/old-schema.ts";

const work = mkdtempSync(join(tmpdir(), "recall-forget-subagents-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const parent = "11111111-1111-4111-8111-111111111111";
const subagents = ["agent-a0123456789abcdef", "agent-acompact-00aa"];

/** A home of its own with a copy of the fixture's Claude Code projects; returns the CLI runner for it. */
function newHome(name: string) {
  const home = join(work, name);
  const projects = join(home, "claude");
  cpSync(join(repo, "test/fixtures/claude-code/dot-claude/projects"), projects, { recursive: true });
  mkdirSync(join(home, "none"));
  const recall = (args: string[]) => {
    const env: Record<string, string | undefined> = { ...process.env, HOME: home, RECALL_HOME: join(home, "recall") };
    for (const key of sourceLocationVariables) delete env[key];
    const result = runCli([...args, "--claude-dir", projects, "--opencode-dir", join(home, "none")], env);
    return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
  };
  const listed = () =>
    JSON.parse(recall(["sessions", "--json", "--include-subagents", "--include-empty", "--limit", "all"]).stdout)
      .sessions.map((session: { session_id: string }) => session.session_id)
      .filter((id: string) => id === parent || subagents.includes(id))
      .sort();
  return { home, recall, listed };
}

describe("forget --undo brings back the sub-agent sessions forgotten with their parent (issue 26)", () => {
  test("forget a parent with its sub-agents, undo the parent, index: all three are back", () => {
    const { recall, listed } = newHome("undo");
    expect(recall(["index", "--keyword-only"]).code).toBe(0);
    const all = [parent, ...subagents].sort();
    expect(listed()).toEqual(all);

    const forgot = JSON.parse(recall(["forget", parent, "--json"]).stdout);
    expect(forgot.version).toBe(1); // as every other --json (issue 38, item 20)
    expect(forgot.forgotten.map((session: { session_id: string }) => session.session_id).sort()).toEqual(all);
    expect(recall(["index", "--keyword-only"]).code).toBe(0);
    expect(listed()).toEqual([]);

    const undo = recall(["forget", "--undo", parent, "--json"]);
    expect(undo.code).toBe(0);
    expect(JSON.parse(undo.stdout).version).toBe(1);
    expect(JSON.parse(undo.stdout).unforgotten).toHaveLength(3);
    expect(JSON.parse(undo.stdout).unforgotten).toEqual(
      expect.arrayContaining([
        { session_id: parent, source: "claude-code", parent_session_id: null },
        ...subagents.map((id) => ({ session_id: id, source: "claude-code", parent_session_id: parent })),
      ]),
    );
    expect(recall(["index", "--keyword-only"]).code).toBe(0);
    expect(listed()).toEqual(all);
  });

  test("the text says how many came back and names each sub-agent's parent", () => {
    const { recall } = newHome("undo-text");
    expect(recall(["index", "--keyword-only"]).code).toBe(0);
    expect(recall(["forget", parent]).code).toBe(0);
    const undo = recall(["forget", "--undo", parent]);
    expect(undo.stdout).toContain("3 sessions are no longer forgotten");
    for (const id of subagents) expect(undo.stdout).toContain(`${id}  claude-code  (sub-agent of ${parent})`);
  });

  test("an index of schema 8 gets the tombstones' parent column when opened (its older tombstones name none)", () => {
    const { home, recall } = newHome("upgrade");
    expect(recall(["index", "--keyword-only"]).code).toBe(0);
    const path = join(home, "recall", "index.sqlite");
    const db = new Database(path);
    restoreResumeStateColumn(db);
    db.exec("ALTER TABLE forgotten DROP COLUMN parent_session_id; PRAGMA user_version = 8");
    db.close();
    expect(recall(["forget", parent]).code).toBe(0);
    const reopened = new Database(path, { readonly: true });
    const rows = reopened
      .query<{ session_id: string; parent_session_id: string | null }, []>(
        "SELECT session_id, parent_session_id FROM forgotten ORDER BY session_id",
      )
      .all();
    reopened.close();
    expect(rows).toEqual([
      { session_id: parent, parent_session_id: null },
      ...subagents.map((id) => ({ session_id: id, parent_session_id: parent })),
    ]);
  });
});
