/**
 * Factory Droid (issue 40): a parent session and the worker sub-agent it started, built around the two `session_start`
 * lines entireio/cli published verbatim (test/fixtures/droid/SOURCE.md), parsed into turns with their side files'
 * model and tokens, and the whole path through the CLI from `~/.factory`.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { droidParser } from "../../src/parsers/droid.ts";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import type { ParseResult, SourceUnit } from "../../src/parsers/types.ts";
import { runCli } from "../helpers/cli.ts";

const repo = resolve(import.meta.dir, "../..");
const fixture = join(repo, "test/fixtures/droid");
const parentId = "0b34cbcb-108c-4800-b68e-af7093c8cae9";
const workerId = "30b34828-e462-45c9-b63c-bfefb6bd178f";
const project = "/tmp/e2e-repo-948994727";
const work = mkdtempSync(join(tmpdir(), "recall-droid-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function listing(roots: string[]): { units: SourceUnit[]; rejected: string[] } {
  const rejected: string[] = [];
  const units = droidParser.listUnits(droidParser.scan(roots).containers, {
    onRejected: (path, reason) => rejected.push(`${path}: ${reason}`),
  });
  return { units, rejected };
}

describe("Factory Droid session files", () => {
  const { units } = listing([fixture]);
  const parse = (id: string, withOutputs = true): ParseResult =>
    droidParser.parse(units.find((unit) => unit.sessionId === id)!, { withOutputs });
  const parent = parse(parentId);
  const worker = parse(workerId);

  test("each session file is one session named by its session_start line, in its project, titled by sessionTitle", () => {
    expect(units.map((unit) => unit.sessionId).sort()).toEqual([parentId, workerId]);
    expect(parent.session).toMatchObject({
      source: "droid",
      projectPath: project,
      projectName: "e2e-repo-948994727",
      gitBranch: null,
      title: "use a subagent: create a markdown file at docs/red.md",
      turnCount: 2,
      isSubagent: false,
      parentSessionId: null,
      startedAt: Date.parse("2026-05-20T14:02:11.201Z"),
      endedAt: Date.parse("2026-05-20T14:03:10.700Z"),
    });
  });

  test("turns hold the prompt, the reply and the tool calls with their results", () => {
    const [first, second] = parent.turns;
    expect(first!.prompt).toEndWith("use a subagent: create a markdown file at docs/red.md");
    expect(first!.prompt).toStartWith("<system-reminder>"); // kept whole; typedText shows the typed part
    expect(first!.timestamp).toBe(Date.parse("2026-05-20T14:02:11.201Z"));
    expect(first!.response).toBe(
      "I'll hand this to a worker subagent so it creates docs/red.md and commits it.\n\n" +
        'Done: the worker created docs/red.md and committed it as 3e1f9a2 with the message "docs: add red.md".',
    );
    expect(first!.toolCalls).toEqual([
      expect.objectContaining({
        name: "Task",
        input: "Create red.md and commit",
        isError: false,
        output: 'Created docs/red.md and committed it as 3e1f9a2 ("docs: add red.md").',
      }),
    ]);
    expect(second!.toolCalls[0]).toMatchObject({ name: "Bash", input: "git log -1 --stat" });
    expect(second!.toolCalls[0]!.output).toContain("docs: add red.md");
  });

  test("the worker is a sub-agent of the session that called it; Create is a Write with its change", () => {
    expect(worker.session).toMatchObject({
      title: "worker: Create red.md and commit",
      isSubagent: true,
      parentSessionId: parentId,
      turnCount: 1,
    });
    const [turn] = worker.turns;
    expect(turn!.isSubagent).toBe(true);
    expect(turn!.prompt).toStartWith("# Task Tool Invocation");
    expect(turn!.toolCalls.map((call) => call.name)).toEqual(["Write", "Bash"]);
    expect(turn!.files).toEqual([`${project}/docs/red.md`]);
    expect(turn!.toolCalls[0]!.change).toEqual({
      path: `${project}/docs/red.md`,
      kind: "write",
      content: "# Red\n\nRed is the colour at the long-wavelength end of the visible spectrum.\n",
    });
  });

  test("the side file's model is on every turn and its session totals on the last (thinking counted as output)", () => {
    const none = { input: null, output: null, cacheRead: null, cacheWrite: null, costUsd: null };
    expect(parent.turns.map((turn) => turn.usage)).toEqual([
      [{ model: "claude-sonnet-4-5-20250929", ...none }],
      [
        {
          model: "claude-sonnet-4-5-20250929",
          input: 9120,
          output: 649,
          cacheRead: 40212,
          cacheWrite: 14388,
          costUsd: null,
        },
      ],
    ]);
  });

  test("the todo_state snapshot is counted as not kept; nothing else is", () => {
    expect(parent.skipped.count).toBe(1);
    expect(Object.keys(parent.skipped.reasons ?? {})).toEqual(["todo list snapshot"]);
    expect(worker.skipped.count).toBe(0);
  });

  test("without outputs the index parse keeps no tool output or change", () => {
    const lean = parse(workerId, false);
    expect(lean.turns.flatMap((turn) => turn.toolCalls).some((call) => call.output || call.change)).toBe(false);
  });

  test("an injected-context message joins the prompt after it; a file without session_start is rejected", () => {
    const dir = join(work, "flat", "sessions");
    mkdirSync(dir, { recursive: true });
    const lines = [
      {
        type: "session_start",
        id: "flat-1",
        title: "fix the flaky test",
        owner: "ada",
        version: 2,
        cwd: "/home/ada/shop",
      },
      {
        type: "message",
        id: "c1",
        timestamp: "2026-05-21T09:00:00.000Z",
        message: {
          role: "user",
          content: [{ type: "text", text: "<system-reminder>\nskills: none\n</system-reminder>" }],
        },
      },
      {
        type: "message",
        id: "u1",
        timestamp: "2026-05-21T09:00:01.000Z",
        message: { role: "user", content: [{ type: "text", text: "fix the flaky cart test" }] },
      },
      {
        type: "message",
        id: "a1",
        timestamp: "2026-05-21T09:00:05.000Z",
        message: {
          role: "assistant",
          content: [{ type: "text", text: "The cart test races the timer; I pinned it." }],
        },
      },
    ];
    writeFileSync(join(dir, "flat-1.jsonl"), `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`);
    writeFileSync(join(dir, "history.jsonl"), '{"prompt":"not a droid session"}\n');
    const flat = listing([join(work, "flat")]);
    expect(flat.units.map((unit) => unit.sessionId)).toEqual(["flat-1"]);
    expect(flat.rejected).toEqual([`${join(dir, "history.jsonl")}: no session_start line`]);
    const parsed = droidParser.parse(flat.units[0]!);
    expect(parsed.turns.map((turn) => [turn.prompt, turn.response])).toEqual([
      [
        "<system-reminder>\nskills: none\n</system-reminder>\n\nfix the flaky cart test",
        "The cart test races the timer; I pinned it.",
      ],
    ]);
    expect(parsed.turns[0]!.usage).toBeUndefined(); // no settings file: no model, no tokens
  });

  test("Droid resumes a session by its id in its folder (droid --resume <id>)", () => {
    expect(droidParser.resumeInvocation(parentId, project)).toEqual({
      cwd: project,
      argv: ["droid", "--resume", parentId],
    });
  });
});

describe("Factory Droid through the CLI, from ~/.factory", () => {
  const home = join(work, "home");
  const factory = join(home, ".factory");
  mkdirSync(factory, { recursive: true });
  cpSync(join(fixture, "sessions"), join(factory, "sessions"), { recursive: true });
  const env: Record<string, string | undefined> = { ...process.env, HOME: home, RECALL_HOME: join(work, "recall") };
  for (const key of sourceLocationVariables) delete env[key];
  const recall = (args: string[]) => runCli(args, env);

  test("index, then status lists Factory Droid with its sessions", () => {
    expect(recall(["index", "--keyword-only"]).exitCode).toBe(0);
    expect(recall(["status"]).stdout).toMatch(/^ {2}droid +2 sessions +3 turns/m);
  });

  test("a prompt, a reply and a tool call are each found at depth 2, with Droid's resume command", () => {
    for (const phrase of ["show me the last commit", "which adds docs/red.md", "git log -1 --stat"]) {
      const run = recall(["search", phrase, "--depth", "2", "--json", "--no-reindex"]);
      expect(run.exitCode).toBe(0);
      expect(JSON.parse(run.stdout).results[0]).toMatchObject({ source: "droid", session_id: parentId, turn: 2 });
    }
    const session = JSON.parse(recall(["search", "git log -1 --stat", "--json", "--no-reindex"]).stdout).results[0];
    expect(session.resume_command).toBe(`cd ${project} && droid --resume ${parentId}`);
  });

  test("recall show reads a turn from the file, and from recall's own copy once Droid's file is gone", () => {
    const shown = recall(["show", `${parentId.slice(0, 12)}:2`, "--no-reindex"]);
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toContain("> show me the last commit on the branch");
    expect(shown.stdout).toContain("[Bash] git log -1 --stat");
    expect(shown.stdout).toContain("Author: soph <soph@example.com>"); // the output, read from the file
    rmSync(join(factory, "sessions"), { recursive: true });
    expect(recall(["index", "--keyword-only"]).exitCode).toBe(0);
    const kept = recall(["show", `${parentId.slice(0, 12)}:2`, "--no-reindex"]);
    expect(kept.exitCode).toBe(0);
    expect(kept.stdout).toContain("> show me the last commit on the branch");
  });
});
