import { describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { geminiCliParser } from "../../src/parsers/gemini-cli.ts";
import { makeGeminiHome, unitBelow } from "../fixtures/gemini-cli/helpers.ts";

// lanegrid/agtrace's real Gemini CLI chat (test/fixtures/gemini-cli/README.md): two prompts answered by 4 and 3
// `gemini-2.5-flash` replies whose `tokens` hold input (cached included), output, cached, thoughts and tool.
const root = resolve(import.meta.dir, "../fixtures/gemini-cli/agtrace/.gemini");
const original = "f0a689a6-b0ac-407f-afcc-4fafa9e14e8a";

describe("Gemini CLI usage per turn (issue 38 item 14)", () => {
  test("input without its cached part, thoughts counted as output, summed over the turn's replies", () => {
    const { turns } = geminiCliParser.parse(unitBelow(root, original));
    expect(turns.map((turn) => turn.usage)).toEqual([
      // input 13629+6219+6286+6402 − cached 6979+5864+5844+5836; output 52+38+53+19 + thoughts 86+33+34+39
      [{ model: "gemini-2.5-flash", input: 8013, output: 354, cacheRead: 24523, cacheWrite: null, costUsd: null }],
      // input 21501+6550+6686 − cached 7294+5809+5751; output 50+71+17 + thoughts 28+127+30
      [{ model: "gemini-2.5-flash", input: 15883, output: 323, cacheRead: 18854, cacheWrite: null, costUsd: null }],
    ]);
  });

  test("a JSONL reply re-appended as its tokens arrive counts once, with its last copy's tokens", () => {
    const { home, chats } = makeGeminiHome();
    try {
      const reply = (tokens: object | null) => ({
        id: "r1",
        timestamp: "2025-12-09T19:51:50.106Z",
        type: "gemini",
        model: "gemini-2.5-flash",
        content: "Okay.",
        tokens,
      });
      const lines = [
        { sessionId: "s-usage", projectHash: "p", startTime: "2025-12-09T19:51:29.418Z", kind: "main" },
        { id: "u1", timestamp: "2025-12-09T19:51:29.418Z", type: "user", content: "add myapp" },
        reply(null),
        reply({ input: 13629, output: 10, cached: 6979, thoughts: 0, tool: 0, total: 13639 }),
        reply({ input: 13629, output: 52, cached: 6979, thoughts: 86, tool: 0, total: 13767 }),
      ];
      writeFileSync(
        join(chats, "session-2025-12-09T19-51-s-usage.jsonl"),
        lines.map((l) => JSON.stringify(l)).join("\n"),
      );
      const { turns } = geminiCliParser.parse(unitBelow(home));
      expect(turns[0]?.usage).toEqual([
        { model: "gemini-2.5-flash", input: 6650, output: 138, cacheRead: 6979, cacheWrite: null, costUsd: null },
      ]);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
