/**
 * A Droid session's side file `<id>.settings.json` (next to `<id>.jsonl`): the session's model and its token totals,
 * `{model, tokenUsage:{inputTokens, outputTokens, cacheCreationTokens, cacheReadTokens, thinkingTokens}, …}` (read so
 * by wesm/agentsview `internal/parser/droid_test.go`, entireio/cli `factoryaidroid/transcript.go`
 * `ExtractModelFromTranscript`; a user's real file quoted in VincentLaRocca/aBeautifulMine
 * `PATTERN_13_FINDINGS_DROID_WRAPPER.md`). Droid records no usage per message, only these totals.
 */
import { readFileSync } from "node:fs";
import { asObject } from "../shared/fields.ts";
import { countOf, type TokenCounts } from "../usage.ts";

/** What the side file says, each part null when absent. */
export interface DroidSettings {
  /** The model id as written (`claude-sonnet-4-5`, `custom:GPT-5.4-1`). */
  model: string | null;
  /** Session totals: `output` = `outputTokens` + `thinkingTokens` (reasoning is billed as output). */
  totals: TokenCounts | null;
}

/** The side file's path for a session file: `<id>.jsonl` → `<id>.settings.json`. */
export const settingsPathOf = (sessionPath: string): string => sessionPath.replace(/\.jsonl$/, ".settings.json");

/**
 * Read the side file of `sessionPath`.
 * @returns nulls when it is missing, unreadable or not a JSON object (the transcript is read without it)
 */
export function readDroidSettings(sessionPath: string): DroidSettings {
  let value: Record<string, unknown> | undefined;
  try {
    value = asObject(JSON.parse(readFileSync(settingsPathOf(sessionPath), "utf8")));
  } catch {
    value = undefined;
  }
  const model = typeof value?.model === "string" && value.model.length > 0 ? value.model : null;
  const usage = asObject(value?.tokenUsage);
  if (!usage) return { model, totals: null };
  const output = countOf(usage.outputTokens);
  const thinking = countOf(usage.thinkingTokens);
  return {
    model,
    totals: {
      input: countOf(usage.inputTokens),
      output: output === null ? thinking : output + (thinking ?? 0),
      cacheRead: countOf(usage.cacheReadTokens),
      cacheWrite: countOf(usage.cacheCreationTokens),
    },
  };
}
