import { describe, expect, test } from "bun:test";
import type { ModelUsage } from "../../src/parsers/types.ts";
import { costOf, normalizeModel, priceOf } from "../../src/search/listing/prices.ts";

const usage = (model: string, counts: Partial<ModelUsage> = {}): ModelUsage => ({
  model,
  input: null,
  output: null,
  cacheRead: null,
  cacheWrite: null,
  costUsd: null,
  ...counts,
});

describe("estimated costs from the dated price table (issue 38 item 14)", () => {
  test("model ids as the agents write them find their family's price", () => {
    expect(normalizeModel("claude-sonnet-4-5-20250929")).toBe("claude-sonnet-4-5");
    expect(normalizeModel("openai/gpt-5.4-2026-03-05")).toBe("gpt-5.4");
    expect(priceOf("claude-sonnet-4-20250514")).toEqual({ input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 });
    expect(priceOf("gpt-5.1-codex-max")).toEqual({ input: 1.25, output: 10, cacheRead: 0.125, cacheWrite: null });
    expect(priceOf("gemini-2.5-flash")).toEqual({ input: 0.3, output: 2.5, cacheRead: 0.03, cacheWrite: null });
    expect(priceOf("big-pickle")).toBeUndefined();
  });

  test("a Claude turn is estimated per kind of token (usage-split.jsonl turn 1: $0.0599919)", () => {
    // 76 × $3 + 4 × $15 + 14363 × $0.30 + 14772 × $3.75 per million
    const cost = costOf(
      usage("claude-sonnet-4-20250514", { input: 76, output: 4, cacheRead: 14363, cacheWrite: 14772 }),
    );
    expect(cost.kind).toBe("estimated");
    expect(cost.kind !== "unpriced" && Math.round(cost.usd * 1e9)).toBe(59_991_900);
  });

  test("a recorded cost is kept as recorded; an unknown model is unpriced, never 0", () => {
    expect(costOf(usage("moonshotai/kimi-k2.6", { input: 10, costUsd: 0.0123 }))).toEqual({
      kind: "recorded",
      usd: 0.0123,
    });
    expect(costOf(usage("moonshotai/kimi-k2.6", { input: 10 }))).toEqual({ kind: "unpriced" });
  });
});
