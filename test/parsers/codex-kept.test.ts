import { describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { codexParser } from "../../src/parsers/codex.ts";
import { mirrorKey } from "../../src/parsers/codex/turns.ts";
import type { ParseResult, SourceUnit } from "../../src/parsers/types.ts";

/** Fixtures of issue 26 (see their README.md for origin and licence). */
const fixtures = resolve(import.meta.dir, "../fixtures/codex/issue-26");
const upgradedName = "rollout-2026-08-19T09-48-58-01a017b5-1414-7250-bf14-dc4987eee1c9.jsonl";

/** Units of a folder and the files listUnits rejected, with their reasons. */
function listFolder(dir: string): { units: SourceUnit[]; rejected: Array<[string, string]> } {
  const rejected: Array<[string, string]> = [];
  const units = codexParser.listUnits(codexParser.scan([dir]).containers, {
    onRejected: (path, reason) => rejected.push([path, reason]),
  });
  return { units, rejected };
}

function parseFolder(name: string, withOutputs = false): ParseResult {
  const { units } = listFolder(join(fixtures, name));
  if (units.length !== 1) throw new Error(`expected one unit in ${name}`);
  return codexParser.parse(units[0] as SourceUnit, { withOutputs });
}

describe("codex prompts written only as response items (issue 26)", () => {
  test("a rollout resumed after the upgrade to 0.147+ keeps each later prompt and its reply in a turn of its own", () => {
    const { turns, session, skipped } = parseFolder("upgraded");
    expect(turns.map((turn) => [turn.number, turn.prompt, turn.response])).toEqual([
      [1, "hello", "Hello from mock LLM"],
      [2, "and what about the tests?", "The tests pass, says the mock LLM"],
      [3, "hello", "Hello from mock LLM"],
    ]);
    expect(session.turnCount).toBe(3);
    expect(skipped.count).toBe(0);
  });

  test("a user message and its user_message event are one prompt with the event's time; a later equal text is a new prompt", () => {
    const { turns } = parseFolder("upgraded");
    expect(turns.map((turn) => new Date(turn.timestamp).toISOString())).toEqual([
      "2026-08-19T01:48:58.386Z", // the event, 1 ms after its response item
      "2026-08-19T01:51:10.041Z", // no event: the response item's own time
      "2026-08-19T01:52:00.041Z",
    ]);
  });

  test("a message typed during a task and written only as a response item joins the task's turn", () => {
    const dir = mkdtempSync(join(tmpdir(), "recall-codex-steer-"));
    try {
      const source = readFileSync(join(fixtures, "upgraded", upgradedName), "utf8").split("\n");
      // A message typed while task 2 runs, written (0.147+) as a response item only, before the agent's reply.
      const steer = JSON.stringify({
        timestamp: "2026-08-19T01:51:10.045Z",
        type: "response_item",
        payload: { type: "message", role: "user", content: [{ type: "input_text", text: "only the unit tests" }] },
      });
      const at = source.findIndex((line) => line.includes('"ordinal": 15,'));
      source.splice(at, 0, steer);
      writeFileSync(join(dir, upgradedName), source.join("\n"));
      const { units } = listFolder(dir);
      const turns = codexParser.parse(units[0] as SourceUnit).turns;
      expect(turns.map((turn) => turn.prompt)).toEqual([
        "hello",
        "and what about the tests?\n\nonly the unit tests",
        "hello",
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  test("a ! shell command run while a task works joins that task's turn instead of vanishing", () => {
    const dir = mkdtempSync(join(tmpdir(), "recall-codex-shell-"));
    try {
      const source = readFileSync(join(fixtures, "upgraded", upgradedName), "utf8").split("\n");
      // The TUI records a `!cmd` as a user message (as in the 0.118 rollouts of ../shared/corpus), here during task 2.
      const shell = JSON.stringify({
        timestamp: "2026-08-19T01:51:10.045Z",
        type: "response_item",
        payload: {
          type: "message",
          role: "user",
          content: [
            {
              type: "input_text",
              text: "<user_shell_command>\n<command>\nbun test\n</command>\n<result>\nExit code: 0\n</result>\n</user_shell_command>",
            },
          ],
        },
      });
      source.splice(
        source.findIndex((line) => line.includes('"ordinal": 15,')),
        0,
        shell,
      );
      writeFileSync(join(dir, upgradedName), source.join("\n"));
      const turns = codexParser.parse(listFolder(dir).units[0] as SourceUnit).turns;
      expect(turns.map((turn) => turn.prompt)).toEqual(["hello", "and what about the tests?\n\n! bun test", "hello"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
  test("a user message and its event are matched apart from whitespace and the image markers only the message writes", () => {
    expect(mirrorKey("fix  the\n\nbug")).toBe(mirrorKey("fix the bug"));
    expect(mirrorKey("<image name=[Image #1]>\n[image]\n</image>\nlook at this")).toBe(
      mirrorKey("[Image #1] look at this"),
    );
    expect(mirrorKey("[image]")).toBe(mirrorKey(""));
    expect(mirrorKey("fix the bug")).not.toBe(mirrorKey("fix the bugs"));
  });
});

describe("codex tool call inputs are kept as written (issue 26)", () => {
  test("arguments that are not JSON, a patch that does not parse and a code-mode program keep their text as the input", () => {
    const { turns } = parseFolder("tool-inputs", true);
    const calls = turns[0]?.toolCalls ?? [];
    expect(calls.map((call) => [call.name, call.isError])).toEqual([
      ["Bash", true],
      ["Bash", true],
      ["Bash", false],
      ["Patch", true],
      ["Write", false],
      ["exec", false],
      ["Bash", false],
    ]);
    expect(calls[0]?.input).toBe('{"command":"mkdir -p myapp","workdir":"/Users/test_user/agent-sa');
    expect(calls[0]?.output).toStartWith("failed to parse function arguments");
    expect(calls[1]?.input).toBe("mkdir -p myapp");
    expect(calls[3]?.input).toBe("*** Begin Patch *** Create File: myapp/hoge.py +print(1 + 1) *** End Patch");
    expect(calls[5]?.input).toStartWith('const listing = await tools.exec_command({"cmd":"ls -la myapp"');
    expect(calls[5]?.input.length).toBe(300); // clipped like every compact input (compactInputMaxChars)
    expect(calls[6]?.input).toBe("ls -la myapp"); // local_shell_call: the script of bash -lc
  });
});

describe("codex records that cannot be placed are counted (issue 26)", () => {
  test("items before the first prompt, unknown kinds with text and an output without its call are skipped with reasons", () => {
    const { turns, skipped } = parseFolder("unplaced");
    expect(turns.map((turn) => turn.prompt)).toEqual(["cd to myapp and run python hoge.py"]);
    expect(skipped.count).toBe(10);
    const counts = Object.fromEntries(
      Object.entries(skipped.reasons ?? {}).map(([reason, { count }]) => [reason, count]),
    );
    expect(counts).toEqual({
      "not JSON": 2,
      "before the first prompt": 5,
      "unknown response_item type future_item_kind": 1,
      "unknown record kind future_record_kind": 1,
      "tool output without its call": 1,
    });
    expect(skipped.reasons?.["before the first prompt"]?.first).toMatch(/unplaced\/rollout-[^/]+\.jsonl:8$/);
    expect(skipped.reasons?.["tool output without its call"]?.first).toMatch(/\.jsonl:32$/);
  });
});

describe("codex files that hold no thread are reported by listUnits (issue 26)", () => {
  test("an empty rollout, one whose first line is another tool's and another tool's JSONL are rejected with a reason", () => {
    const dir = mkdtempSync(join(tmpdir(), "recall-codex-reject-"));
    try {
      const empty = join(dir, "rollout-2026-01-01T00-00-00-019c0000-0000-7000-8000-000000000001.jsonl");
      const foreign = join(dir, "rollout-2026-01-01T00-00-01-019c0000-0000-7000-8000-000000000002.jsonl");
      const other = join(dir, "other-tool.jsonl");
      writeFileSync(empty, "");
      const claudeLine = readFileSync(resolve(fixtures, "../samples/other-tool.jsonl"));
      writeFileSync(foreign, claudeLine);
      writeFileSync(other, claudeLine);
      const { units, rejected } = listFolder(dir);
      expect(units).toEqual([]);
      expect(rejected.sort()).toEqual(
        [
          [empty, "empty file"],
          [foreign, "no session_meta line"],
          [other, "no session_meta line"],
        ].sort() as Array<[string, string]>,
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a session_meta without an id in a file not named after its thread is rejected; named after it, it is a unit", () => {
    const dir = mkdtempSync(join(tmpdir(), "recall-codex-noid-"));
    try {
      const header = `${JSON.stringify({ timestamp: "2026-01-01T00:00:00Z", type: "session_meta", payload: { cwd: "/p" } })}\n`;
      writeFileSync(join(dir, "copy.jsonl"), header);
      writeFileSync(join(dir, "rollout-2026-01-01T00-00-00-019c0000-0000-7000-8000-000000000003.jsonl"), header);
      const { units, rejected } = listFolder(dir);
      expect(units.map((unit) => unit.sessionId)).toEqual(["019c0000-0000-7000-8000-000000000003"]);
      expect(rejected).toEqual([[join(dir, "copy.jsonl"), "no thread id"]]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a header still being written, a broken first line and a header past the first 8 KB still make a unit", () => {
    const dir = mkdtempSync(join(tmpdir(), "recall-codex-head-"));
    try {
      const id = (n: number) => `019c0000-0000-7000-8000-00000000001${n}`;
      const meta = (n: number, extra = "") =>
        JSON.stringify({
          timestamp: "2026-01-01T00:00:00Z",
          type: "session_meta",
          payload: { id: id(n), cwd: "/p", base_instructions: { text: extra } },
        });
      writeFileSync(join(dir, "writing.jsonl"), meta(1).slice(0, 120)); // no "\n" yet: Codex is writing it
      writeFileSync(join(dir, "torn.jsonl"), `{"timestamp": "2026-01-01T00:00:00Z", "ty\n${meta(2)}\n`);
      writeFileSync(join(dir, "long.jsonl"), `${meta(3, "x".repeat(20_000))}\n`);
      const { units, rejected } = listFolder(dir);
      expect(rejected).toEqual([]);
      expect(units.map((unit) => unit.sessionId).sort()).toEqual([id(1), id(2), id(3)]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
