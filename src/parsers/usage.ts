/**
 * Token usage per turn, in one vocabulary for every source (issue 38 item 14): which models answered and the token
 * counts and cost the agent itself recorded. Each parser reads its source's own fields (docs/formats.md: Claude Code
 * §1.5 `message.usage`, OpenCode §2 assistant `cost`/`tokens`, Codex §3.2 `token_count`, Gemini CLI §4.2 `tokens`) and
 * adds them here per model; nothing is estimated at this layer (prices: src/search/listing/prices.ts).
 */
import type { ModelUsage } from "./types.ts";

/** Token counts of one model call or sum of calls; null = the source did not record that count. */
export interface TokenCounts {
  input: number | null;
  output: number | null;
  cacheRead: number | null;
  cacheWrite: number | null;
}

/** A non-negative finite count from a JSON value, or null (missing, negative, not a number). */
export function countOf(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

/** `a + b` where null means unknown: unknown only when both are; otherwise the known part. */
export function plusCount(a: number | null, b: number | null): number | null {
  return a === null ? b : b === null ? a : a + b;
}

/**
 * Add one call's counts (and recorded cost in USD, null when none) to the entry of `model` in `usage`, creating it
 * at the end when the model is new (so the list keeps first-answer order). Mutates `usage`.
 */
export function addModelUsage(
  usage: ModelUsage[],
  model: string,
  counts: TokenCounts,
  costUsd: number | null = null,
): void {
  let entry = usage.find((item) => item.model === model);
  if (!entry) {
    entry = { model, input: null, output: null, cacheRead: null, cacheWrite: null, costUsd: null };
    usage.push(entry);
  }
  entry.input = plusCount(entry.input, counts.input);
  entry.output = plusCount(entry.output, counts.output);
  entry.cacheRead = plusCount(entry.cacheRead, counts.cacheRead);
  entry.cacheWrite = plusCount(entry.cacheWrite, counts.cacheWrite);
  entry.costUsd = plusCount(entry.costUsd, costUsd);
}

/**
 * The main model of a turn: the one with the most output tokens (unknown counts as 0), the first of equals; null for
 * an empty list. Example: [{a, output 10}, {b, output 90}] → "b".
 */
export function mainModel(usage: readonly ModelUsage[]): string | null {
  let best: ModelUsage | undefined;
  for (const entry of usage) if (!best || (entry.output ?? 0) > (best.output ?? 0)) best = entry;
  return best?.model ?? null;
}
