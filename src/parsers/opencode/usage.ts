/**
 * OpenCode token usage and cost of one assistant message (docs/formats.md §2 message JSON, issue 38 item 14):
 * `modelID`, `tokens{input, output, reasoning, cache{read, write}}` and `cost` (USD), which OpenCode computes from its
 * own price list. Reasoning tokens are recorded apart and billed as output, so they are added to `output`. A cost of 0
 * is what OpenCode writes for a model it has no price for (subscriptions, local models), so 0 is read as "not
 * recorded" and left for an estimate; the per-step `step-finish` parts repeat the message's sums and are not read.
 */
import { countOf, plusCount, type TokenCounts } from "../usage.ts";
import { asObject } from "../shared/fields.ts";

/** What an assistant message records: its model, its token counts and its cost in USD (null when none). */
export interface MessageUsage {
  model: string;
  counts: TokenCounts;
  costUsd: number | null;
}

/** The usage of an assistant message's JSON (`message.data`), or null when it names no model or records no tokens. */
export function messageUsage(data: Record<string, unknown>): MessageUsage | null {
  const model = typeof data.modelID === "string" ? data.modelID : "";
  const tokens = asObject(data.tokens);
  if (!model || !tokens) return null;
  const cache = asObject(tokens.cache);
  const cost = countOf(data.cost);
  return {
    model,
    counts: {
      input: countOf(tokens.input),
      output: plusCount(countOf(tokens.output), countOf(tokens.reasoning)),
      cacheRead: countOf(cache?.read),
      cacheWrite: countOf(cache?.write),
    },
    costUsd: cost === null || cost === 0 ? null : cost,
  };
}
