/**
 * Prompts typed while the agent was busy (docs/formats.md §1.3 `queue-operation`): `enqueue` records the text, and
 * the prompt line written when it is sent carries it again. A queued text that no prompt line ever carried, while
 * later prompts were sent, was removed from the queue before it was sent: the index cannot place it in a turn, so it
 * is counted as not kept (issue 26) rather than dropped in silence. Slash commands are left out: the interface
 * commands among them (`/resume`, `/usage`) never become prompt lines.
 */
import { noteSkip } from "../shared/skips.ts";
import { timeOf } from "../shared/fields.ts";
import type { SkipReport } from "../types.ts";
import { promptKey } from "./records.ts";

/** Queued prompts not sent yet: key of the text (records.ts `promptKey`), time (epoch ms) and place (`<path>:<line>`). */
export type QueuedPrompts = Array<{ key: string; t: number; place: string }>;

/** Note an `enqueue` record's text (mutates `queued`); other records and operations are ignored. */
export function noteQueued(queued: QueuedPrompts, value: Record<string, unknown>, place: string): void {
  if (value.operation !== "enqueue" || typeof value.content !== "string") return;
  const text = value.content.trim();
  if (text.length === 0 || text.startsWith("/")) return;
  queued.push({ key: promptKey(text), t: timeOf(value.timestamp), place });
}

/** A prompt line was read: the queued entry with the same text (the first) was sent. */
export function notePromptSent(queued: QueuedPrompts, prompt: string): void {
  if (queued.length === 0) return;
  const key = promptKey(prompt);
  const index = queued.findIndex((entry) => entry.key === key);
  if (index >= 0) queued.splice(index, 1);
}

/**
 * Count into `skipped` every queued prompt still unsent that was queued before the last prompt was sent (one still
 * waiting in a live session is not counted).
 * @param lastPromptAt time of the last prompt line, epoch ms (0 when none)
 */
export function queuedNeverSent(queued: QueuedPrompts, lastPromptAt: number, skipped: SkipReport): void {
  for (const entry of queued) {
    if (entry.t > 0 && entry.t < lastPromptAt) noteSkip(skipped, entry.place, "queued prompt never sent");
  }
}
