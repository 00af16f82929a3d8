import { describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { opencodeParser } from "../../src/parsers/opencode.ts";
import type { ParseResult, SourceUnit } from "../../src/parsers/types.ts";

const fixtures = resolve(import.meta.dir, "../fixtures/opencode");
const storage = join(fixtures, "json-storage", "storage");
const legacy = join(fixtures, "legacy", "project", "prj_old", "storage");

function listFixtureUnits(root: string, warnings: string[] = []): SourceUnit[] {
  const { containers } = opencodeParser.scan([root]);
  return opencodeParser.listUnits(containers, { onWarning: (message) => warnings.push(message) });
}

function parseSession(root: string, sessionId: string, withOutputs = false): ParseResult {
  const unit = listFixtureUnits(root).find((candidate) => candidate.sessionId === sessionId);
  if (!unit) throw new Error(`fixture session ${sessionId} not listed`);
  return opencodeParser.parse(unit, { withOutputs });
}

describe("OpenCode JSON storage (formats.md §2.2)", () => {
  test("lists one unit per readable session file and warns about the broken one", () => {
    const warnings: string[] = [];
    const units = listFixtureUnits(join(fixtures, "json-storage"), warnings);
    expect(units.map((unit) => unit.sessionId).sort()).toEqual(["ses_child", "ses_main", "ses_shared"]);
    expect(units.find((unit) => unit.sessionId === "ses_main")?.key).toBe(`${storage}#ses_main`);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("ses_broken.json");
  });

  test("a user prompt with an aborted try and a retry is one turn; reasoning and synthetic text stay out", () => {
    const { turns } = parseSession(storage, "ses_main");
    expect(turns).toHaveLength(2);
    expect(turns[0]?.prompt).toBe("Fix the failing test in parser.ts");
    expect(turns[0]?.response).toBe("Let me look at the parser first.\n\nFound it: the fixture path was wrong.");
    expect(turns[0]?.timestamp).toBe(1100);
    expect(JSON.stringify(turns)).not.toContain("SECRET-REASONING");
  });

  test("a user's shell run and a compaction fold into the previous turn without adding the summary text", () => {
    const { turns } = parseSession(storage, "ses_main");
    expect(turns[0]?.toolCalls.map((call) => call.name)).toEqual(["Read", "Edit", "Bash", "Task", "Bash"]);
    expect(turns[0]?.toolCalls.at(-1)?.input).toBe("ls");
    expect(JSON.stringify(turns)).not.toContain("COMPACTION-SUMMARY");
  });

  test("ignored text parts are not part of the prompt", () => {
    const { turns } = parseSession(storage, "ses_main");
    expect(turns[1]?.prompt).toBe("Now run the tests");
    expect(turns[1]?.response).toBe("All green.");
  });

  test("tool parts become normalized calls with file paths, line counts and error flags", () => {
    const [read, edit, bash, task] = parseSession(storage, "ses_main").turns[0]?.toolCalls ?? [];
    expect(read).toEqual({
      name: "Read",
      input: "/home/dev/app/pkg/parser.ts",
      filePath: "/home/dev/app/pkg/parser.ts",
      isError: false,
    });
    expect(edit).toMatchObject({
      name: "Edit",
      filePath: "/home/dev/app/pkg/parser.ts",
      linesAdded: 1,
      linesRemoved: 2,
      isError: false,
    });
    expect(bash).toMatchObject({ name: "Bash", input: "bun test parser", isError: true });
    expect(task).toMatchObject({ name: "Task", input: "Explore parser tests" });
    expect(parseSession(storage, "ses_main").turns[0]?.files).toEqual(["/home/dev/app/pkg/parser.ts"]);
  });

  test("unknown tools such as MCP tools keep their own name", () => {
    expect(parseSession(storage, "ses_main").turns[1]?.toolCalls[0]).toMatchObject({
      name: "github_create_issue",
      input: "Flaky parser test",
    });
  });

  test("outputs are attached only with withOutputs, errors as the output of failed calls", () => {
    expect(parseSession(storage, "ses_main").turns[0]?.toolCalls[0]?.output).toBeUndefined();
    const calls = parseSession(storage, "ses_main", true).turns[0]?.toolCalls ?? [];
    expect(calls[0]?.output).toBe("export function parse() {}");
    expect(calls[2]?.output).toBe("exit code 1: 2 failing");
  });

  test("ids come from file paths, not from the JSON content", () => {
    // msg_003.json claims id msg_WRONG_ID_IN_CONTENT and session ses_other; its parts still attach by path.
    const { turns } = parseSession(storage, "ses_main");
    expect(turns[0]?.response).toContain("Found it");
  });

  test("non-JSON message and part files are counted as skipped, not thrown", () => {
    const { skipped, bytesRead } = parseSession(storage, "ses_main");
    expect(skipped.count).toBe(2);
    expect(skipped.first).toMatch(/msg_010\.json|prt_009c\.json/);
    expect(bytesRead).toBeGreaterThan(1000);
  });

  test("the session record carries directory, title, times and location", () => {
    const { session } = parseSession(storage, "ses_main");
    expect(session).toEqual({
      id: "ses_main",
      source: "opencode",
      projectPath: "/home/dev/app/pkg",
      projectName: "pkg",
      gitBranch: null,
      startedAt: 1000,
      endedAt: 4200,
      title: "Fix the parser test",
      abstract: [{ source: "compaction", text: "COMPACTION-SUMMARY of the conversation so far", at: 3001 }],
      turnCount: 2,
      parentSessionId: null,
      isSubagent: false,
      location: storage,
    });
  });

  test("a sub-agent session is its own session linked to its parent, with sub-agent turns", () => {
    const { session, turns } = parseSession(storage, "ses_child");
    expect(session.parentSessionId).toBe("ses_main");
    expect(session.isSubagent).toBe(true);
    expect(turns).toHaveLength(1);
    expect(turns[0]).toMatchObject({ prompt: "Find the parser tests", response: "3 tests found.", isSubagent: true });
    expect(turns[0]?.toolCalls[0]).toMatchObject({ name: "Glob", input: "**/*.test.ts /home/dev/app" });
  });
});

describe("OpenCode legacy 0.5.x layout (formats.md §2.3)", () => {
  test("the project storage folder is found from the data root and lists its session", () => {
    const units = listFixtureUnits(join(fixtures, "legacy"));
    expect(units.map((unit) => unit.key)).toEqual([`${legacy}#ses_legacy`]);
  });

  test("assistant messages without parentID join the latest user turn", () => {
    const { turns } = parseSession(join(fixtures, "legacy"), "ses_legacy");
    expect(turns.map((turn) => [turn.prompt, turn.response])).toEqual([
      ["How do surface codes work?", "They encode a logical qubit in a lattice."],
      ["Thanks, and the threshold?", "About one percent."],
    ]);
    expect(turns[0]?.toolCalls[0]).toMatchObject({ name: "WebFetch", input: "https://example.org/surface" });
  });

  test("the project path comes from the assistant's recorded cwd when the session has no directory", () => {
    const { session } = parseSession(join(fixtures, "legacy"), "ses_legacy");
    expect(session).toMatchObject({
      projectPath: "/home/old/quantum",
      projectName: "quantum",
      title: "Legacy session",
      startedAt: 100,
      location: legacy,
    });
  });
});
