/**
 * What Gemini CLI wrote about a session besides its title (issue 41):
 * * a chat compression (`/compress`, or automatic past the token threshold): `ChatCompressionService.compress`
 *   (google-gemini/gemini-cli packages/core/src/services/chatCompressionService.ts) replaces the history with
 *   `[{role: "user", parts: [{text: <summary>}]}, {role: "model", parts: [{text: "Got it. Thanks for the additional
 *   context!"}]}, …the kept tail]`, the summary being the model's `<state_snapshot>…</state_snapshot>` (after a
 *   `<scratchpad>` when it reasoned first); `GeminiChat.setHistory` → `ChatRecordingService.updateMessagesFromHistory`
 *   writes that history into the chat file as a `$set.messages` checkpoint, the summary as a `user` message and the
 *   acknowledgement as a `gemini` one. The summary → `compaction` (the snapshot's inner text, at the message time);
 *   neither it nor the acknowledgement is a turn (turns.ts), and the turns the compression took out of the history
 *   stay turns (records.ts `addCheckpoint`);
 * * the session `summary` (`saveSummary` → `$set: {summary}`) is the title (parse.ts); a summary a later `$set`
 *   replaced → `agent_title` (`orderAbstract` drops the one that is the title).
 * Older CLIs (JSON documents) did not write the compressed history into the file, so they give no compaction.
 */
import type { AbstractPart } from "../types.ts";

/** The acknowledgement Gemini CLI puts after a compression summary (chatCompressionService.ts). */
export const compressionAck = "Got it. Thanks for the additional context!";

const snapshot = /^(?:<scratchpad>[\s\S]*?<\/scratchpad>\s*)?<state_snapshot>([\s\S]*?)(?:<\/state_snapshot>|$)/;

/**
 * The summary inside a compression summary message's text, or null when the text is not one (a prompt).
 * Examples: `"<state_snapshot>\n<overall_goal>x</overall_goal>\n</state_snapshot>"` → `"<overall_goal>x</overall_goal>"`;
 *   `"<scratchpad>…</scratchpad>\n<state_snapshot>y</state_snapshot>"` → `"y"`; `"fix <state_snapshot> parsing"` → null.
 */
export function compressionSummary(text: string): string | null {
  const match = snapshot.exec(text.trim());
  const summary = match?.[1]?.trim();
  return summary ? summary : null;
}

/** Add `part` to `parts` (mutates) unless a part of the same source and text is there already. */
export function addAbstractPart(parts: AbstractPart[], part: AbstractPart): void {
  if (!parts.some((known) => known.source === part.source && known.text === part.text)) parts.push(part);
}
