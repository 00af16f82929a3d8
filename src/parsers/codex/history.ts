/**
 * Codex CLI's prompt history, `$CODEX_HOME/history.jsonl` (docs/formats.md §3.1): one line per submitted prompt,
 * `{session_id, ts (epoch seconds), text}`. It records no working folder, so these sessions have no project.
 */
import { jsonlHistorySpec } from "../shared/jsonl-history.ts";
import type { HistoryPrompt, PromptHistorySpec } from "../shared/prompt-history.ts";

/** The history file's name at the top of a Codex home. */
export const historyFileName = "history.jsonl";

/** One history line as a prompt, or the reason it is skipped. */
function promptOf(record: Record<string, unknown>): HistoryPrompt | string {
  const { session_id: sessionId, ts, text } = record;
  if (typeof text !== "string") return "no text";
  if (typeof sessionId !== "string" || sessionId.length === 0) return "no session_id";
  return {
    sessionId,
    text,
    timestamp: typeof ts === "number" && Number.isFinite(ts) ? Math.round(ts * 1000) : 0,
    projectPath: "",
  };
}

/** Codex CLI's prompt history for `withPromptHistory`. */
export const codexHistorySpec: PromptHistorySpec = jsonlHistorySpec(historyFileName, promptOf);
