/**
 * Kimi CLI (issue 40): the wire log of test/fixtures/kimi-cli (SOURCE.md) read into a session and its turns, the
 * project path found through kimi.json, the scan's layout, and the whole path through the CLI from the agent's default
 * folder.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parserFor, sourceInfo, type SourceUnit } from "../../src/parsers/index.ts";
import { kimiCliParser } from "../../src/parsers/kimi-cli.ts";
import { workDirHash } from "../../src/parsers/kimi-cli/work-dirs.ts";
import { runCli } from "../helpers/cli.ts";

const home = join(import.meta.dir, "../fixtures/kimi-cli/.kimi");
const sessionId = "3a9f1c7e-52d4-4b8e-a061-7c2e9d4f1b35";
const work = mkdtempSync(join(tmpdir(), "recall-kimi-cli-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function unitsBelow(root: string, rejected: string[] = []): SourceUnit[] {
  const scan = kimiCliParser.scan([root]);
  return kimiCliParser.listUnits(scan.containers, { onRejected: (_path, reason) => rejected.push(reason) });
}

/** One wire record line, as Kimi's `_WireRecorder` writes it. */
const record = (seconds: number, type: string, payload: Record<string, unknown>) =>
  JSON.stringify({ timestamp: seconds, message: { type, payload } });

describe("kimi-cli parse", () => {
  const result = kimiCliParser.parse(unitsBelow(home)[0]!, { withOutputs: true });

  test("the session: id from its folder, project from kimi.json's md5, title from state.json, times in seconds", () => {
    expect(workDirHash("/home/dev/ledger-api")).toBe("a857d7a3cd83544f43667364c361ccef");
    expect(result.session).toMatchObject({
      id: sessionId,
      source: "kimi-cli",
      projectPath: "/home/dev/ledger-api",
      projectName: "ledger-api",
      gitBranch: null,
      title: "Fix duplicate ledger entries",
      turnCount: 2,
      startedAt: 1781006520518,
      endedAt: 1781006600918,
    });
    expect(result.skipped.count).toBe(0); // steps, status and notifications are bookkeeping
  });

  test("prompts, replies without thinking, tool calls with errors and outputs, tokens per step", () => {
    const [first, second] = result.turns;
    expect(first!.prompt).toStartWith("POST /entries sometimes writes the same ledger entry twice");
    expect(first!.timestamp).toBe(1781006520518);
    expect(first!.response).toStartWith("I'll check how the entries route inserts rows first.");
    expect(first!.response).not.toContain("A retry after a timeout"); // a think part
    expect(first!.toolCalls.map((call) => [call.name, call.input, call.isError])).toEqual([
      ["Bash", 'grep -rn "INSERT INTO entries" src/', false],
      ["Edit", "/home/dev/ledger-api/src/routes/entries.py", false],
      ["Bash", "pytest tests/test_entries.py -q", true],
    ]);
    expect(first!.toolCalls[1]!.change?.edits?.[0]?.after).toContain("ON CONFLICT (idempotency_key) DO NOTHING");
    expect(first!.toolCalls[2]!.output).toContain('column "idempotency_key" of relation "entries" does not exist');
    expect(first!.usage).toEqual([
      { model: "unknown", input: 4368, output: 436, cacheRead: 54784, cacheWrite: 0, costUsd: null },
    ]);
    // A prompt given as parts; the sub-agent's call and reply in the turn of its Agent call.
    expect(second!.prompt).toBe("Ask a sub-agent which other handlers insert entries without a key.");
    expect(second!.toolCalls.map((call) => `${call.name} ${call.input}`)).toEqual([
      "Task Find unkeyed inserts",
      "Grep INSERT INTO entries /home/dev/ledger-api/src",
    ]);
    expect(second!.response).toStartWith("src/jobs/import_csv.py inserts entries in a loop");
  });

  test("side questions, answers and unknown messages are counted; streamed argument pieces join their call", () => {
    const dir = join(work, "counted", "s-counted");
    mkdirSync(dir, { recursive: true });
    const shell = { type: "function", id: "c1", function: { name: "Shell", arguments: '{"command": "ls' } };
    writeFileSync(
      join(dir, "wire.jsonl"),
      `${[
        '{"type":"metadata","protocol_version":"1.10"}',
        record(1781000000, "TurnBegin", { user_input: "list the migrations" }),
        record(1781000001, "ToolCall", shell),
        record(1781000001.2, "ToolCallPart", { arguments_part: ' migrations/"}' }),
        record(1781000002, "BtwBegin", { id: "b1", question: "what does DO NOTHING return?" }),
        record(1781000003, "BtwEnd", { id: "b1", response: "no row" }),
        record(1781000004, "QuestionResponse", { request_id: "q1", answers: { scope: "all" } }),
        record(1781000005, "FutureMessage", { text: "a message type recall does not know" }),
      ].join("\n")}\n`,
    );
    const parsed = kimiCliParser.parse(unitsBelow(join(work, "counted"))[0]!);
    expect(parsed.turns[0]!.toolCalls.map((call) => call.input)).toEqual(["ls migrations/"]);
    expect(parsed.skipped.reasons).toMatchObject({
      "side question (/btw)": { count: 2 },
      "answers to the agent's questions": { count: 1 },
      "unknown wire message FutureMessage": { count: 1 },
    });
  });
});

