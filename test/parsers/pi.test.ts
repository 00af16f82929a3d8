/**
 * pi (badlogic/pi-mono coding agent, issue 40): a session file reduced from pi-mono's own
 * `packages/coding-agent/test/fixtures/before-compaction.jsonl` (test/fixtures/pi/SOURCE.md) parsed into turns, the
 * branch pi resumes apart from a branch the user left, and the whole path through the CLI from `~/.pi/agent`.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { piParser } from "../../src/parsers/pi.ts";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import type { SourceUnit } from "../../src/parsers/types.ts";
import { runCli } from "../helpers/cli.ts";

const repo = resolve(import.meta.dir, "../..");
const fixture = join(repo, "test/fixtures/pi");
const sessionId = "ffae836b-9420-4060-ac13-7745215f90ff";
const work = mkdtempSync(join(tmpdir(), "recall-pi-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function units(roots: string[]): { units: SourceUnit[]; rejected: string[] } {
  const rejected: string[] = [];
  const listed = piParser.listUnits(piParser.scan(roots).containers, {
    onRejected: (path, reason) => rejected.push(`${path}: ${reason}`),
  });
  return { units: listed, rejected };
}

describe("pi session files", () => {
  const { units: listed } = units([fixture]);
  const parsed = piParser.parse(listed[0]!, { withOutputs: true });

  test("a copy of the agent folder gives one session named by its header, in its project, titled by /name", () => {
    expect(listed.map((unit) => unit.sessionId)).toEqual([sessionId]);
    expect(parsed.session).toMatchObject({
      id: sessionId,
      source: "pi",
      projectPath: "/Users/badlogic/workspaces/pi-mono",
      projectName: "pi-mono",
      gitBranch: null,
      title: "AgentSession refactor",
      turnCount: 4,
      startedAt: Date.parse("2025-12-08T22:41:05.306Z"),
      endedAt: Date.parse("2025-12-09T00:53:40.000Z"),
    });
  });

  test("turns on the resumed branch hold prompts, replies, tool calls with results, and usage per model", () => {
    const main = parsed.turns.filter((turn) => turn.number > 0);
    expect(main.map((turn) => turn.prompt.slice(0, 40))).toEqual([
      "ok, create a branch refactor",
      "get messages(): Message[]; not AppMessag",
      "ok, i hope i haven't lobotimized you by ",
      "you can look up the detailed history of ",
    ]);
    const [first, second] = main;
    expect(first!.timestamp).toBe(Date.parse("2025-12-08T22:47:08.005Z"));
    expect(first!.response).toContain("Done. On branch `refactor` now.");
    expect(first!.toolCalls[0]).toMatchObject({
      name: "Bash",
      input: "cd /Users/badlogic/workspaces/pi-mono && git checkout -b refactor",
      isError: false,
      output: "Switched to a new branch 'refactor'\n",
    });
    expect(first!.usage).toEqual([
      { model: "claude-opus-4-5", input: 11, output: 129, cacheRead: 92865, cacheWrite: 5330, costUsd: 0.083025 },
    ]);
    expect(second!.toolCalls.map((call) => call.name)).toEqual([
      "Bash",
      "Bash",
      "Read",
      "Edit",
      "Edit",
      "Edit",
      "Bash",
      "Bash",
    ]);
    const edit = second!.toolCalls[3]!;
    expect(edit.filePath).toBe("/Users/badlogic/workspaces/pi-mono/packages/coding-agent/docs/refactor.md");
    expect(edit.change?.edits?.[0]).toEqual({
      before: "  get messages(): Message[];",
      after: "  get messages(): AppMessage[];  // Includes custom types like BashExecutionMessage",
    });
    // `!ls` typed by the user (a bashExecution message) is a Bash call of the turn
    expect(second!.toolCalls[7]).toMatchObject({ name: "Bash", input: "ls" });
    expect(second!.files).toEqual([
      "/Users/badlogic/workspaces/pi-mono/packages/coding-agent/src/messages.ts",
      "/Users/badlogic/workspaces/pi-mono/packages/coding-agent/docs/refactor.md",
    ]);
  });

  test("a branch left with /tree is a rewound turn; an aborted reply is counted", () => {
    const rewound = parsed.turns.filter((turn) => turn.number < 0);
    expect(rewound.map((turn) => [turn.number, turn.prompt])).toEqual([
      [-1, "will this also allow us to test the agent core?"],
    ]);
    expect(rewound[0]!.response).toStartWith("Yes, that's a major benefit.");
    expect(Object.keys(parsed.skipped.reasons ?? {}).sort()).toEqual(["assistant error message"]);
    expect(parsed.skipped.count).toBe(1);
  });

  test("issue 41: the compaction summary is the session's abstract, in no turn", () => {
    expect(parsed.session.abstract?.map((part) => [part.source, part.at])).toEqual([
      ["compaction", Date.parse("2025-12-08T23:22:54.411Z")],
    ]);
    const text = parsed.session.abstract?.[0]?.text ?? "";
    expect(text).toStartWith("# Context Checkpoint: Coding Agent Refactoring\n\n## Branch");
    expect(parsed.turns.some((turn) => turn.response.includes("# Context Checkpoint"))).toBe(false);
  });

  test("without outputs the index parse keeps no tool output or change", () => {
    const lean = piParser.parse(listed[0]!);
    expect(lean.turns.flatMap((turn) => turn.toolCalls).some((call) => call.output || call.change)).toBe(false);
  });

  test("a version 1 file (entries without ids) is one chain; a file without a header is rejected, not indexed", () => {
    const dir = join(work, "v1", "sessions", "--home-dev-shop--");
    mkdirSync(dir, { recursive: true });
    const lines = [
      { type: "session", id: "v1-session", timestamp: "2025-11-20T23:33:50.805Z", cwd: "/home/dev/shop" },
      {
        type: "message",
        timestamp: "2025-11-20T23:33:51.000Z",
        message: { role: "user", content: "list the cart tests" },
      },
      {
        type: "message",
        timestamp: "2025-11-20T23:33:52.000Z",
        message: { role: "assistant", content: [{ type: "text", text: "There are three cart tests." }], model: "m" },
      },
    ];
    writeFileSync(join(dir, "a_v1-session.jsonl"), `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    writeFileSync(join(dir, "notes.jsonl"), '{"kind":"not a pi session"}\n');
    const listing = units([join(work, "v1")]);
    expect(listing.units.map((unit) => unit.sessionId)).toEqual(["v1-session"]);
    expect(listing.rejected).toEqual([`${join(dir, "notes.jsonl")}: no session header`]);
    const v1 = piParser.parse(listing.units[0]!);
    expect(v1.turns.map((turn) => [turn.number, turn.prompt, turn.response])).toEqual([
      [1, "list the cart tests", "There are three cart tests."],
    ]);
  });

  test("pi resumes a session by its id in its folder (pi --session <id>)", () => {
    expect(piParser.resumeInvocation(sessionId, "/Users/badlogic/workspaces/pi-mono")).toEqual({
      cwd: "/Users/badlogic/workspaces/pi-mono",
      argv: ["pi", "--session", sessionId],
    });
  });
});

describe("pi through the CLI, from ~/.pi/agent", () => {
  const home = join(work, "home");
  const agentDir = join(home, ".pi", "agent");
  mkdirSync(agentDir, { recursive: true });
  cpSync(join(fixture, "sessions"), join(agentDir, "sessions"), { recursive: true });
  const env: Record<string, string | undefined> = { ...process.env, HOME: home, RECALL_HOME: join(work, "recall") };
  for (const key of sourceLocationVariables) delete env[key];
  const recall = (args: string[]) => runCli(args, env);

  test("index, then status lists pi with its session", () => {
    expect(recall(["index", "--keyword-only"]).exitCode).toBe(0);
    expect(recall(["status"]).stdout).toMatch(/^ {2}pi +1 session +4 turns/m);
  });

  test("a prompt, a reply and a tool call are each found at depth 2, with pi's resume command", () => {
    for (const phrase of ["create a branch refactor", "Ready to start implementing", "git checkout"]) {
      const run = recall(["search", phrase, "--depth", "2", "--json", "--no-reindex"]);
      expect(run.exitCode).toBe(0);
      expect(JSON.parse(run.stdout).results[0]).toMatchObject({ source: "pi", session_id: sessionId, turn: 1 });
    }
    const session = JSON.parse(recall(["search", "git checkout", "--json", "--no-reindex"]).stdout).results[0];
    expect(session.resume_command).toBe(`cd /Users/badlogic/workspaces/pi-mono && pi --session ${sessionId}`);
  });

  test("recall show reads a turn from the file, and from recall's own copy once pi deleted it", () => {
    const shown = recall(["show", `${sessionId.slice(0, 12)}:1`, "--no-reindex"]);
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toContain("> ok, create a branch refactor");
    expect(shown.stdout).toContain("Switched to a new branch 'refactor'");
    rmSync(join(agentDir, "sessions"), { recursive: true });
    expect(recall(["index", "--keyword-only"]).exitCode).toBe(0);
    const kept = recall(["show", `${sessionId.slice(0, 12)}:1`, "--no-reindex"]);
    expect(kept.exitCode).toBe(0);
    expect(kept.stdout).toContain("> ok, create a branch refactor");
  });
});
