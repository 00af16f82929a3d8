/**
 * Grok CLI (issue 40): a database built from test/fixtures/grok-cli/grok.sql (SOURCE.md) read into a session and its
 * turns, the scan of a Grok home, and the whole path through the CLI from the agent's default folder.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { grokCliParser } from "../../src/parsers/grok-cli.ts";
import { parserFor, sourceInfo, type SourceUnit } from "../../src/parsers/index.ts";
import { runCli } from "../helpers/cli.ts";

const sql = readFileSync(join(import.meta.dir, "../fixtures/grok-cli/grok.sql"), "utf8");
const sessionId = "b3f1c6e2-7a4d-4e9b-8c15-2d6f0a9e4b71";
const work = mkdtempSync(join(tmpdir(), "recall-grok-cli-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** A Grok home `<dir>/.grok` whose grok.db holds the fixture (plus `extra` SQL). */
function grokHome(dir: string, extra = ""): string {
  const home = join(work, dir, ".grok");
  mkdirSync(home, { recursive: true });
  const db = new Database(join(home, "grok.db"), { create: true });
  db.exec(sql + extra);
  db.close();
  return home;
}

function unitsBelow(root: string, unavailable: string[] = []): SourceUnit[] {
  const scan = grokCliParser.scan([root]);
  return grokCliParser.listUnits(scan.containers, { onUnavailable: (_path, reason) => unavailable.push(reason) });
}

describe("grok-cli parse", () => {
  const home = grokHome("parse");
  const [unit] = unitsBelow(home);
  const result = grokCliParser.parse(unit!, { withOutputs: true });

  test("the session: id, title, project folder and times from its row; nothing skipped", () => {
    expect(unit!.key).toBe(`${join(home, "grok.db")}#${sessionId}`);
    expect(result.session).toMatchObject({
      id: sessionId,
      source: "grok-cli",
      projectPath: "/home/dev/projects/pdf-renamer",
      projectName: "pdf-renamer",
      gitBranch: null,
      title: "Fall back to first text line for untitled PDFs",
      turnCount: 2,
      isSubagent: false,
      startedAt: Date.parse("2026-04-09T08:31:11.870Z"),
      endedAt: Date.parse("2026-04-09T08:32:19.731Z"),
    });
    expect(result.skipped.count).toBe(0);
  });

  test("user messages are turns; text kept, reasoning left out; calls with results; usage on its message's turn", () => {
    const [first, second] = result.turns;
    expect(first!.prompt).toStartWith("rename.py crashes on scanned PDFs that have no title metadata.");
    expect(first!.timestamp).toBe(Date.parse("2026-04-09T08:31:12.402Z"));
    expect(first!.response).toStartWith("Let me look at how the title is extracted.\n\nThe fallback needs a helper");
    expect(first!.response).not.toContain("Need to see how");
    expect(first!.toolCalls.map((call) => [call.name, call.input, call.isError])).toEqual([
      ["Grep", "metadata.title src", false],
      ["Edit", "src/rename.py", false],
      ["Bash", "python -m pytest tests/test_rename.py -q", true],
    ]);
    expect(first!.toolCalls[2]!.output).toContain("NameError: name 'first_text_line' is not defined");
    const edit = first!.toolCalls[1]!;
    expect([edit.linesAdded, edit.linesRemoved, edit.change?.kind]).toEqual([2, 1, "edit"]);
    expect(first!.usage).toEqual([
      {
        model: "grok-4-1-fast-reasoning",
        input: 18422,
        output: 611,
        cacheRead: null,
        cacheWrite: null,
        costUsd: 0.00399,
      },
    ]);
    expect(second!.prompt).toBe("Yes, add it, and keep the whole thing under 80 characters per line.");
    expect(second!.response).toBe("Added first_text_line() in src/rename.py; the tests pass now.");
    expect(second!.usage?.map((entry) => entry.output)).toEqual([145]);
  });

  test("a message of an unknown role or part type that carries text is counted, not dropped; broken JSON too", () => {
    const extra = `
      INSERT INTO messages VALUES ('${sessionId}', 10, 'developer', '{"role":"developer","content":"a role recall does not know"}', '2026-04-09T08:33:00.000Z');
      INSERT INTO messages VALUES ('${sessionId}', 11, 'assistant', '{"role":"assistant","content":[{"type":"note","text":"a part recall does not know"}]}', '2026-04-09T08:33:01.000Z');
      INSERT INTO messages VALUES ('${sessionId}', 12, 'assistant', '{"role":', '2026-04-09T08:33:02.000Z');`;
    const parsed = grokCliParser.parse(unitsBelow(grokHome("unknown", extra))[0]!);
    expect(parsed.turns).toHaveLength(2);
    expect(Object.keys(parsed.skipped.reasons ?? {}).sort()).toEqual([
      "message role developer",
      "not a JSON object",
      "part type note",
    ]);
  });
});

