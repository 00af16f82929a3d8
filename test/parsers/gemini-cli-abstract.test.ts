import { describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { compressionSummary } from "../../src/parsers/gemini-cli/abstract.ts";
import { geminiCliParser } from "../../src/parsers/gemini-cli.ts";
import { makeGeminiHome, replayAt, unitBelow } from "../fixtures/gemini-cli/helpers.ts";
import { expectResumeMatchesFullParse } from "./replay.ts";

const root = resolve(import.meta.dir, "../fixtures/gemini-cli/compression");
const chat = join(root, "tmp/shop-app/chats/session-2026-04-12T08-00-eeee5555.jsonl");

describe("Gemini CLI abstract (issue 41)", () => {
  const result = geminiCliParser.parse(unitBelow(root));

  test("the compression summary is the abstract; the session summary stays the title and is not repeated", () => {
    expect(result.session.title).toBe("Paginate the orders API");
    expect(result.session.abstract?.map((part) => [part.source, part.at])).toEqual([
      ["compaction", Date.parse("2026-04-12T08:02:30.000Z")],
    ]);
    const text = result.session.abstract?.[0]?.text ?? "";
    expect(text.startsWith("<overall_goal>\n        Paginate GET /orders with an opaque cursor.")).toBe(true);
    expect(text.endsWith("</current_plan>")).toBe(true);
  });

  test("the turns the compression took out of the history stay; neither the summary nor the acknowledgement is one", () => {
    // The checkpoint re-lists the history as [summary, acknowledgement, the second turn]: the first turn is gone from
    // it, and the CLI's own loader would drop it. recall is the archive: it stays turn 1.
    expect(result.turns.map((turn) => [turn.number, turn.prompt, turn.response])).toEqual([
      [
        1,
        "Add cursor pagination to GET /orders",
        "I added `cursor` and `limit` query parameters to GET /orders in src/routes/orders.ts.",
      ],
      [2, "Now add the tests for the last page and a bad cursor", "Both tests pass."],
      [3, "Add an index on orders.created_at", "Added the index in migrations/0004_orders_created_at.sql."],
    ]);
    expect(JSON.stringify(result.turns)).not.toContain("state_snapshot");
    expect(JSON.stringify(result.turns)).not.toContain("additional context");
  });

  test("a resumed parse at every line returns the whole abstract of a full parse", () => {
    expectResumeMatchesFullParse(replayAt, chat);
  });

  test("a checkpoint that masks an old tool output leaves the output recall read (toolOutputMaskingService.ts)", () => {
    const { home, chats } = makeGeminiHome();
    const call = (output: string) => ({
      id: "m-1",
      name: "run_shell_command",
      args: { command: "npm test" },
      result: [{ functionResponse: { id: "m-1", name: "run_shell_command", response: { output } } }],
      status: "success",
      timestamp: "2026-04-12T08:00:03.000Z",
    });
    const answer = { id: "m-g1", timestamp: "2026-04-12T08:00:04.000Z", type: "gemini", content: "3 tests failed." };
    const masked = "<tool_output_masked>\nOutput saved to tool-outputs/m-1.txt\n</tool_output_masked>";
    try {
      const lines = [
        {
          sessionId: "abab7777-0000-4000-8000-000000000007",
          projectHash: "a".repeat(64),
          startTime: "2026-04-12T08:00:00.000Z",
        },
        { id: "m-u1", timestamp: "2026-04-12T08:00:01.000Z", type: "user", content: [{ text: "run the tests" }] },
        { ...answer, toolCalls: [call("FAIL src/cart.test.ts: expected 12.5 to equal 12.50")] },
        {
          $set: {
            messages: [
              { id: "m-u1", timestamp: "2026-04-12T08:00:01.000Z", type: "user", content: [{ text: "run the tests" }] },
              { ...answer, content: [{ text: "3 tests failed." }], toolCalls: [call(masked)] },
            ],
            lastUpdated: "2026-04-12T08:05:00.000Z",
          },
        },
      ];
      writeFileSync(
        join(chats, "session-2026-04-12T08-00-abab7777.jsonl"),
        lines.map((line) => `${JSON.stringify(line)}\n`).join(""),
      );
      const { turns } = geminiCliParser.parse(unitBelow(home), { withOutputs: true });
      expect(turns.map((turn) => [turn.prompt, turn.response])).toEqual([["run the tests", "3 tests failed."]]);
      expect(turns[0]!.toolCalls.map((used) => used.output)).toEqual([
        "FAIL src/cart.test.ts: expected 12.5 to equal 12.50",
      ]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("a summary a later $set replaced is an agent title; the last one is the title", () => {
    const { home, chats } = makeGeminiHome();
    try {
      const lines = [
        {
          sessionId: "ffff6666-0000-4000-8000-000000000006",
          projectHash: "a".repeat(64),
          startTime: "2026-04-12T08:00:00.000Z",
        },
        { id: "f-u1", timestamp: "2026-04-12T08:00:01.000Z", type: "user", content: [{ text: "hello" }] },
        { $set: { summary: "Greeting", lastUpdated: "2026-04-12T08:00:02.000Z" } },
        { $set: { summary: "Say hello to the shop", lastUpdated: "2026-04-12T08:00:09.000Z" } },
      ];
      writeFileSync(
        join(chats, "session-2026-04-12T08-00-ffff6666.jsonl"),
        lines.map((line) => `${JSON.stringify(line)}\n`).join(""),
      );
      const { session } = geminiCliParser.parse(unitBelow(home));
      expect(session.title).toBe("Say hello to the shop");
      expect(session.abstract).toEqual([
        { source: "agent_title", text: "Greeting", at: Date.parse("2026-04-12T08:00:02.000Z") },
      ]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });

  test("only a text that is a state snapshot (after an optional scratchpad) is a summary", () => {
    expect(compressionSummary("<scratchpad>think</scratchpad>\n<state_snapshot> y </state_snapshot>")).toBe("y");
    expect(compressionSummary("fix the <state_snapshot> parsing")).toBeNull();
    expect(compressionSummary("<state_snapshot></state_snapshot>")).toBeNull();
  });
});
