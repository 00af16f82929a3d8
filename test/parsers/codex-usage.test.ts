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

  test("a total that starts again (the session resumed in a new process) adds that event's last_token_usage", () => {
    // Seen in a real 0.77 rollout of ../shared/corpus (no licence: only the shape is taken): 5 times in one file the
    // total fell back near 0, e.g. 510212 input → 20296 with last_token_usage 20296; the spend is the sum of the runs.
    const dir = mkdtempSync(join(tmpdir(), "recall-codex-reset-"));
    try {
      const id = "019b0000-0000-7000-8000-00000000beef";
      const usage = (input: number, cached: number, output: number) => ({
        input_tokens: input,
        cached_input_tokens: cached,
        output_tokens: output,
        reasoning_output_tokens: 0,
        total_tokens: input + output,
      });
      const tokens = (time: string, total: object, last: object) => ({
        timestamp: time,
        type: "event_msg",
        payload: { type: "token_count", info: { total_token_usage: total, last_token_usage: last } },
      });
      const lines = [
        {
          timestamp: "2026-01-05T10:00:00.000Z",
          type: "session_meta",
          payload: { id, cwd: "/home/dev/app", cli_version: "0.77.0" },
        },
        {
          timestamp: "2026-01-05T10:00:01.000Z",
          type: "event_msg",
          payload: { type: "user_message", message: "first" },
        },
        {
          timestamp: "2026-01-05T10:00:01.000Z",
          type: "turn_context",
          payload: { cwd: "/home/dev/app", model: "gpt-5.2-codex" },
        },
        tokens("2026-01-05T10:00:05.000Z", usage(5000, 4000, 100), usage(5000, 4000, 100)),
        tokens("2026-01-05T10:00:09.000Z", usage(11000, 9000, 300), usage(6000, 5000, 200)),
        {
          timestamp: "2026-01-06T09:00:00.000Z",
          type: "event_msg",
          payload: { type: "user_message", message: "second" },
        },
        {
          timestamp: "2026-01-06T09:00:00.000Z",
          type: "turn_context",
          payload: { cwd: "/home/dev/app", model: "gpt-5.2-codex" },
        },
        tokens("2026-01-06T09:00:04.000Z", usage(2000, 1000, 50), usage(2000, 1000, 50)),
        tokens("2026-01-06T09:00:08.000Z", usage(4500, 3000, 90), usage(2500, 2000, 40)),
      ];
      const folder = join(dir, "sessions/2026/01/05");
      mkdirSync(folder, { recursive: true });
      writeFileSync(
        join(folder, `rollout-2026-01-05T10-00-00-${id}.jsonl`),
        `${lines.map((line) => JSON.stringify(line)).join("\n")}\n`,
      );
      const [unit] = codexParser.listUnits(codexParser.scan([dir]).containers);
      const { turns } = codexParser.parse(unit!);
      expect(turns.map((turn) => turn.usage)).toEqual([
        [{ model: "gpt-5.2-codex", input: 2000, output: 300, cacheRead: 9000, cacheWrite: null, costUsd: null }],
        // the reset event adds its own call (2000 in, 1000 cached, 50 out), then the growth from there
        [{ model: "gpt-5.2-codex", input: 1500, output: 90, cacheRead: 3000, cacheWrite: null, costUsd: null }],
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
