/**
 * Goose messages grouped into turns (docs/formats/goose.md). A message's `content_json` is its list of
 * `MessageContent` items, tagged by `type` (`crates/goose/src/conversation/message.rs` at 05132966): `text {text}`,
 * `toolRequest {id, toolCall:{status, value:{name, arguments}}}`, `frontendToolRequest` (same shape), `toolResponse
 * {id, toolResult}`, `thinking`, `redactedThinking`, `image`, `toolConfirmationRequest`, `actionRequired`,
 * `systemNotification {msg}` and, in older sessions, `conversationCompacted`. A user message with text opens a turn;
 * its `toolResponse` items complete the calls of the open turn; an assistant message's text is the reply and its tool
 * requests the calls (thinking is not prose). `metadata_json {userVisible, agentVisible}`: a user message only the
 * model sees (`userVisible: false`, `agentVisible` not false) is the summary Goose writes when it compacts the context
 * (`crates/goose/src/context_mgmt/mod.rs`): it is the session's abstract (`compaction`, issue 41), not a prompt; the
 * continuation note Goose adds after it ("Your context was compacted. …") and any other hidden message are counted.
 * What holds text no turn can hold is counted with a reason (issue 26).
 */
import { asObject } from "../shared/fields.ts";
import { noteSkip } from "../shared/skips.ts";
import { TurnBuilder } from "../shared/turn-builder.ts";
import type { AbstractPart, SkipReport, Turn } from "../types.ts";
import type { GooseMessageRow } from "./database.ts";
import { gooseToolCall, gooseToolResult } from "./tools.ts";

type Item = Record<string, unknown>;

/** Item types holding text that no turn holds, and the reason each is counted under. */
const countedItems: Record<string, string> = {
  systemNotification: "system notification",
  toolConfirmationRequest: "tool confirmation request",
  actionRequired: "action request",
  conversationCompacted: "compaction notice",
};

/** How Goose's continuation notes after a compaction start (context_mgmt/mod.rs `*_CONTINUATION_TEXT`). */
const continuationNote = "Your context was compacted";

/** Item types with nothing to keep as text (images, thinking: not prose). */
const ignoredItems = new Set(["image", "thinking", "redactedThinking"]);

/**
 * The turns of one session's messages, numbered from 1, and the compaction summaries (pushed to `abstract`, in row
 * order, at the row's time).
 * @param place the database path, for skip places `<path>: message <row id>`
 */
export function groupGooseTurns(
  rows: readonly GooseMessageRow[],
  sessionId: string,
  isSubagent: boolean,
  withOutputs: boolean,
  place: string,
  skipped: SkipReport,
  abstract: AbstractPart[],
): Turn[] {
  const builder = new TurnBuilder(sessionId, 1, withOutputs, isSubagent);
  for (const row of rows) {
    const skip = (reason: string) => noteSkip(skipped, `${place}: message ${row.id}`, reason);
    let items: Item[];
    try {
      const parsed: unknown = JSON.parse(row.content_json);
      if (!Array.isArray(parsed)) throw new Error("not a list");
      items = parsed.filter((item): item is Item => asObject(item) !== undefined);
    } catch {
      skip("content not a JSON list");
      continue;
    }
    if (row.role !== "user" && row.role !== "assistant") {
      skip("message of unknown role");
      continue;
    }
    const text = items
      .filter((item) => item.type === "text" && typeof item.text === "string")
      .map((item) => item.text as string)
      .join("\n\n")
      .trim();
    for (const item of items) {
      const type = String(item.type);
      if (countedItems[type]) skip(countedItems[type]);
      else if (type === "toolResponse") {
        const { text: output, isError } = gooseToolResult(item.toolResult);
        if (!builder.result(item.id, isError, output)) skip("tool result without its call");
      } else if (type === "toolRequest" || type === "frontendToolRequest") {
        const call = asObject(item.toolCall);
        const value = asObject(call?.value);
        if (!builder.started) skip("reply before the first prompt");
        else if (typeof value?.name === "string")
          builder.call(gooseToolCall(value.name, value.arguments, withOutputs), item.id);
        else skip(call?.status === "error" ? "tool call that failed to parse" : "tool call without name");
      } else if (type !== "text" && !ignoredItems.has(type)) skip("content of unknown type");
    }
    if (text.length === 0) continue;
    if (row.role === "user") {
      const metadata = parseMetadata(row.metadata_json);
      const at = (row.created_timestamp ?? 0) * 1000;
      if (metadata?.userVisible !== false) builder.prompt(text, at);
      else if (metadata.agentVisible !== false && !text.startsWith(continuationNote))
        abstract.push({ source: "compaction", text, at });
      else skip("message hidden from the user");
    } else if (builder.started) builder.reply(text);
    else skip("reply before the first prompt");
  }
  builder.close();
  return builder.turns;
}

function parseMetadata(json: string | null): Record<string, unknown> | undefined {
  if (json === null) return undefined;
  try {
    return asObject(JSON.parse(json));
  } catch {
    return undefined;
  }
}