describe("grok-cli abstract (issue 41)", () => {
  test("the compactions' summaries are the abstract, newest first; the session has none without them", () => {
    const extra = `
      INSERT INTO compactions (session_id, first_kept_seq, summary, tokens_before, created_at) VALUES
        ('${sessionId}', 4, 'PDF renamer: untitled PDFs need a fallback title.', 52000, '2026-04-09T08:32:00.000Z'),
        ('${sessionId}', 6, 'first_text_line() added; tests pass.', 61000, '2026-04-09T08:32:30.000Z');`;
    const parsed = grokCliParser.parse(unitsBelow(grokHome("compacted", extra))[0]!);
    expect(parsed.session.abstract).toEqual([
      {
        source: "compaction",
        text: "first_text_line() added; tests pass.",
        at: Date.parse("2026-04-09T08:32:30.000Z"),
      },
      {
        source: "compaction",
        text: "PDF renamer: untitled PDFs need a fallback title.",
        at: Date.parse("2026-04-09T08:32:00.000Z"),
      },
    ]);
    expect(parsed.turns.some((turn) => turn.response.includes("fallback title."))).toBe(false);
    expect(grokCliParser.parse(unitsBelow(grokHome("plain"))[0]!).session.abstract).toBeUndefined();
  });
});

describe("grok-cli scan", () => {
  test("a folder holding copies of Grok homes: each grok.db is a container; a session in two copies is one unit", () => {
    grokHome("copies/a");
    grokHome(
      "copies/b",
      `INSERT INTO messages VALUES ('${sessionId}', 10, 'user', '{"role":"user","content":"and docs"}', '2026-04-09T08:40:00.000Z');`,
    );
    const units = unitsBelow(join(work, "copies"));
    expect(units.map((unit) => [unit.sessionId, unit.containerPath.includes("/b/")])).toEqual([[sessionId, true]]);
  });

  test("a file that is no database is reported unavailable, not thrown", () => {
    const dir = join(work, "broken", ".grok");
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "grok.db"), "not sqlite at all, just text of some length to pass the size check");
    const unavailable: string[] = [];
    expect(unitsBelow(dir, unavailable)).toEqual([]);
    expect(unavailable).toEqual(["file is not a database"]);
  });

  test("default folder ~/.grok; resume is `grok --session <id>` in the project folder", () => {
    expect(sourceInfo("grok-cli").defaultRoots({}, "/home/ada")).toEqual(["/home/ada/.grok"]);
    expect(parserFor("grok-cli").resumeInvocation(sessionId, "/home/dev/projects/pdf-renamer")).toEqual({
      cwd: "/home/dev/projects/pdf-renamer",
      argv: ["grok", "--session", sessionId],
    });
  });
});

describe("grok-cli end to end", () => {
  const home = join(work, "e2e");
  grokHome("e2e");
  const recallHome = join(work, "e2e-recall");
  const env = { PATH: process.env.PATH, HOME: home, RECALL_HOME: recallHome, RECALL_OFFLINE: "1", NO_COLOR: "1" };
  const run = (args: string[]) => runCli(args, { ...env, RECALL_EMBED_HELPER: "off" });

  test("index, status, search --depth 2 (prompt, reply, tool call), show from the database and from recall's copy", () => {
    const indexed = run(["index", "--keyword-only"]);
    expect(indexed.exitCode).toBe(0);
    const status = run(["status"]).stdout;
    expect(status).toMatch(/grok-cli\s+1 session\s+2 turns/);
    const search = (query: string) => run(["search", query, "--depth", "2", "--keyword-only", "--no-reindex"]).stdout;
    expect(search("scanned PDFs title metadata")).toContain("Q: rename.py crashes on scanned PDFs");
    expect(search("first non-empty text line")).toContain("[grok-cli] turn=b3f1c6e2-7a4:1");
    expect(search("pytest")).toContain("tools: Grep, Edit, Bash");
    const fromDb = run(["show", "b3f1c6e2:1", "--no-reindex"]).stdout;
    expect(fromDb).toContain(`resume: cd /home/dev/projects/pdf-renamer && grok --session ${sessionId}`);
    expect(fromDb).toContain("src/rename.py:18:    title = reader.metadata.title.strip()");
    rmSync(join(home, ".grok"), { recursive: true });
    const fromCopy = run(["show", "b3f1c6e2:1", "--no-reindex"]);
    expect(fromCopy.exitCode).toBe(0);
    expect(fromCopy.stdout).toContain("[Bash] python -m pytest tests/test_rename.py -q");
    expect(fromCopy.stdout).toContain("shown from recall's archive");
  });
});
