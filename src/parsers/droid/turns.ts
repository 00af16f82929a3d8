/**
 * Droid records grouped into turns (docs/formats/droid.md). Each line after the header is one record; `message`
 * records carry Anthropic-shaped content (`message: {role, content: string | blocks}`): a `user` message with text
 * opens a turn, its `tool_result {tool_use_id, content, is_error}` blocks complete the calls of the open turn; an
 * `assistant` message's `text` blocks are the reply, its `tool_use {id, name, input}` blocks the calls (`thinking` is
 * not prose). A user message whose text is only injected context (`<system-reminder>` blocks Droid writes before the
 * first prompt: shared/typed-text.ts) is kept with the prompt that follows it. What holds text no turn can hold is
 * counted with a reason (issue 26).
 */
import { asObject, timeOf } from "../shared/fields.ts";
import type { RawLine } from "../shared/jsonl-lines.ts";
import { noteSkip } from "../shared/skips.ts";
import { TurnBuilder } from "../shared/turn-builder.ts";
import { typedText } from "../shared/typed-text.ts";
import type { SkipReport, Turn } from "../types.ts";
import { droidResultText, droidToolCall } from "./tools.ts";

/** Record types with text that no turn holds, and the reason each is counted under. */
const countedRecords: Record<string, string> = {
  todo_state: "todo list snapshot",
};

/** Record types read elsewhere, counted as nothing: the header again, the compaction summary (the abstract, parse.ts). */
const otherRecords = new Set(["session_start", "compaction_state"]);

type Block = Record<string, unknown>;

const blocksOf = (content: unknown): Block[] =>
  typeof content === "string"
    ? [{ type: "text", text: content }]
    : Array.isArray(content)
      ? content.filter((block): block is Block => asObject(block) !== undefined)
      : [];

/**
 * The turns of the records after the header, numbered from 1.
 * @param place the file path, for skip places `<path>:<line>`
 */
export function groupDroidTurns(
  lines: readonly RawLine[],
  sessionId: string,
  isSubagent: boolean,
  withOutputs: boolean,
  place: string,
  skipped: SkipReport,
): Turn[] {
  const builder = new TurnBuilder(sessionId, 1, withOutputs, isSubagent);
  let injected: { text: string; line: number } | null = null;
  for (const { line, value } of lines) {
    const skip = (reason: string) => noteSkip(skipped, `${place}:${line}`, reason);
    if (value.type !== "message") {
      if (otherRecords.has(String(value.type))) continue;
      skip(countedRecords[String(value.type)] ?? "record of unknown type");
      continue;
    }
    const message = asObject(value.message);
    const blocks = blocksOf(message?.content);
    if (message?.role === "user") {
      for (const block of blocks) {
        if (block.type !== "tool_result") continue;
        const isError = block.is_error === true;
        if (!builder.result(block.tool_use_id, isError, droidResultText(block.content))) {
          skip("tool result without its call");
        }
      }
      const text = textOf(blocks);
      if (text.length === 0) continue;
      if (typedText(text).length === 0) {
        if (injected) skip("injected context without a prompt");
        injected = { text, line };
        continue;
      }
      builder.prompt(injected ? `${injected.text}\n\n${text}` : text, timeOf(value.timestamp));
      injected = null;
    } else if (message?.role === "assistant") {
      if (!builder.started) {
        if (blocks.some((block) => block.type === "text" || block.type === "tool_use")) {
          skip("reply before the first prompt");
        }
        continue;
      }
      for (const block of blocks) {
        if (block.type === "text" && typeof block.text === "string" && block.text.trim().length > 0) {
          builder.reply(block.text);
        } else if (block.type === "tool_use" && typeof block.name === "string") {
          builder.call(droidToolCall(block.name, block.input, withOutputs), block.id);
        } else if (block.type === "tool_use") skip("tool call without name");
      }
    } else skip(message ? "message of unknown role" : "message without content");
  }
  if (injected) noteSkip(skipped, `${place}:${injected.line}`, "injected context without a prompt");
  builder.close();
  return builder.turns;
}

/** The text blocks of a message, joined by a blank line and trimmed. */
function textOf(blocks: readonly Block[]): string {
  return blocks
    .filter((block) => block.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join("\n\n")
    .trim();
}
