import { describe, expect, test } from "bun:test";
import { appendFileSync, copyFileSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SourceError } from "../../src/errors.ts";
import { claudeCodeParser, isTranscript, projectNameOf, unitForContainer } from "../../src/parsers/claude-code.ts";
import type { ParseOptions, ParseResult, SourceUnit } from "../../src/parsers/types.ts";

const fixtures = resolve(import.meta.dir, "../fixtures/claude-code");
const S1 = "11111111-1111-4111-8111-111111111111";
const S2 = "22222222-2222-4222-8222-222222222222";
const projA = join(fixtures, "dot-claude/projects/-home-dev-proj");
const projW = join(fixtures, "dot-claude/projects/C--Users-dev-win-proj");

function unitOf(path: string): SourceUnit {
  const stat = statSync(path);
  return unitForContainer({
    source: "claude-code",
    path,
    fingerprint: `${stat.size}:${stat.mtimeMs}`,
    sizeBytes: stat.size,
  });
}

function parseFixture(name: string, options: ParseOptions = {}): ParseResult {
  return claudeCodeParser.parse(unitOf(join(fixtures, name)), options);
}

describe("claude code fixtures", () => {
  test("split assistant lines merge by message id, parallel results pair by tool_use_id, thinking is dropped", () => {
    const { session, turns } = parseFixture("split-assistant.jsonl");
    expect(turns).toHaveLength(1);
    const [turn] = turns;
    expect(turn?.prompt).toBe("Why does the build fail?");
    expect(turn?.response).toBe("Let me look at the config.\n\nThe build fails because a module is missing.");
    expect(turn?.toolCalls.map((call) => [call.name, call.input, call.isError])).toEqual([
      ["Read", "/home/dev/proj/build.ts", false],
      ["Bash", "bun run build", true],
    ]);
    expect(turn?.files).toEqual(["/home/dev/proj/build.ts"]);
    expect(session.title).toBe("Fix the failing build");
    expect(session.projectPath).toBe("/home/dev/proj");
    expect(session.projectName).toBe("proj");
    expect(session.gitBranch).toBe("main");
    expect(session.startedAt).toBe(Date.parse("2026-03-01T10:00:01.000Z"));
    expect(session.endedAt).toBe(Date.parse("2026-03-01T10:00:09.000Z"));
    expect(session.isSubagent).toBe(false);
    expect(session.parentSessionId).toBeNull();
  });

  test("tool results: list content is joined, is_error is kept, outputs appear only with withOutputs", () => {
    const plain = parseFixture("tool-results.jsonl").turns[0];
    expect(plain?.toolCalls.map((call) => call.output)).toEqual([undefined, undefined, undefined, undefined]);
    const full = parseFixture("tool-results.jsonl", { withOutputs: true }).turns[0];
    expect(full?.prompt).toBe("List the files and grep for TODO");
    expect(full?.toolCalls.map((call) => [call.name, call.isError, call.output])).toEqual([
      ["Glob", false, "a.ts\nb.ts"],
      ["Grep", true, "Permission denied"],
      ["Edit", false, "ok"],
      ["mcp__github__get_issue", false, undefined],
    ]);
    expect(full?.toolCalls[2]).toMatchObject({ filePath: "/home/dev/proj/a.ts", linesAdded: 1, linesRemoved: 2 });
    expect(full?.response).toBe("Done: two files, grep was denied.");
  });

  test("meta lines, command output, interrupts and bash output are not prompts; slash commands and bash input start turns", () => {
    const { turns } = parseFixture("meta-and-commands.jsonl");
    expect(turns.map((turn) => turn.prompt)).toEqual([
      "/model sonnet",
      "! ls -la",
      "Summarise the README",
      "/init",
      "[image]",
    ]);
    expect(turns[2]?.response).toBe("The README explains setup.");
    expect(turns[3]?.response).toBe("I'll analyze the codebase.");
    expect(turns[4]?.response).toBe("");
  });

  test("a rewound branch stays searchable as a rewound turn, out of the main turns; the edited prompt is kept (issue 26)", () => {
    const { session, turns } = parseFixture("rewind-branch.jsonl");
    expect(turns.map((turn) => [turn.number, turn.prompt, turn.response])).toEqual([
      [1, "First question", "First answer"],
      [2, "Second question, edited", "Kept answer"],
      [-1, "Second question, first try", "Abandoned answer"],
    ]);
    expect(session.turnCount).toBe(2);
    expect(turns[1]?.toolCalls).toEqual([]);
    expect(turns[2]?.toolCalls.map((call) => [call.name, call.isError])).toEqual([["Write", false]]);
  });

  test("compaction is bridged and its summary is not a prompt", () => {
    const { turns } = parseFixture("compaction.jsonl");
    expect(turns.map((turn) => [turn.prompt, turn.response])).toEqual([
      ["Plan the migration", "Step one: back up."],
      ["Go on", "Step two: migrate."],
      ["Thanks", "You're welcome."],
    ]);
  });

  test("inline sidechain lines of a 1.0.x main file stay out of the main conversation", () => {
    const { session, turns } = parseFixture("inline-sidechain.jsonl");
    expect(turns).toHaveLength(1);
    expect(turns[0]?.response).toBe("foo is used in x.ts.");
    expect(turns[0]?.toolCalls.map((call) => [call.name, call.input])).toEqual([["Task", "Search foo"]]);
    expect(session.title).toBe("Delegated search");
    expect(session.isSubagent).toBe(false);
  });

  test("malformed lines are counted and skipped, never thrown", () => {
    const result = parseFixture("malformed-lines.jsonl");
    expect(result.turns.map((turn) => [turn.prompt, turn.response])).toEqual([["Hello", "Hi there"]]);
    expect(result.skipped.count).toBe(3);
    expect(result.skipped.first).toBe(`${join(fixtures, "malformed-lines.jsonl")}:2: not JSON`);
  });

  test("an empty file and a summary-only file are sessions without turns", () => {
    const empty = parseFixture("empty.jsonl");
    expect(empty.session.turnCount).toBe(0);
    expect(empty.turns).toEqual([]);
    expect(empty.session.projectPath).toBe("");
    const summaries = parseFixture("summary-only.jsonl");
    expect(summaries.session.turnCount).toBe(0);
    expect(summaries.session.title).toBe("Newest summary");
  });

  test("a missing file is a SourceError", () => {
    const path = join(fixtures, "does-not-exist.jsonl");
    const unit = unitForContainer({ source: "claude-code", path, fingerprint: "0:0", sizeBytes: 0 });
    expect(() => claudeCodeParser.parse(unit)).toThrow(SourceError);
  });

  test("persisted tool outputs are resolved from tool-results/ by file name", () => {
    const call = parseFixture("persisted-output.jsonl", { withOutputs: true }).turns[0]?.toolCalls[0];
    expect(call?.output).toBe("line 1\nline 2\nline 3 (full output)\n");
  });

  test("project names come from POSIX and Windows cwd paths", () => {
    expect(projectNameOf("/Users/x/proj")).toBe("proj");
    expect(projectNameOf("C:\\Users\\x\\proj")).toBe("proj");
    expect(projectNameOf("/a/b/")).toBe("b");
    expect(projectNameOf("")).toBe("");
  });
});

