import { describe, expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { opencodeParser } from "../../src/parsers/opencode.ts";
import type { ModelUsage } from "../../src/parsers/types.ts";

function parseAll(root: string) {
  return opencodeParser.listUnits(opencodeParser.scan([root]).containers).map((unit) => opencodeParser.parse(unit));
}

function totalOf(usage: readonly ModelUsage[]) {
  const sum = (key: keyof Omit<ModelUsage, "model">) => usage.reduce((total, entry) => total + (entry[key] ?? 0), 0);
  return {
    input: sum("input"),
    output: sum("output"),
    cacheRead: sum("cacheRead"),
    cacheWrite: sum("cacheWrite"),
    cost: sum("costUsd"),
  };
}

describe("OpenCode usage per turn (issue 38 item 14)", () => {
  test("tokens of the turn's assistant messages, reasoning counted as output, a cost of 0 read as not recorded", () => {
    // OpenCode 1.1.44 JSON storage after Anshgrag/amazon-tools-dashboard (its counts, made-up texts: fixture README):
    // one prompt answered by two `big-pickle` messages, {input 11169, output 179, reasoning 125, cache read 478, write 0, cost 0} and an aborted
    // one with every count 0.
    const [result] = parseAll(resolve(import.meta.dir, "../fixtures/opencode/usage"));
    expect(result?.turns.map((turn) => turn.usage)).toEqual([
      [{ model: "big-pickle", input: 11169, output: 304, cacheRead: 478, cacheWrite: 0, costUsd: null }],
    ]);
  });

  const corpusDb = resolve(import.meta.dir, "../../../shared/corpus/opencode/richardaiand__aiand-portfolio-web");
  test.skipIf(!existsSync(corpusDb))("recorded costs add up to the messages' `cost` (needs ../shared/corpus)", () => {
    // Sums over the session's assistant messages, read with sqlite3 from message.data: 33633 input, 2356 output,
    // $0.03683405.
    const result = parseAll(corpusDb).find((parsed) => parsed.session.id === "ses_1279fce82ffeZOJhNwml1w1Fu4");
    const total = totalOf(result?.turns.flatMap((turn) => turn.usage ?? []) ?? []);
    expect({ ...total, cost: Math.round(total.cost * 1e8) }).toEqual({
      input: 33633,
      output: 2356,
      cacheRead: 0,
      cacheWrite: 0,
      cost: 3683405,
    });
    expect(new Set(result?.turns.flatMap((turn) => turn.usage?.map((entry) => entry.model) ?? []))).toEqual(
      new Set(["moonshotai/kimi-k2.6"]),
    );
  });
});
