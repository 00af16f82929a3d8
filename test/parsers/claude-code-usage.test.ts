import { describe, expect, test } from "bun:test";
import { statSync } from "node:fs";
import { resolve } from "node:path";
import { claudeCodeParser, unitForContainer } from "../../src/parsers/claude-code.ts";

// A real transcript (chiphuyen/sniffly mock-data, Claude Code 1.0.17, verbatim): four API responses written as 12
// split lines that all repeat `usage`, one of them with output_tokens 1 on its first line and 273 on its last.
const path = resolve(import.meta.dir, "../fixtures/claude-code/usage-split.jsonl");

function parse() {
  const stat = statSync(path);
  return claudeCodeParser.parse(
    unitForContainer({
      source: "claude-code",
      path,
      fingerprint: `${stat.size}:${stat.mtimeMs}`,
      sizeBytes: stat.size,
    }),
  );
}

describe("Claude Code usage per turn (issue 38 item 14)", () => {
  test("counts each message.id once with its last split line's usage", () => {
    const { turns } = parse();
    expect(turns.map((turn) => turn.usage)).toEqual([
      // msg_01Vb… (4, 3, 0, 14363) + msg_01Na… (72, 1, 14363, 409); summed per line it would be 3×… + 4×…
      [
        {
          model: "claude-sonnet-4-20250514",
          input: 76,
          output: 4,
          cacheRead: 14363,
          cacheWrite: 14772,
          costUsd: null,
        },
      ],
      // msg_01WX… (last line: 4, 273, 14772, 637; its first line says output 1) + msg_014z… (8, 1, 15409, 591)
      [
        {
          model: "claude-sonnet-4-20250514",
          input: 12,
          output: 274,
          cacheRead: 30181,
          cacheWrite: 1228,
          costUsd: null,
        },
      ],
    ]);
  });

  test("the session total is the once-per-message sum, not the per-line sum (316 input, 288 output)", () => {
    const usage = parse().turns.flatMap((turn) => turn.usage ?? []);
    const sum = (key: "input" | "output" | "cacheRead" | "cacheWrite") =>
      usage.reduce((total, entry) => total + (entry[key] ?? 0), 0);
    expect([sum("input"), sum("output"), sum("cacheRead"), sum("cacheWrite")]).toEqual([88, 278, 44544, 16000]);
  });

  test("a turn without assistant usage (hand-written lines without `usage`) has none", () => {
    const stat = statSync(resolve(import.meta.dir, "../fixtures/claude-code/split-assistant.jsonl"));
    const split = resolve(import.meta.dir, "../fixtures/claude-code/split-assistant.jsonl");
    const { turns } = claudeCodeParser.parse(
      unitForContainer({ source: "claude-code", path: split, fingerprint: `${stat.size}`, sizeBytes: stat.size }),
    );
    expect(turns.every((turn) => turn.usage === undefined)).toBe(true);
  });

  test("a message whose split lines straddle the next prompt counts once, in the turn of its last line", () => {
    // Lines 232–281 of obra/episodic-memory's large-conversation.jsonl (Claude Code 1.0.120, MIT, verbatim): the user
    // typed the next prompt while msg_01QDGy… streamed, so its text line (1 in, 1 out) is before the prompt and its
    // tool_use line (1 in, 274 out, the final usage) after it. Counted in both turns, input and output were 1 too high.
    const straddle = resolve(import.meta.dir, "../fixtures/claude-code/usage-straddle.jsonl");
    const stat = statSync(straddle);
    const { turns } = claudeCodeParser.parse(
      unitForContainer({ source: "claude-code", path: straddle, fingerprint: `${stat.size}`, sizeBytes: stat.size }),
    );
    expect(turns.map((turn) => turn.usage)).toEqual([
      [
        {
          model: "claude-sonnet-4-20250514",
          input: 61,
          output: 2456,
          cacheRead: 6502367,
          cacheWrite: 437010,
          costUsd: null,
        },
      ],
      [
        {
          model: "claude-sonnet-4-20250514",
          input: 1,
          output: 411,
          cacheRead: 881353,
          cacheWrite: 3282,
          costUsd: null,
        },
      ],
    ]);
  });

  test("an abandoned answer that kept no text counts in the turn it answered", () => {
    // usage-abandoned.jsonl (hand-made after a real Claude Code 2.1 transcript): "continue" got an answer that kept only
    // thinking (22801 in, 151 out), then the API failed and the retry hangs off the error line, so that answer is on no
    // branch and makes no rewound turn; its tokens were spent on turn 2 and count there.
    const path = resolve(import.meta.dir, "../fixtures/claude-code/usage-abandoned.jsonl");
    const stat = statSync(path);
    const { turns } = claudeCodeParser.parse(
      unitForContainer({ source: "claude-code", path, fingerprint: `${stat.size}`, sizeBytes: stat.size }),
    );
    expect(turns.map((turn) => turn.usage?.map((entry) => [entry.input, entry.output]))).toEqual([
      [[300, 30]],
      [[22801, 151]],
      [[400, 40]],
    ]);
  });
});
