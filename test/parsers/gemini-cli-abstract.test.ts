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

  test("neither the summary nor the acknowledgement after it is a turn", () => {
    expect(result.turns.map((turn) => [turn.prompt, turn.response])).toEqual([
      ["Now add the tests for the last page and a bad cursor", "Both tests pass."],
      ["Add an index on orders.created_at", "Added the index in migrations/0004_orders_created_at.sql."],
    ]);
    expect(JSON.stringify(result.turns)).not.toContain("state_snapshot");
    expect(JSON.stringify(result.turns)).not.toContain("additional context");
  });

  test("a resumed parse at every line returns the whole abstract of a full parse", () => {
    expectResumeMatchesFullParse(replayAt, chat);
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