describe("kimi-cli scan", () => {
  test("a share dir: session folders are read, sub-agent copies are not, other files are rejected", () => {
    const copy = join(work, "layout", ".kimi");
    cpSync(home, copy, { recursive: true });
    const session = join(copy, "sessions", "a857d7a3cd83544f43667364c361ccef", sessionId);
    mkdirSync(join(session, "subagents", "a7c31d09"), { recursive: true });
    writeFileSync(
      join(session, "subagents", "a7c31d09", "wire.jsonl"),
      '{"type":"metadata","protocol_version":"1.10"}\n',
    );
    const other = join(copy, "sessions", "a857d7a3cd83544f43667364c361ccef", "s-other");
    mkdirSync(other);
    writeFileSync(join(other, "wire.jsonl"), '{"role":"user","content":"hi"}\n');
    const rejected: string[] = [];
    expect(unitsBelow(copy, rejected).map((unit) => unit.sessionId)).toEqual([sessionId]);
    expect(rejected).toEqual(["not a Kimi CLI wire log"]);
    const [container] = kimiCliParser.scan([copy]).containers.filter((entry) => entry.path.includes(sessionId));
    expect(kimiCliParser.scan([container!.path]).containers).toEqual([container!]); // scansContainerPaths holds
  });

  test("a session whose work dir kimi.json does not name has no project; naming it changes only its change key", () => {
    const copy = join(work, "unnamed", ".kimi");
    cpSync(home, copy, { recursive: true });
    writeFileSync(join(copy, "kimi.json"), JSON.stringify({ work_dirs: [] }));
    const before = unitsBelow(copy)[0]!;
    expect(before.locator?.projectPath).toBe("");
    writeFileSync(join(copy, "kimi.json"), JSON.stringify({ work_dirs: [{ path: "/home/dev/ledger-api" }] }));
    const after = unitsBelow(copy)[0]!;
    expect(after.locator?.projectPath).toBe("/home/dev/ledger-api");
    expect(after.changeKey).not.toBe(before.changeKey);
  });

  test("default folder $KIMI_SHARE_DIR else ~/.kimi; resume is `kimi -r <id>` in the work dir", () => {
    expect(sourceInfo("kimi-cli").defaultRoots({}, "/home/ada")).toEqual(["/home/ada/.kimi"]);
    expect(sourceInfo("kimi-cli").defaultRoots({ KIMI_SHARE_DIR: "~/k" }, "/home/ada")).toEqual(["/home/ada/k"]);
    expect(parserFor("kimi-cli").resumeInvocation(sessionId, "/home/dev/ledger-api")).toEqual({
      cwd: "/home/dev/ledger-api",
      argv: ["kimi", "-r", sessionId],
    });
  });
});

describe("kimi-cli end to end", () => {
  const userHome = join(work, "e2e-home");
  const recallHome = join(work, "e2e-recall");
  cpSync(home, join(userHome, ".kimi"), { recursive: true });
  const env = { PATH: process.env.PATH, HOME: userHome, RECALL_HOME: recallHome, RECALL_OFFLINE: "1", NO_COLOR: "1" };
  const run = (args: string[]) => runCli(args, { ...env, RECALL_EMBED_HELPER: "off" });

  test("index, status, search --depth 2 (prompt, reply, tool call), show from the log and from recall's copy", () => {
    expect(run(["index", "--keyword-only"]).exitCode).toBe(0);
    expect(run(["status"]).stdout).toMatch(/kimi-cli\s+1 session\s+2 turns/);
    const search = (query: string) => run(["search", query, "--depth", "2", "--keyword-only", "--no-reindex"]).stdout;
    expect(search("client retries idempotent")).toContain("Q: POST /entries sometimes writes the same ledger entry");
    expect(search("Idempotency-Key header migration")).toContain("[kimi-cli] turn=3a9f1c7e-52d:1");
    expect(search("pytest")).toContain("tools: Bash, Edit");
    const fromLog = run(["show", "3a9f1c7e:1", "--no-reindex"]).stdout;
    expect(fromLog).toContain("resume: cd /home/dev/ledger-api && kimi -r 3a9f1c7e-52d4-4b8e-a061-7c2e9d4f1b35");
    expect(fromLog).toContain("1 failed, 11 passed");
    rmSync(join(userHome, ".kimi"), { recursive: true });
    const fromCopy = run(["show", "3a9f1c7e:1", "--no-reindex"]);
    expect(fromCopy.exitCode).toBe(0);
    expect(fromCopy.stdout).toContain("shown from recall's archive");
    expect(fromCopy.stdout).toContain("[Bash] pytest tests/test_entries.py -q");
  });
});
