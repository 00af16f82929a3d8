/**
 * Zed's agent threads as a source (issue 40): a `threads.db` written from test/fixtures/zed/threads.json the way Zed
 * stores it (zed-store.ts: one zstd-compressed thread of the current format, one JSON thread of the first agent's),
 * parsed, then indexed, searched and shown end to end from a HOME holding it at Zed's default place.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parserFor, sourceInfo, type SourceUnit } from "../../src/parsers/index.ts";
import { closeThreadsDatabases, zedParser } from "../../src/parsers/zed.ts";
import { planWatchTargets } from "../../src/index/watch/targets.ts";
import { runCli } from "../helpers/cli.ts";
import { writeThreadsDatabase } from "./zed-store.ts";

const threadId = "d4c1b2a3-5e6f-4a7b-8c9d-0e1f2a3b4c5d";
const legacyId = "a1b2c3d4-0000-4e5f-8a9b-c0d1e2f3a4b5";
const work = mkdtempSync(join(tmpdir(), "recall-zed-"));
afterAll(() => {
  closeThreadsDatabases();
  rmSync(work, { recursive: true, force: true });
});

function unitsBelow(root: string): SourceUnit[] {
  return zedParser.listUnits(zedParser.scan([root]).containers, {});
}

describe("zed parse", () => {
  const database = writeThreadsDatabase(join(work, "parse", "zed", "threads"));
  const units = unitsBelow(join(work, "parse", "zed"));
  const unitOf = (id: string) => units.find((unit) => unit.sessionId === id)!;
  const result = zedParser.parse(unitOf(threadId), { withOutputs: true });

  test("one unit per thread row; the thread: project and branch from the project snapshot, title, times", () => {
    expect(units.map((unit) => unit.key).sort()).toEqual([`${database}#${legacyId}`, `${database}#${threadId}`]);
    expect(result.session).toMatchObject({
      id: threadId,
      source: "zed",
      projectPath: "/home/dev/tiny-http",
      projectName: "tiny-http",
      gitBranch: "fix/empty-headers",
      title: "Panic on requests without headers",
      startedAt: Date.parse("2026-01-08T09:12:00Z"),
      endedAt: Date.parse("2026-01-08T09:20:31Z"),
      turnCount: 2,
      location: database,
    });
  });

  test("prompts, replies without thinking, tool calls with outputs, tokens per turn under the thread's model", () => {
    const [first, second] = result.turns;
    expect(first!.prompt).toStartWith("The server panics with 'index out of bounds");
    expect(first!.response).toBe(
      "Let me find the header parser.\n\nparse_headers read lines[1] before checking that a header line exists. It now returns an empty list when the request line is the only line.",
    );
    expect(first!.toolCalls.map((call) => [call.name, call.input])).toEqual([
      ["Grep", "fn parse_headers src/**/*.rs"],
      ["Edit", "tiny-http/src/parse.rs"],
    ]);
    expect(first!.toolCalls[1]!.output).toContain("lines.get(1)");
    expect(first!.usage).toEqual([
      { model: "claude-sonnet-4-5", input: 5120, output: 812, cacheRead: 4096, cacheWrite: 0, costUsd: null },
    ]);
    expect(second!.prompt).toBe("Run the parser tests.");
    expect(second!.toolCalls[0]).toMatchObject({ name: "Bash", input: "cargo test parse", isError: false });
    expect(second!.response).toBe("All 9 parser tests pass, including the new request_without_headers test.");
  });

  test("a mention's attached file and a thread of the first agent's format are counted, not dropped", () => {
    expect(result.skipped.reasons).toEqual({
      "attached context (mention)": { count: 1, first: `${database}#${threadId}` },
    });
    const legacy = zedParser.parse(unitOf(legacyId));
    expect(legacy.turns).toEqual([]);
    expect(legacy.skipped.reasons).toEqual({
      "thread in the first agent's format (version 0.2.0), not read": { count: 1, first: `${database}#${legacyId}` },
    });
  });

  test("the watcher watches the threads folder itself, where threads.db is", () => {
    const threads = join(work, "parse", "zed", "threads");
    expect(planWatchTargets({ zed: [threads] }).map((target) => [target.kind, target.depth])).toEqual([
      ["agent-tree", 0],
    ]);
  });

  test("default folder is Zed's data folder's threads; resume opens the project in Zed", () => {
    const expected =
      process.platform === "darwin"
        ? "/home/dev/Library/Application Support/Zed/threads"
        : "/home/dev/.local/share/zed/threads";
    expect(sourceInfo("zed").defaultRoots({}, "/home/dev")).toEqual([expected]);
    expect(parserFor("zed").resumeInvocation(threadId, "/home/dev/tiny-http")).toEqual({
      cwd: undefined,
      argv: ["zed", "/home/dev/tiny-http"],
    });
  });
});

describe("zed end to end", () => {
  const userHome = join(work, "e2e-home");
  const recallHome = join(work, "e2e-recall");
  const threads =
    process.platform === "darwin"
      ? join(userHome, "Library", "Application Support", "Zed", "threads")
      : join(userHome, ".local", "share", "zed", "threads");
  writeThreadsDatabase(threads);
  const env = { PATH: process.env.PATH, HOME: userHome, RECALL_HOME: recallHome, RECALL_OFFLINE: "1", NO_COLOR: "1" };
  const run = (args: string[]) => runCli(args, { ...env, RECALL_EMBED_HELPER: "off" });

  test("index, status, search --depth 2 (prompt, reply, tool call), show from the database and from recall's copy", () => {
    expect(run(["index", "--keyword-only"]).exitCode).toBe(0);
    expect(run(["status"]).stdout).toMatch(/zed\s+2 sessions\s+2 turns/);
    const search = (query: string) => run(["search", query, "--depth", "2", "--keyword-only", "--no-reindex"]).stdout;
    expect(search("index out of bounds request no headers")).toContain("Q: The server panics with");
    expect(search("request_without_headers parser tests pass")).toContain("[zed] turn=d4c1b2a3-5e6:2");
    expect(search("cargo test parse")).toContain("tools: Bash");
    const fromDb = run(["show", "d4c1b2a3:2", "--no-reindex"]).stdout;
    expect(fromDb).toContain("resume: zed /home/dev/tiny-http");
    expect(fromDb).toContain("test result: ok. 9 passed");
    closeThreadsDatabases();
    rmSync(threads, { recursive: true });
    const fromCopy = run(["show", "d4c1b2a3:2", "--no-reindex"]);
    expect(fromCopy.exitCode).toBe(0);
    expect(fromCopy.stdout).toContain("shown from recall's archive");
    expect(fromCopy.stdout).toContain("[Bash] cargo test parse");
  });
});
