/**
 * What OpenCode wrote about a session besides its title (issue 41), read from the messages every storage
 * generation loads (messages.ts):
 * * an assistant message with `summary: true` is a compaction summary (OpenCode `session/compaction.ts`: the
 *   `compaction` agent answers a user message holding a `compaction` part; its text parts are the summary): its text
 *   parts joined with blank lines → `compaction`, at the message's creation time. One that ended in `error`
 *   (aborted, overflowed) is not a summary OpenCode uses either (`completedCompactions`), so it is left out.
 * * a user message's `summary{title?, body?}` (message-v2.ts `User.summary`, written by `session/summary.ts`):
 *   `title` → `agent_title`, `body` → `agent_summary`, at the message's creation time.
 * messages.ts keeps the compaction text out of every turn's response, so it is not lost: it is here.
 */
import type { AbstractPart } from "../types.ts";
import { asObject, type RawMessage, stringOf } from "./messages.ts";

/** True for a compaction summary message (`role: "assistant"`, `summary: true`). */
export function isCompactionSummary(message: RawMessage): boolean {
  return message.data.role === "assistant" && message.data.summary === true;
}

/** The text parts of a message, trimmed, the empty ones dropped, joined with blank lines. */
function textOf(message: RawMessage): string {
  return message.parts
    .filter((part) => part.data.type === "text")
    .map((part) => stringOf(part.data.text)?.trim() ?? "")
    .filter((text) => text.length > 0)
    .join("\n\n");
}

/**
 * The abstract parts of one conversation, in message order (shared/abstract.ts `withAbstract` orders them).
 * @param messages the session's messages in any order, with their `text` parts loaded
 * @returns the parts; empty when OpenCode wrote none
 */
export function opencodeAbstract(messages: readonly RawMessage[]): AbstractPart[] {
  const parts: AbstractPart[] = [];
  for (const message of messages) {
    if (isCompactionSummary(message)) {
      if (asObject(message.data.error)) continue;
      parts.push({ source: "compaction", text: textOf(message), at: message.timeCreated });
    } else if (message.data.role === "user") {
      const summary = asObject(message.data.summary);
      const summaryTitle = stringOf(summary?.title);
      const body = stringOf(summary?.body);
      if (summaryTitle) parts.push({ source: "agent_title", text: summaryTitle, at: message.timeCreated });
      if (body) parts.push({ source: "agent_summary", text: body, at: message.timeCreated });
    }
  }
  return parts;
}
