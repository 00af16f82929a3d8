import { describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import { codexParser } from "../../src/parsers/codex.ts";
import type { ParseResult, SourceUnit } from "../../src/parsers/types.ts";

/** Fixtures of issue 37 (see their README.md for origin and licence). */
const fixtures = resolve(import.meta.dir, "../fixtures/codex/issue-37");
const upgraded = resolve(import.meta.dir, "../fixtures/codex/issue-26/upgraded");

function parseFolder(dir: string): ParseResult {
  const units = codexParser.listUnits(codexParser.scan([dir]).containers);
  if (units.length !== 1) throw new Error(`expected one unit in ${dir}`);
  return codexParser.parse(units[0] as SourceUnit);
}

describe("codex replies recorded only as agent_message events (issue 37)", () => {
  test("a turn whose reply is only an agent_message event keeps that reply as its response", () => {
    const { turns, skipped } = parseFolder(join(fixtures, "event-reply"));
    expect(turns.map((turn) => [turn.number, turn.prompt, turn.response])).toEqual([
      [1, "hello", "Hello from mock LLM"],
      [2, "and what about the tests?", "The tests pass, says the mock LLM"],
      [3, "hello", "Hello from mock LLM"],
    ]);
    expect(skipped.count).toBe(0);
  });

  test("a turn with both the assistant message and its agent_message mirror keeps the reply once", () => {
    const { turns } = parseFolder(upgraded);
    expect(turns[0]?.response).toBe("Hello from mock LLM");
  });
});
