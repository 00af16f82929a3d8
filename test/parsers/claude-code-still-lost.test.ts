import { afterAll, describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { claudeCodeParser } from "../../src/parsers/claude-code.ts";
import type { SourceUnit } from "../../src/parsers/types.ts";

/**
 * Issue 37: Claude Code text that was in no turn and no count (test/fixtures/claude-code/README.md): tool results whose
 * call is not in the transcript (after-compaction.jsonl: a file that starts at a compaction boundary with a sub-agent's
 * report and a Read result whose calls were made before it), and sidechain lines of 2.x main files
 * (inline-sidechain-2.0.jsonl, sidechain-lines-2.1.jsonl).
 */
const fixtures = resolve(import.meta.dir, "../fixtures/claude-code");
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

/** The units of a fixture copied into a fresh project folder as a main transcript. */
function unitsOf(name: string): SourceUnit[] {
  const root = mkdtempSync(join(tmpdir(), "recall-cc-still-lost-"));
  temps.push(root);
  mkdirSync(join(root, "-home-dev-shop"));
  cpSync(join(fixtures, name), join(root, "-home-dev-shop", "44444444-4444-4444-8444-444444444444.jsonl"));
  return claudeCodeParser.listUnits(claudeCodeParser.scan([root]).containers);
}

/** The one unit of a fixture copied as a main transcript. */
function unitOf(name: string): SourceUnit {
  const units = unitsOf(name);
  if (units.length !== 1) throw new Error(`expected one unit for ${name}`);
  return units[0] as SourceUnit;
}

describe("claude code tool results without their call (issue 37)", () => {
  test("results at the start of a transcript that begins after a compaction open a turn and keep their text", () => {
    const { turns, skipped } = claudeCodeParser.parse(unitOf("after-compaction.jsonl"), { withOutputs: true });
    expect(turns.map((turn) => [turn.number, turn.prompt, turn.response])).toEqual([
      [
        1,
        "",
        "The audit found two bugs: the coupon discount is rounded before tax, and submitOrder retries without backoff.",
      ],
      [2, "fix the rounding first", "Moved the rounding after the tax is applied."],
    ]);
    const [report, read] = turns[0]?.toolCalls ?? [];
    expect(report).toMatchObject({ name: "Task", isError: false, subagentSessionId: "agent-a7c41e09b2d5f8361" });
    expect(report?.output).toStartWith("Audit of src/checkout: two findings.");
    expect(read).toMatchObject({ name: "unknown", input: "", isError: false });
    expect(read?.output).toContain("export function applyCoupon(total, coupon)");
    expect(skipped.count).toBe(0);
  });

  test("without outputs (the index's turn list) the calls are still there, named", () => {
    const { turns } = claudeCodeParser.parse(unitOf("after-compaction.jsonl"));
    expect(turns[0]?.toolCalls.map((call) => call.name)).toEqual(["Task", "unknown"]);
    expect(turns[0]?.toolCalls.every((call) => call.output === undefined)).toBe(true);
  });
});

describe("claude code 2.x main files with sidechain lines (issue 37)", () => {
  test("a 2.0.x file's inline sub-agent chain is a sub-agent session, as a 1.0.x one is", () => {
    const units = unitsOf("inline-sidechain-2.0.jsonl");
    expect(units.map((unit) => unit.sessionId)).toEqual(["44444444-4444-4444-8444-444444444444", "agent-s1"]);
    const main = claudeCodeParser.parse(units[0] as SourceUnit);
    expect(main.turns.map((turn) => turn.response).join(" ")).not.toContain("Sidechain text");
    expect(main.turns[0]?.toolCalls[0]?.subagentSessionId).toBe("agent-s1");
    expect(main.skipped.count).toBe(0);
    const chain = claudeCodeParser.parse(units[1] as SourceUnit);
    expect(chain.session).toMatchObject({ isSubagent: true, parentSessionId: "44444444-4444-4444-8444-444444444444" });
    expect(chain.turns.map((turn) => [turn.prompt, turn.response])).toEqual([
      ["Find foo everywhere", "Sidechain text that must not leak"],
    ]);
  });

  test("a 2.1.x main file's sidechain lines, which no agent file or chain unit holds, are counted", () => {
    const { turns, skipped } = claudeCodeParser.parse(unitOf("sidechain-lines-2.1.jsonl"));
    expect(turns.map((turn) => turn.response).join(" ")).not.toContain("Sidechain text");
    // The task prompt, the answer, the Grep call and its result.
    expect(skipped.reasons?.["sub-agent line in a main transcript"]?.count).toBe(4);
    expect(skipped.count).toBe(4);
  });
});
