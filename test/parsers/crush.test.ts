/**
 * Crush (issue 40): a project's `.crush/crush.db` built from test/fixtures/crush/crush.sql (Crush's own migrations,
 * see SOURCE.md), found through the global data folder's `projects.json`, parsed into sessions and turns with tool
 * calls, results, the sub-agent link and the cost, and the whole path through the CLI.
 */
import { Database } from "bun:sqlite";
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { crushParser } from "../../src/parsers/crush.ts";
import { sourceLocationVariables } from "../../src/parsers/index.ts";
import type { ParseResult, SourceUnit } from "../../src/parsers/types.ts";
import { runCli } from "../helpers/cli.ts";
import { databaseFromScript } from "../helpers/sql-fixture.ts";

const sessionId = "8f0e6c2a-3b1d-4f5e-9a7c-2d4b6e8f0a1c";
const childId = "b7e2c4d6-1a3f-4e5b-8c9d-0f2e4a6b8c1d$$toolu_01AgentX9";
const work = mkdtempSync(join(tmpdir(), "recall-crush-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * A project `<home>/src/statusd` whose `.crush/crush.db` is built from the fixture, listed in the global data folder's
 * `projects.json` as Crush's `projects.Register` writes it. @returns the project folder
 */
function crushHome(home: string): string {
  const project = join(home, "src", "statusd");
  databaseFromScript("crush/crush.sql", join(project, ".crush", "crush.db"));
  const global = join(home, ".local", "share", "crush");
  mkdirSync(global, { recursive: true });
  const list = {
    projects: [{ path: project, data_dir: join(project, ".crush"), last_accessed: "2025-11-08T11:08:20Z" }],
  };
  writeFileSync(join(global, "projects.json"), JSON.stringify(list, null, 2));
  return project;
}

describe("Crush crush.db", () => {
  const home = join(work, "unit");
  const project = crushHome(home);
  const database = join(project, ".crush", "crush.db");
  const scan = crushParser.scan([join(home, ".local", "share", "crush")]);
  const units: SourceUnit[] = crushParser.listUnits(scan.containers);
  const parse = (id: string, withOutputs = true): ParseResult =>
    crushParser.parse(units.find((unit) => unit.sessionId === id)!, { withOutputs });
  const main = parse(sessionId);
  const child = parse(childId);

  test("projects.json leads the scan to the project's database; each session with messages is one unit", () => {
    expect(scan.containers.map((container) => container.path)).toEqual([database]);
    expect(scan.watched?.map((watched) => watched.path)).toContain(
      join(home, ".local", "share", "crush", "projects.json"),
    );
    expect(crushParser.scan([database]).containers).toEqual(scan.containers); // the quick check's re-stat
    expect(units.map((unit) => unit.sessionId).sort()).toEqual([sessionId, childId].sort()); // the empty one is not
  });

  test("the project is the folder holding .crush; the agent tool's session is a sub-agent of its caller", () => {
    expect(main.session).toMatchObject({
      source: "crush",
      projectPath: project,
      projectName: "statusd",
      gitBranch: null,
      title: "Report degraded health when Redis is down",
      turnCount: 2,
      isSubagent: false,
      parentSessionId: null,
      startedAt: 1762600000_000,
      endedAt: 1762600090_000,
    });
    expect(child.session).toMatchObject({ isSubagent: true, parentSessionId: sessionId, turnCount: 1 });
    expect(child.turns[0]!.toolCalls[0]).toMatchObject({ name: "Bash", input: "go test ./internal/http/..." });
  });

  test("turns hold the prompt, the reply and the calls with their results; the agent call links its session", () => {
    const [first, second] = main.turns;
    expect(first!.prompt).toBe("The /healthz handler returns 500 when Redis is down; make it report degraded instead");
    expect(first!.timestamp).toBe(1762600000_000);
    expect(first!.response).toBe(
      'I\'ll start with the health handler.\n\nhealthz now answers 200 with status "degraded" when the Redis ping fails.',
    );
    const file = `/home/dev/src/statusd/internal/http/health.go`;
    expect(first!.toolCalls.map((call) => [call.name, call.input])).toEqual([
      ["Read", file],
      ["Edit", file],
    ]);
    expect(first!.toolCalls[0]!.output).toContain("rdb.Ping(r.Context())");
    expect(first!.toolCalls[1]!.change).toEqual({
      path: file,
      kind: "edit",
      edits: [
        {
          before: "\t\thttp.Error(w, err.Error(), 500)\n",
          after: '\t\twriteStatus(w, http.StatusOK, "degraded")\n\t\treturn\n',
        },
      ],
    });
    expect(second!.toolCalls).toEqual([
      expect.objectContaining({
        name: "Task",
        input: "Run go test ./internal/http/... and report failures",
        output: "All 14 tests in ./internal/http passed.",
        subagentSessionId: childId,
      }),
    ]);
  });

  test("each turn names its models; the session's own cost (less its sub-agent's) is on the last turn", () => {
    const none = { input: null, output: null, cacheRead: null, cacheWrite: null, costUsd: null };
    expect(main.turns[0]!.usage).toEqual([{ model: "claude-sonnet-4-5", ...none }]);
    const last = main.turns[1]!.usage![0]!;
    expect(last.model).toBe("claude-sonnet-4-5");
    expect(last.costUsd).toBeCloseTo(0.0673, 6);
    expect(child.turns[0]!.usage).toEqual([{ model: "claude-haiku-4-5", ...none, costUsd: 0.0061 }]);
  });

  test("issue 41: the compaction summary is the session's abstract, in no turn", () => {
    expect(main.session.abstract).toEqual([
      {
        source: "compaction",
        text: "Summary: healthz reports degraded when Redis is down; handler tests pass.",
        at: 1762600090000,
      },
    ]);
    expect(main.turns.some((turn) => turn.response.includes("Summary: healthz"))).toBe(false);
  });

  test("reasoning is not prose; nothing is skipped", () => {
    expect(main.skipped.count).toBe(0);
    expect(main.turns.some((turn) => turn.response.includes("Need to look at the handler"))).toBe(false);
    expect(child.skipped.count).toBe(0);
  });

  test("without outputs the index parse keeps no tool output or change", () => {
    const lean = parse(sessionId, false);
    expect(lean.turns.flatMap((turn) => turn.toolCalls).some((call) => call.output || call.change)).toBe(false);
  });

  test("an updated message moves the session's change key; a database without Crush's tables is unavailable", () => {
    const path = databaseFromScript("crush/crush.sql", join(work, "grow", ".crush", "crush.db"));
    const key = () =>
      crushParser.listUnits(crushParser.scan([path]).containers).find((unit) => unit.sessionId === sessionId)!
        .changeKey;
    const before = key();
    const writer = new Database(path);
    writer.run(
      `update messages set parts = replace(parts, 'all 14 passed.', 'all 14 passed in 0.4 s.')
       where id = '11111111-0000-4000-8000-000000000010'`,
    );
    writer.close();
    expect(key()).not.toBe(before);
    const other = join(work, "other", "crush.db");
    mkdirSync(join(work, "other"), { recursive: true });
    new Database(other).run("create table notes (id integer)");
    const unavailable: string[] = [];
    crushParser.listUnits(crushParser.scan([other]).containers, {
      onUnavailable: (at, reason) => unavailable.push(`${at}: ${reason}`),
    });
    expect(unavailable).toEqual([`${other}: not a crush database (no sessions, messages table)`]);
  });

  test("Crush resumes a session by its id in its project folder (crush --session <id>)", () => {
    expect(crushParser.resumeInvocation(sessionId, project)).toEqual({
      cwd: project,
      argv: ["crush", "--session", sessionId],
    });
  });
});

describe("Crush through the CLI, from ~/.local/share/crush/projects.json", () => {
  const home = join(work, "home");
  const project = crushHome(home);
  const env: Record<string, string | undefined> = { ...process.env, HOME: home, RECALL_HOME: join(work, "recall") };
  for (const key of sourceLocationVariables) delete env[key];
  const recall = (args: string[]) => runCli(args, env);

  test("index, then status lists Crush with its sessions", () => {
    expect(recall(["index", "--keyword-only"]).exitCode).toBe(0);
    expect(recall(["status"]).stdout).toMatch(/^ {2}crush +2 sessions +3 turns/m);
  });

  test("a prompt, a reply and a tool call are each found at depth 2, with Crush's resume command", () => {
    for (const phrase of ["returns 500 when Redis is down", "answers 200 with status", "internal/http/health.go"]) {
      const run = recall(["search", phrase, "--depth", "2", "--json", "--no-reindex"]);
      expect(run.exitCode).toBe(0);
      expect(JSON.parse(run.stdout).results[0]).toMatchObject({ source: "crush", session_id: sessionId, turn: 1 });
    }
    const session = JSON.parse(recall(["search", "Redis is down", "--json", "--no-reindex"]).stdout).results[0];
    expect(session.resume_command).toBe(`cd ${project} && crush --session ${sessionId}`);
  });

  test("recall show reads a turn from the database, and from recall's own copy once Crush's database is gone", () => {
    const shown = recall(["show", `${sessionId.slice(0, 12)}:2`, "--no-reindex"]);
    expect(shown.exitCode).toBe(0);
    expect(shown.stdout).toContain("> Use a sub-agent to run the handler tests");
    expect(shown.stdout).toContain("[Task] Run go test ./internal/http/... and report failures");
    expect(shown.stdout).toContain("All 14 tests in ./internal/http passed."); // the output, read from the database
    rmSync(join(project, ".crush"), { recursive: true });
    expect(recall(["index", "--keyword-only"]).exitCode).toBe(0);
    const kept = recall(["show", `${sessionId.slice(0, 12)}:2`, "--no-reindex"]);
    expect(kept.exitCode).toBe(0);
    expect(kept.stdout).toContain("> Use a sub-agent to run the handler tests");
  });
});
