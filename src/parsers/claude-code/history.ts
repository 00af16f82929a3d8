/**
 * Claude Code's global prompt history, `~/.claude/history.jsonl` (docs/formats.md §1.10): one line per submitted prompt,
 * `{display, pastedContents, timestamp (epoch ms), project (absolute path), sessionId}`. `display` shows a pasted block
 * as `[Pasted text #<id> +<n> lines]`; `pastedContents[<id>]` holds its text in `content` (older versions) or only a
 * `contentHash` (the text then lives in `paste-cache/`, which is not read: the placeholder stays).
 */
import { asObject } from "../shared/fields.ts";
import { jsonlHistorySpec } from "../shared/jsonl-history.ts";
import type { HistoryPrompt, PromptHistorySpec } from "../shared/prompt-history.ts";

/** The history file's name, next to `projects/` in a Claude Code config folder. */
export const historyFileName = "history.jsonl";

/** `[Pasted text #3 +54 lines]`, `[Pasted text #3]`: the placeholder Claude Code writes for a pasted block. */
const pastePlaceholder = /\[Pasted text #(\d+)(?: \+\d+ lines)?\]/g;

/**
 * `display` with each pasted-text placeholder replaced by the pasted text when the record holds it.
 * Example: display `fix this [Pasted text #1 +2 lines]`, pastedContents `{"1": {content: "a\nb"}}` → `fix this a\nb`.
 */
export function expandPastes(display: string, pastedContents: unknown): string {
  const pastes = asObject(pastedContents);
  if (!pastes) return display;
  return display.replace(pastePlaceholder, (placeholder, id: string) => {
    const content = asObject(pastes[id])?.content;
    return typeof content === "string" && content.length > 0 ? content : placeholder;
  });
}

/** One history line as a prompt, or the reason it is skipped. */
function promptOf(record: Record<string, unknown>): HistoryPrompt | string {
  const { display, sessionId, timestamp, project } = record;
  if (typeof display !== "string") return "no display text";
  if (typeof sessionId !== "string" || sessionId.length === 0) return "no sessionId";
  return {
    sessionId,
    text: expandPastes(display, record.pastedContents),
    timestamp: typeof timestamp === "number" && Number.isFinite(timestamp) ? timestamp : 0,
    projectPath: typeof project === "string" ? project : "",
  };
}

/** Claude Code's prompt history for `withPromptHistory`. */
export const claudeHistorySpec: PromptHistorySpec = jsonlHistorySpec(historyFileName, promptOf);
