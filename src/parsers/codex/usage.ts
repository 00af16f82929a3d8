/**
 * Codex token usage (docs/formats.md §3.2–§3.3, issue 38 item 14): the model of each `turn_context` and the
 * `token_count` events. `total_token_usage` is cumulative over the thread and Codex writes the same event twice
 * (after a response and again at the next turn context), so a turn gets the growth of the total since the last
 * event, never the totals summed nor every `last_token_usage` summed. A total that goes down belongs to a new process
 * (a session resumed later starts its counter again: five times in one real rollout), so that event adds its own
 * `last_token_usage` and counting goes on from the new total. Lines copied from a forked parent only move the
 * starting point. Counts: `input_tokens` includes `cached_input_tokens`, `output_tokens` includes
 * `reasoning_output_tokens`; Codex records no cache writes and no cost.
 */
import { asObject } from "../shared/fields.ts";
import { countOf, type TokenCounts } from "../usage.ts";

/** One `token_count` figure: input (cached included), cached input and output (reasoning included) tokens. */
export interface CodexTotals {
  input: number;
  cached: number;
  output: number;
}

/** A usage item of one rollout line: the model a `turn_context` names, or a `token_count` event with usage. */
export type UsageItem =
  | { k: "model"; n: number; model: string }
  | { k: "tokens"; n: number; total: CodexTotals | null; last: CodexTotals | null };

/** The usage item of a decoded line `{type, payload}` (`n` its 1-based line), or null for any other line. */
export function usageItemOfLine(line: Record<string, unknown>, n: number): UsageItem | null {
  const payload = asObject(line.payload);
  if (line.type === "turn_context")
    return typeof payload?.model === "string" && payload.model ? { k: "model", n, model: payload.model } : null;
  if (line.type !== "event_msg" || payload?.type !== "token_count") return null;
  const info = asObject(payload.info);
  const total = totalsOf(info?.total_token_usage);
  const last = totalsOf(info?.last_token_usage);
  return total || last ? { k: "tokens", n, total, last } : null;
}

function totalsOf(value: unknown): CodexTotals | null {
  const usage = asObject(value);
  const input = countOf(usage?.input_tokens);
  const output = countOf(usage?.output_tokens);
  if (input === null || output === null) return null;
  return { input, cached: Math.min(countOf(usage?.cached_input_tokens) ?? 0, input), output };
}

/**
 * The counts one `token_count` event adds, given the cumulative total seen before it (`before`, null at the start):
 * the growth of the total; nothing (null) for a repeated event; the event's `last_token_usage` when the total has
 * none or went down (a reset). Example: before {100, 80, 10}, total {150, 120, 30} → input 10, cacheRead 40, output 20.
 */
export function tokensAdded(before: CodexTotals | null, item: Extract<UsageItem, { k: "tokens" }>): TokenCounts | null {
  let added = item.last;
  if (item.total) {
    const grown = {
      input: item.total.input - (before?.input ?? 0),
      cached: item.total.cached - (before?.cached ?? 0),
      output: item.total.output - (before?.output ?? 0),
    };
    if (grown.input === 0 && grown.cached === 0 && grown.output === 0) return null;
    if (grown.input >= 0 && grown.cached >= 0 && grown.output >= 0) added = grown;
  }
  if (!added) return null;
  return { input: added.input - added.cached, output: added.output, cacheRead: added.cached, cacheWrite: null };
}