describe("claude code scan and units", () => {
  test("a .claude root yields every transcript and the prompt history, and no other side file", () => {
    const scan = claudeCodeParser.scan([join(fixtures, "dot-claude"), join(fixtures, "no-such-dir")]);
    expect(scan.missingRoots).toEqual([join(fixtures, "no-such-dir")]);
    expect(scan.containers.map((container) => container.path.slice(fixtures.length + 1))).toEqual([
      "dot-claude/history.jsonl", // prompt history: a container, never a transcript (test/parsers/prompt-history.test.ts)
      `dot-claude/projects/-home-dev-proj/${S1}.jsonl`,
      `dot-claude/projects/-home-dev-proj/${S1}/subagents/agent-a0123456789abcdef.jsonl`,
      `dot-claude/projects/-home-dev-proj/${S1}/subagents/agent-acompact-00aa.jsonl`,
      `dot-claude/projects/C--Users-dev-win-proj/${S2}.jsonl`,
      `dot-claude/projects/C--Users-dev-win-proj/agent-0000beef.jsonl`,
      `dot-claude/projects/C--Users-dev-win-proj/agent-1234abcd.jsonl`,
    ]);
    expect(scan.containers.filter(isTranscript)).toHaveLength(6);
    const container = scan.containers[1];
    // size : mtime : ctime : inode (ctime cannot be set from user space; issue 9)
    expect(container?.fingerprint).toMatch(/^\d+:\d+(\.\d+)?:\d+(\.\d+)?:\d+$/);
    expect(container?.sizeBytes).toBe(statSync(container?.path ?? "").size);
  });

  test("a projects folder, a project folder and a single file are roots too", () => {
    const paths = (roots: string[]) => claudeCodeParser.scan(roots).containers.map((container) => container.path);
    const all = paths([join(fixtures, "dot-claude")]);
    expect(paths([join(fixtures, "dot-claude", "projects")])).toEqual(all);
    expect(paths([projW])).toEqual(all.filter((path) => path.startsWith(projW)));
    expect(paths([join(projW, `${S2}.jsonl`)])).toEqual([join(projW, `${S2}.jsonl`)]);
    // The default root is `<config>/projects`: the history next to it is read too, and it may be given alone.
    expect(paths([join(fixtures, "dot-claude", "history.jsonl")])).toEqual([
      join(fixtures, "dot-claude", "history.jsonl"),
    ]);
  });

  test("a copy of the same .claude is deduplicated in listUnits and sub-agent ids never equal the parent's", () => {
    const copy = mkdtempSync(join(tmpdir(), "recall-cc-"));
    try {
      const file = join(copy, `${S2}.jsonl`);
      copyFileSync(join(projW, `${S2}.jsonl`), file);
      const scan = claudeCodeParser.scan([
        join(fixtures, "dot-claude"),
        copy,
        join(fixtures, "dot-claude", "projects"),
      ]);
      expect(scan.containers).toHaveLength(8); // 6 transcripts, their copy, the prompt history
      const units = claudeCodeParser.listUnits(scan.containers);
      expect(units).toHaveLength(6); // the history's only session has its transcript: no prompt-only duplicate
      expect(new Set(units.map((unit) => unit.sessionId)).size).toBe(6);
      const agent = units.find((unit) => unit.sessionId === "agent-a0123456789abcdef");
      expect(agent?.locator).toEqual({ isSubagent: true, agentKind: "task", parentFromPath: S1 });
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  test("a nested sub-agent is its own session linked to its parent, titled from meta.json", () => {
    const result = claudeCodeParser.parse(unitOf(join(projA, S1, "subagents/agent-a0123456789abcdef.jsonl")), {
      withOutputs: true,
    });
    expect(result.session).toMatchObject({
      id: "agent-a0123456789abcdef",
      isSubagent: true,
      parentSessionId: S1,
      title: "Explore repo",
    });
    expect(result.turns.map((turn) => [turn.prompt, turn.response, turn.isSubagent])).toEqual([
      ["Explore it", "It is a CLI.", true],
    ]);
    expect(result.turns[0]?.toolCalls[0]?.output).toBe("# README\nfull text\n");
  });

  test("an acompact agent counts only its own lines, not the copy of the parent conversation", () => {
    const result = claudeCodeParser.parse(unitOf(join(projA, S1, "subagents/agent-acompact-00aa.jsonl")));
    expect(result.turns.map((turn) => [turn.prompt, turn.response])).toEqual([
      ["Summarise the conversation so far. TEXT ONLY.", "<summary>Explored the repo.</summary>"],
    ]);
    expect(result.session.parentSessionId).toBe(S1);
    expect(result.resume).toBeUndefined();
  });

  test("flat agent files are sub-agent sessions; a Warmup agent has no turns", () => {
    const flat = claudeCodeParser.parse(unitOf(join(projW, "agent-1234abcd.jsonl")));
    expect(flat.session).toMatchObject({
      id: "agent-1234abcd",
      isSubagent: true,
      parentSessionId: S2,
      projectName: "win-proj",
      gitBranch: null,
    });
    expect(flat.turns.map((turn) => turn.prompt)).toEqual(["Review module x"]);
    const warmup = claudeCodeParser.parse(unitOf(join(projW, "agent-0000beef.jsonl")));
    expect(warmup.session.turnCount).toBe(0);
    expect(warmup.turns).toEqual([]);
  });

  test("the main session of a Windows project reports the project name from cwd and a detached HEAD as null", () => {
    const { session, turns } = claudeCodeParser.parse(unitOf(join(projW, `${S2}.jsonl`)));
    expect(session).toMatchObject({
      id: S2,
      projectPath: "C:\\Users\\dev\\win-proj",
      projectName: "win-proj",
      gitBranch: null,
      title: null,
    });
    expect(turns[0]?.toolCalls.map((call) => call.input)).toEqual(["Review module"]);
  });
});

describe("claude code transcripts without tree links (issue 11)", () => {
  test("lines without uuid form the linear conversation; an opening assistant line is a turn with an empty prompt", () => {
    const { session, turns, skipped } = parseFixture("no-uuid.jsonl");
    expect(skipped.count).toBe(0);
    expect(session.turnCount).toBe(3);
    expect(turns.map((turn) => [turn.number, turn.prompt, turn.response])).toEqual([
      [1, "", "Hello, I am ready to help with the zebra parser."],
      [2, "fix the walrus tokenizer", "Fixed the walrus tokenizer."],
      [3, "now add tests", "Added three tests."],
    ]);
  });

  test("appended uuid-less lines resume with the same turns as a full parse", () => {
    const dir = mkdtempSync(join(tmpdir(), "recall-cc-nouuid-"));
    try {
      const file = join(dir, "hand.jsonl");
      copyFileSync(join(fixtures, "no-uuid.jsonl"), file);
      const first = claudeCodeParser.parse(unitOf(file));
      const line = (type: string, content: unknown, id?: string) =>
        `${JSON.stringify({ type, sessionId: "hand", cwd: "/w/p", timestamp: "2026-01-01T10:02:00Z", message: { ...(id ? { id } : {}), role: type, content } })}\n`;
      appendFileSync(
        file,
        line("user", "and document the tokenizer") +
          line("assistant", [{ type: "text", text: "Documented it." }], "m3"),
      );
      const resumed = claudeCodeParser.parse(unitOf(file), { resume: first.resume });
      const full = claudeCodeParser.parse(unitOf(file));
      expect(resumed.bytesRead).toBeLessThan(full.bytesRead);
      expect(full.turns.at(-1)).toMatchObject({
        number: 4,
        prompt: "and document the tokenizer",
        response: "Documented it.",
      });
      expect(resumed.turns).toEqual(full.turns.slice(resumed.fromTurn - 1));
      expect(resumed.session.turnCount).toBe(4);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
