/**
 * Crush messages grouped into turns (docs/formats/crush.md). A message's `parts` is a list of `{type, data}`
 * (charmbracelet/crush `internal/message/message.go` `marshalParts`, `content.go` at 37f36e93): `text {text}`,
 * `reasoning {thinking, …}`, `image_url`, `binary`, `tool_call {id, name, input, finished}`, `tool_result
 * {tool_call_id, name, content, is_error, …}`, `shell_command {command, output, exit_code}` and `finish {reason, time,
 * message?}`. A `user` message with text opens a turn; `tool` messages carry the results of the open turn's calls;
 * an `assistant` message's text is the reply and its calls the turn's calls (reasoning is not prose). The summary
 * Crush writes when it compacts a session (`is_summary_message`) and a finish part's message (an error shown to the
 * user) are counted, not kept (issue 26). An `agent` call whose sub-agent session exists links to it: the session id
 * is `<message id>$$<call id>` (`CreateAgentToolSessionID`), or the call id in older versions.
 */
import { asObject } from "../shared/fields.ts";
import { noteSkip } from "../shared/skips.ts";
import { TurnBuilder } from "../shared/turn-builder.ts";
import type { AbstractPart, SkipReport, Turn } from "../types.ts";
import type { CrushMessageRow } from "./database.ts";
import { crushToolCall } from "./tools.ts";

type Part = { type: string; data: Record<string, unknown> };

/** Part types with nothing to keep as text. */
const ignoredParts = new Set(["reasoning", "image_url", "binary"]);

/** Epoch ms of a Crush time: Unix seconds (what Crush writes), or ms in a value too large to be seconds. */
export const crushTimeOf = (value: number | null): number =>
  typeof value !== "number" || value <= 0 ? 0 : value > 1e11 ? value : value * 1000;

/** The parts of a message, or undefined when `parts` is not a JSON list. */
function partsOf(json: string): Part[] | undefined {
  try {
    const value: unknown = JSON.parse(json);
    if (!Array.isArray(value)) return undefined;
    return value
      .map((part) => asObject(part))
      .filter((part) => part !== undefined)
      .map((part) => ({ type: String(part.type), data: asObject(part.data) ?? {} }));
  } catch {
    return undefined;
  }
}

/**
 * The turns of one session's messages, numbered from 1; the text of each compaction summary (`is_summary_message` 1,
 * issue 41) is pushed to `abstract` as a `compaction` at the message's time, and is in no turn.
 * @param children ids of the sessions started from this one (for linking `agent` calls)
 * @param place the database path, for skip places `<path>: message <id>`
 */
export function groupCrushTurns(
  rows: readonly CrushMessageRow[],
  sessionId: string,
  isSubagent: boolean,
  children: ReadonlySet<string>,
  withOutputs: boolean,
  place: string,
  skipped: SkipReport,
  abstract: AbstractPart[],
): Turn[] {
  const builder = new TurnBuilder(sessionId, 1, withOutputs, isSubagent);
  for (const row of rows) {
    const skip = (reason: string) => noteSkip(skipped, `${place}: message ${row.id}`, reason);
    const parts = partsOf(row.parts);
    if (!parts) {
      skip("parts not a JSON list");
      continue;
    }
    const text = parts
      .filter((part) => part.type === "text" && typeof part.data.text === "string")
      .map((part) => part.data.text as string)
      .join("\n\n")
      .trim();
    if (row.is_summary_message === 1) {
      if (text.length > 0) abstract.push({ source: "compaction", text, at: crushTimeOf(row.created_at) });
      continue;
    }
    for (const part of parts) {
      const data = part.data;
      if (part.type === "tool_result") {
        const output = typeof data.content === "string" ? data.content : "";
        if (!builder.result(data.tool_call_id, data.is_error === true, output)) skip("tool result without its call");
      } else if (part.type === "tool_call" || part.type === "shell_command") {
        if (!builder.started) {
          skip("tool call before the first prompt");
          continue;
        }
        if (part.type === "shell_command") {
          const call = crushToolCall("bash", JSON.stringify({ command: data.command }), false);
          call.isError = typeof data.exit_code === "number" && data.exit_code !== 0;
          if (withOutputs) call.output = typeof data.output === "string" ? data.output : "";
          builder.call(call, undefined);
        } else if (typeof data.name === "string") {
          const call = crushToolCall(data.name, data.input, withOutputs);
          const child = [`${row.id}$$${data.id}`, String(data.id)].find((id) => children.has(id));
          if (child) call.subagentSessionId = child;
          builder.call(call, data.id);
        } else skip("tool call without name");
      } else if (part.type === "finish") {
        if (typeof data.message === "string" && data.message.length > 0) skip("finish message");
      } else if (part.type !== "text" && !ignoredParts.has(part.type)) skip("part of unknown type");
    }
    if (row.role === "user" && text.length > 0) builder.prompt(text, crushTimeOf(row.created_at));
    else if (row.role === "assistant" && builder.started) {
      if (text.length > 0) builder.reply(text);
      if (row.model) builder.addUsage(row.model, { input: null, output: null, cacheRead: null, cacheWrite: null });
    } else if (text.length > 0) {
      skip(row.role === "assistant" ? "reply before the first prompt" : "text in a message of another role");
    }
  }
  builder.close();
  return builder.turns;
}
