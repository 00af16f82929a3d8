import { describe, expect, test } from "bun:test";
import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { geminiCliParser } from "../../src/parsers/gemini-cli.ts";
import type { ParseResult, Turn } from "../../src/parsers/types.ts";
import { makeGeminiHome, replayAt, unitBelow } from "../fixtures/gemini-cli/helpers.ts";
import { expectResumeMatchesFullParse, lineBoundaries } from "./replay.ts";

/**
 * lanegrid/agtrace's real Gemini CLI chat (MIT OR Apache-2.0) and two reshapings of it (test/fixtures/gemini-cli/README.md):
 * `-parts.json` in the Gemini API `Content` shape (`type: "model"` / `role: "user"`, text and thought parts in `parts`,
 * tool calls as `functionCall` parts, no ids), and a `.jsonl` whose replies are `type: "model"` with a Part list as
 * `content` and no id.
 */
const root = resolve(import.meta.dir, "../fixtures/gemini-cli/agtrace/.gemini");
const chats = join(root, "tmp/agent-sample/chats");
const ids = {
  original: "f0a689a6-b0ac-407f-afcc-4fafa9e14e8a",
  parts: "f0a689a6-b0ac-407f-afcc-4fafa9e1parts",
  jsonl: "f0a689a6-b0ac-407f-afcc-4fafa9e1jsonl",
};
const parse = (sessionId: string, withOutputs = false): ParseResult =>
  geminiCliParser.parse(unitBelow(root, sessionId), { withOutputs });
const withoutSession = (turns: Turn[]) => turns.map(({ sessionId: _, ...turn }) => turn);
const line = (value: object) => `${JSON.stringify(value)}\n`;

describe("issue 26: Gemini chats in the shapes other readers accept", () => {
  test("the CLI's own file gives two turns with their tool calls (the baseline the reshapings must match)", () => {
    const { turns, skipped } = parse(ids.original);
    expect(turns.map((turn) => turn.prompt)).toEqual([
      "add myapp directory and create myapp/hoge.py which shows result of print(1+1).",
      "cd to myapp and run python hoge.py",
    ]);
    expect(turns[1]?.response.endsWith('`python3 hoge.py` executed, outputting "2". Request complete.')).toBe(true);
    expect(turns.flatMap((turn) => turn.toolCalls.map((call) => `${call.name} ${call.input}`))).toEqual([
      "Bash mkdir myapp",
      "Write myapp/hoge.py",
      "Bash ls -F",
      "Bash cd myapp && python hoge.py",
      "Bash cd myapp && python3 hoge.py",
    ]);
    expect(skipped.count).toBe(0);
  });

  test("replies typed model with their text in parts or in a Part list, user text in parts, and no ids give the same turns", () => {
    const original = parse(ids.original);
    for (const id of [ids.parts, ids.jsonl]) {
      const shaped = parse(id);
      expect(withoutSession(shaped.turns)).toEqual(withoutSession(original.turns));
      expect(shaped.session.turnCount).toBe(2);
      expect(shaped.skipped.count).toBe(0);
    }
  });

  test("thought parts are not answer text", () => {
    const text = JSON.stringify([parse(ids.parts).turns, parse(ids.jsonl).turns]);
    expect(readFileSync(join(chats, "session-2025-12-09T19-51-f0a689a6-parts.json"), "utf8")).toContain(
      "Analyzing the Task's Requirements",
    );
    expect(text.includes("Analyzing the Task's Requirements")).toBe(false);
    expect(text.includes('"thought"')).toBe(false);
  });

  test("resuming the id-less JSONL at every line boundary gives the full parse, skips included", () => {
    const source = join(chats, "session-2025-12-09T19-52-f0a689a6.jsonl");
    expectResumeMatchesFullParse(replayAt, source);
    for (const cut of lineBoundaries(readFileSync(source))) {
      const replay = replayAt(source, cut);
      expect(replay.resumed.skipped).toEqual(replay.full.skipped);
      expect(replay.resumed.bytesRead).toBeLessThanOrEqual(replay.appendedBytes);
    }
  });

  test("a message without an id is kept under its line, cut by a rewind to an earlier id, and never replaced by a later line", () => {
    const { home, chats: folder } = makeGeminiHome();
    try {
      const file = join(folder, "session-2026-05-03T10-00-77777777.jsonl");
      const reply = (time: string, text: string) => line({ timestamp: time, type: "model", content: [{ text }] });
      writeFileSync(
        file,
        line({
          sessionId: "77777777-0000-4000-8000-000000000007",
          projectHash: "x",
          startTime: "2026-05-03T10:00:00.000Z",
        }) +
          line({ id: "u1", timestamp: "2026-05-03T10:00:01.000Z", type: "user", content: "Rename foo to bar" }) +
          reply("2026-05-03T10:00:02.000Z", "Renamed.") +
          line({ id: "u2", timestamp: "2026-05-03T10:00:03.000Z", type: "user", content: "Undo that" }) +
          reply("2026-05-03T10:00:04.000Z", "REWOUND answer"),
      );
      const first = geminiCliParser.parse(unitBelow(home));
      expect(first.turns.map((turn) => [turn.prompt, turn.response])).toEqual([
        ["Rename foo to bar", "Renamed."],
        ["Undo that", "REWOUND answer"],
      ]);
      appendFileSync(
        file,
        line({ $rewindTo: "u2" }) +
          line({ id: "u3", timestamp: "2026-05-03T10:01:00.000Z", type: "user", content: "Also rename baz" }) +
          reply("2026-05-03T10:01:02.000Z", "Renamed baz.") +
          reply("2026-05-03T10:01:02.000Z", "Renamed baz."),
      );
      const full = geminiCliParser.parse(unitBelow(home));
      expect(full.turns.map((turn) => [turn.number, turn.prompt, turn.response])).toEqual([
        [1, "Rename foo to bar", "Renamed."],
        [2, "Also rename baz", "Renamed baz.\n\nRenamed baz."],
        [-1, "Undo that", "REWOUND answer"], // the rewind cut it, with its id-less reply: a rewound turn (issue 26)
      ]);
      const resumed = geminiCliParser.parse(unitBelow(home), { resume: first.resume });
      expect(resumed.session).toEqual(full.session);
      expect([...first.turns.filter((turn) => turn.number < resumed.fromTurn), ...resumed.turns]).toEqual(full.turns);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});
