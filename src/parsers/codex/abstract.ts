/**
 * The compaction summaries of a Codex rollout (issue 41). Codex writes one top-level record per compaction,
 * `{"type":"compacted","payload":{"message", "replacement_history"?}}` (codex-rs/protocol `RolloutItem::Compacted`,
 * `CompactedItem`): a local compaction (codex-rs/core/src/compact.rs `run_compact_task_inner`) sets `message` to
 * `SUMMARY_PREFIX + "\n" + <the model's summary>` (templates/compact/summary_prefix.md, "Another language model
 * started to solve this problem … assist with your own analysis:"); a remote one (compact_remote.rs) writes
 * `message: ""` and the server's `replacement_history`, whose summary is an encrypted `compaction` item, so it
 * gives nothing. The `context_compacted` event (`ContextCompactedEvent`) carries no text; no other `event_msg` kind
 * holds a summary of the context.
 */
import { asObject } from "../shared/fields.ts";

/** Start and end of Codex's `SUMMARY_PREFIX`, matched with its whitespace collapsed (the file has a double space). */
const prefixStart = "Another language model started to solve this problem";
const prefixEnd = "assist with your own analysis:";

/**
 * The summary a `compacted` record's payload holds, without Codex's `SUMMARY_PREFIX`; null when it holds none (an
 * empty `message`: a remote compaction, or a summary the model left empty).
 * Example: `{message: "Another language model … analysis:\n## Done\n- x"}` → `"## Done\n- x"`.
 */
export function compactionSummary(payload: unknown): string | null {
  const message = asObject(payload)?.message;
  if (typeof message !== "string") return null;
  let summary = message.trim();
  if (summary.startsWith(prefixStart)) {
    const end = summary.indexOf(prefixEnd);
    if (end >= 0) summary = summary.slice(end + prefixEnd.length).trim();
  }
  return summary.length > 0 ? summary : null;
}
