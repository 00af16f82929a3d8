/**
 * Gemini CLI token usage of one reply (docs/formats.md §4.2, issue 38 item 14): `model` and `tokens{input, output,
 * cached, thoughts, tool, total}` as the CLI copies them from the API's usage metadata (`promptTokenCount`,
 * `candidatesTokenCount`, `cachedContentTokenCount`, `thoughtsTokenCount`, `toolUsePromptTokenCount`). The prompt
 * count includes the cached part (in the corpus `total` = input + output + thoughts + tool, with cached inside input),
 * so `input` = input − cached + tool and `cacheRead` = cached; thoughts are billed as output and added to `output`.
 * The CLI records no cache writes and no cost. A re-appended message (JSONL, §4.3) replaces the earlier copy before
 * this is read, so each reply counts once.
 */
import { asObject } from "../shared/fields.ts";
import { countOf, plusCount, type TokenCounts } from "../usage.ts";

/** The model and counts of a reply record, or null when it names no model or has no `tokens` (which may be null). */
export function replyUsage(record: Record<string, unknown>): { model: string; counts: TokenCounts } | null {
  const tokens = asObject(record.tokens);
  if (typeof record.model !== "string" || !record.model || !tokens) return null;
  const input = countOf(tokens.input);
  const cached = countOf(tokens.cached);
  return {
    model: record.model,
    counts: {
      input: input === null ? null : Math.max(0, input - (cached ?? 0)) + (countOf(tokens.tool) ?? 0),
      output: plusCount(countOf(tokens.output), countOf(tokens.thoughts)),
      cacheRead: cached,
      cacheWrite: null,
    },
  };
}
