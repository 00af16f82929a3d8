/**
 * Estimated costs (issue 38 item 14): a small, dated price table for the models the agents record, used only where the
 * agent records no cost itself (OpenCode records one; Claude Code, Codex and Gemini CLI do not).
 *
 * Source: LiteLLM's `model_prices_and_context_window.json` (github.com/BerriAI/litellm, commit
 * 00035b69f416be24e2e323c13198d9b7d2d1bdf9, read 2026-11-28), the table ccusage estimates from: its
 * `input_cost_per_token`, `output_cost_per_token`, `cache_read_input_token_cost` and `cache_creation_input_token_cost`
 * (the 5-minute cache write), here per million tokens. Entries read from the table: the Anthropic `claude-*` keys, the
 * OpenAI `gpt-5`, `gpt-5.1`, `gpt-5.2`, `gpt-5.4`, `gpt-5.4-mini`, `gpt-5.5` keys and the `gemini/gemini-*` keys. The `-codex` variants
 * were not read there: they take their base model's price (OpenAI lists them alike; `gpt-5.1-codex-mini` that of
 * `gpt-5-mini`). Long-context tiers (Claude Sonnet 4/4.5 and Gemini Pro above 200k prompt tokens, GPT above 272k) are
 * not applied: usage is summed per turn, so the size of each call is not known, and such turns are underestimated.
 * OpenAI and Gemini price no cache writes (their agents record none); written tokens of such a model count as input.
 */
import type { ModelUsage } from "../../parsers/types.ts";

/** USD per million tokens of each kind; `cacheWrite` null where the provider prices no cache write. */
export interface ModelPrice {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number | null;
}

/** The table's source and the day it was read, for the page to cite. */
export const priceTableSource = {
  name: "LiteLLM model_prices_and_context_window.json",
  url: "https://github.com/BerriAI/litellm/blob/00035b69f416be24e2e323c13198d9b7d2d1bdf9/model_prices_and_context_window.json",
  readOn: "2026-11-28",
} as const;

const price = (input: number, output: number, cacheRead: number, cacheWrite: number | null): ModelPrice => ({
  input,
  output,
  cacheRead,
  cacheWrite,
});

/** Prices by normalized model id ({@link normalizeModel}). */
const prices: Record<string, ModelPrice> = {
  "claude-opus-4-7": price(5, 25, 0.5, 6.25),
  "claude-opus-4-6": price(5, 25, 0.5, 6.25),
  "claude-opus-4-5": price(5, 25, 0.5, 6.25),
  "claude-opus-4-1": price(15, 75, 1.5, 18.75),
  "claude-opus-4": price(15, 75, 1.5, 18.75),
  "claude-4-opus": price(15, 75, 1.5, 18.75),
  "claude-sonnet-4-6": price(3, 15, 0.3, 3.75),
  "claude-sonnet-4-5": price(3, 15, 0.3, 3.75),
  "claude-sonnet-4": price(3, 15, 0.3, 3.75),
  "claude-4-sonnet": price(3, 15, 0.3, 3.75),
  "claude-haiku-4-5": price(1, 5, 0.1, 1.25),
  "claude-3-7-sonnet": price(3, 15, 0.3, 3.75),
  "claude-3-5-haiku": price(0.8, 4, 0.08, 1),
  "claude-3-haiku": price(0.25, 1.25, 0.03, 0.3),
  "claude-3-opus": price(15, 75, 1.5, 18.75),
  "gpt-5": price(1.25, 10, 0.125, null),
  "gpt-5-codex": price(1.25, 10, 0.125, null),
  "gpt-5.1": price(1.25, 10, 0.125, null),
  "gpt-5.1-codex": price(1.25, 10, 0.125, null),
  "gpt-5.1-codex-max": price(1.25, 10, 0.125, null),
  "gpt-5.1-codex-mini": price(0.25, 2, 0.025, null),
  "gpt-5.2": price(1.75, 14, 0.175, null),
  "gpt-5.2-codex": price(1.75, 14, 0.175, null),
  "gpt-5.3-codex": price(1.75, 14, 0.175, null),
  "gpt-5.4": price(2.5, 15, 0.25, null),
  "gpt-5.4-mini": price(0.75, 4.5, 0.075, null),
  "gpt-5.5": price(5, 30, 0.5, null),
  "gemini-2.5-pro": price(1.25, 10, 0.125, null),
  "gemini-2.5-flash": price(0.3, 2.5, 0.03, null),
  "gemini-2.5-flash-lite": price(0.1, 0.4, 0.01, null),
  "gemini-3-pro-preview": price(2, 12, 0.2, null),
  "gemini-3.1-pro-preview": price(2, 12, 0.2, null),
  "gemini-3.1-pro-preview-customtools": price(2, 12, 0.2, null),
  "gemini-3-flash-preview": price(0.5, 3, 0.05, null),
};

/**
 * A model id as the table keys it: lower-case, without a provider prefix (`anthropic/`, `google/`), a Bedrock or
 * Vertex suffix (`-v1:0`, `@20250929`) or a trailing release date (`-20250929`, `-2026-03-05`).
 * Examples: `claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`; `openai/gpt-5.4-2026-03-05` → `gpt-5.4`.
 */
export function normalizeModel(model: string): string {
  return model
    .toLowerCase()
    .replace(/^.*\//, "")
    .replace(/@.*$/, "")
    .replace(/-v\d+:\d+$/, "")
    .replace(/-(\d{8}|\d{4}-\d{2}-\d{2})$/, "");
}

/** The price of a model id, or undefined when the table has none (an unpriced model). */
export function priceOf(model: string): ModelPrice | undefined {
  return prices[normalizeModel(model)];
}

/**
 * What one model's usage in a turn cost: `recorded` when the agent recorded a cost (USD as recorded); `estimated`
 * from the table (tokens × price per million; a count the agent did not record adds nothing; cache writes of a model
 * without a cache-write price at the input price); `unpriced` when the agent
 * recorded none and the table has no price for the model: no number, never 0.
 */
export type UsageCost = { kind: "recorded" | "estimated"; usd: number } | { kind: "unpriced" };

/** The {@link UsageCost} of one `ModelUsage` entry. Example: sonnet-4, 76 in, 4 out, 14363 read, 14772 written → $0.0599919. */
export function costOf(usage: ModelUsage): UsageCost {
  if (usage.costUsd !== null) return { kind: "recorded", usd: usage.costUsd };
  const rates = priceOf(usage.model);
  if (!rates) return { kind: "unpriced" };
  const usd =
    ((usage.input ?? 0) * rates.input +
      (usage.output ?? 0) * rates.output +
      (usage.cacheRead ?? 0) * rates.cacheRead +
      (usage.cacheWrite ?? 0) * (rates.cacheWrite ?? rates.input)) /
    1_000_000;
  return { kind: "estimated", usd };
}
