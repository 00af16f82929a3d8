import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../../src/index/index.ts";
import { knownProjectHistories } from "../../../src/index/plan/known-projects.ts";
import { forgetSessions } from "../../../src/index/store/forget.ts";
import { writeClaudeSession } from "../../helpers/claude-writer.ts";

// Aider keeps its history in the repository it ran in; recall reads that file at the root of every project folder the
// other agents' sessions name (known-projects.ts), found from the per-project session counts: a folder named by a
// Claude Code session counts, one named by no session or only by Aider's own does not, and a forgotten session's
// folder drops out.
const work = mkdtempSync(join(tmpdir(), "recall-known-projects-"));
const home = join(work, "home");
const claude = join(work, "claude");
const project = (name: string) => join(work, "repos", name);
const history = (name: string) => join(project(name), ".aider.chat.history.md");
const aiderChat = "# aider chat started at 2026-03-01 09:00:00\n\n#### fix the kiln\n\nDone: the kiln is fixed.\n";

beforeAll(async () => {
  for (const [i, name] of ["named", "forgotten"].entries())
    writeClaudeSession(join(claude, "projects", `-${name}`, `0000000${i}-0000-4000-8000-000000000000.jsonl`), {
      sessionId: `0000000${i}-0000-4000-8000-000000000000`,
      cwd: project(name),
      turns: [{ prompt: `work in ${name}`, response: "done" }],
    });
  for (const name of ["named", "forgotten", "unnamed"]) {
    mkdirSync(project(name), { recursive: true });
    writeFileSync(history(name), aiderChat);
  }
  mkdirSync(project("no-history"), { recursive: true });
  expect((await runIndex({ recallHome: home, roots: { "claude-code": [claude], opencode: [] } })).failedUnits).toBe(0);
}, 60_000);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const known = () => {
  const db = openIndex(databasePath(home), { readonly: true });
  try {
    return knownProjectHistories(db, "aider", ".aider.chat.history.md");
  } finally {
    db.close();
  }
};

describe("the project folders other agents' sessions name (known-projects.ts)", () => {
  test("the history files at the roots of the folders Claude Code's sessions name, and no other", () => {
    expect(known()).toEqual([history("forgotten"), history("named")]);
  });

  test("a folder whose sessions are all forgotten drops out", async () => {
    const db = openIndex(databasePath(home), { readonly: true });
    const rowid = db
      .query<{ id: number }, [string]>("SELECT id FROM sessions WHERE source = 'claude-code' AND project_path = ?")
      .get(project("forgotten"))!.id;
    db.close();
    await forgetSessions(home, [rowid]);
    expect(known()).toEqual([history("named")]);
  });
});
