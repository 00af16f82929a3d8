import { describe, expect, test } from "bun:test";
import { appendFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { codexParser } from "../../src/parsers/codex.ts";

// A real rollout (lanegrid/agtrace tests/samples/codex_session.jsonl, Codex 0.66.0, verbatim): two prompts, 13
// `token_count` events with a cumulative `total_token_usage`, each written twice (after the response and again
// after the next `turn_context`), the last of turn 1 repeated at the start of turn 2.
const home = resolve(import.meta.dir, "../fixtures/codex/usage");

function parse() {
  const [unit] = codexParser.listUnits(codexParser.scan([home]).containers);
  if (!unit) throw new Error("no unit");
  return codexParser.parse(unit);
}

describe("Codex usage per turn (issue 38 item 14)", () => {
  test("each turn gets the growth of the cumulative total, repeated events counted once", () => {
    const { turns } = parse();
    expect(turns.map((turn) => turn.usage)).toEqual([
      // total after turn 1: input 11031 (9728 cached), output 167
      [{ model: "gpt-5.1-codex-max", input: 1303, output: 167, cacheRead: 9728, cacheWrite: null, costUsd: null }],
      // total at the end 26740 (22912 cached), 408 output, minus turn 1's
      [{ model: "gpt-5.1-codex-max", input: 2525, output: 241, cacheRead: 13184, cacheWrite: null, costUsd: null }],
    ]);
  });

  test("the turns add up to the last total, not to the sum of totals or of every last_token_usage", () => {
    const usage = parse().turns.flatMap((turn) => turn.usage ?? []);
    const input = usage.reduce((sum, entry) => sum + (entry.input ?? 0) + (entry.cacheRead ?? 0), 0);
    const output = usage.reduce((sum, entry) => sum + (entry.output ?? 0), 0);
    expect([input, output]).toEqual([26740, 408]);
  });

  test("a parse resumed after the rollout grew gives the usage a full parse gives", () => {
    const dir = mkdtempSync(join(tmpdir(), "recall-codex-usage-"));
    try {
      const relative = "sessions/2025/12/09/rollout-2025-12-09T19-55-16-019b04ae-b1c6-7c72-a134-a4c2de66058c.jsonl";
      const lines = readFileSync(join(home, relative), "utf8").split("\n");
      mkdirSync(join(dir, "sessions/2025/12/09"), { recursive: true });
      // Cut inside turn 2, after the repeated event that opens it (line 29) and one more response (line 33).
      writeFileSync(join(dir, relative), `${lines.slice(0, 34).join("\n")}\n`);
      const unitOf = () => codexParser.listUnits(codexParser.scan([dir]).containers)[0]!;
      const first = codexParser.parse(unitOf());
      appendFileSync(join(dir, relative), lines.slice(34).join("\n"));
      const resumed = codexParser.parse(unitOf(), { resume: first.resume });
      expect(resumed.bytesVerified).toBeGreaterThan(0);
      expect(resumed.fromTurn).toBe(2);
      expect(resumed.turns.map((turn) => turn.usage)).toEqual(
        parse()
          .turns.slice(1)
          .map((turn) => turn.usage),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
