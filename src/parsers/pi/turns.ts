/**
 * pi entries grouped into turns (docs/formats/pi.md). A turn starts at each `user` message with text and holds every
 * message until the next one: `assistant` text blocks are the reply (joined by a blank line; `thinking` is not prose),
 * its `toolCall` blocks the calls, matched to their `toolResult` by `toolCallId` (error flag, output at level 3);
 * a `bashExecution` (a command the user ran with `!`) is a `Bash` call of the turn; `usage` is summed per model.
 * Entries on the branch pi resumes make the main turns 1, 2, …; entries on branches the user left make rewound
 * turns -1, -2, … (types.ts `Turn`). Whatever holds text no turn can hold is counted with a reason (issue 26).
 */
import { asObject } from "../shared/fields.ts";
import { noteSkip } from "../shared/skips.ts";
import { TurnBuilder } from "../shared/turn-builder.ts";
import type { SkipReport, Turn } from "../types.ts";
import { countOf } from "../usage.ts";
import type { PiEntry } from "./entries.ts";
import { piToolCall, resultText } from "./tools.ts";

/**
 * Entry types read elsewhere or carrying no conversation text, counted as nothing: settings and extension state, the
 * title (`session_info`), and the summaries that are the session's abstract (parse.ts: `compaction`,
 * `branch_summary`).
 */
const settingEntries = new Set([
  "model_change",
  "thinking_level_change",
  "custom",
  "session_info",
  "compaction",
  "branch_summary",
]);

/** Entry types whose text is not a turn's, with the reason each is counted under. */
const countedEntries: Record<string, string> = {
  custom_message: "extension message",
  label: "label",
};

/** The text of a user message's `content`: a string, or its text blocks joined by a blank line (images left out). */
function promptText(content: unknown): string {
  if (typeof content === "string") return content.trim();
  if (!Array.isArray(content)) return "";
  const texts = content.filter((block) => block?.type === "text" && typeof block.text === "string");
  return texts
    .map((block) => block.text as string)
    .join("\n\n")
    .trim();
}

/**
 * Group entries (file order) into main turns (entries in `onBranch`) and rewound turns (the others).
 * @param place the file path, for skip places `<path>:<line>`
 * @returns main turns numbered 1…, rewound turns numbered -1…; skips counted into `skipped`
 */
export function groupTurns(
  entries: readonly PiEntry[],
  onBranch: ReadonlySet<string>,
  sessionId: string,
  withOutputs: boolean,
  place: string,
  skipped: SkipReport,
): { main: Turn[]; rewound: Turn[] } {
  const main = new TurnBuilder(sessionId, 1, withOutputs);
  const rewound = new TurnBuilder(sessionId, -1, withOutputs);
  for (const entry of entries) {
    const skip = (reason: string) => noteSkip(skipped, `${place}:${entry.line}`, reason);
    if (entry.type !== "message") {
      if (settingEntries.has(entry.type)) continue;
      skip(countedEntries[entry.type] ?? "entry of unknown type");
      continue;
    }
    const builder = onBranch.has(entry.id) ? main : rewound;
    const message = asObject(entry.value.message);
    if (!message) {
      skip("message without content");
      continue;
    }
    addMessage(builder, message, entry, skip, withOutputs);
  }
  main.close();
  rewound.close();
  return { main: main.turns, rewound: rewound.turns };
}

function addMessage(
  builder: TurnBuilder,
  message: Record<string, unknown>,
  entry: PiEntry,
  skip: (reason: string) => void,
  withOutputs: boolean,
): void {
  const role = message.role;
  if (role === "user") {
    const text = promptText(message.content);
    if (text.length > 0) builder.prompt(text, entry.time);
    else skip("prompt without text");
    return;
  }
  if (role === "custom" || role === "hookMessage") {
    skip("extension message");
    return;
  }
  if (role !== "assistant" && role !== "toolResult" && role !== "bashExecution") {
    skip("message of unknown role");
    return;
  }
  if (!builder.started) {
    skip("reply before the first prompt");
    return;
  }
  if (role === "toolResult") {
    const isError = message.isError === true;
    if (!builder.result(message.toolCallId, isError, resultText(message.content))) skip("tool result without its call");
    return;
  }
  if (role === "bashExecution") {
    const call = piToolCall("bash", { command: message.command }, false);
    call.isError = typeof message.exitCode === "number" && message.exitCode !== 0;
    if (withOutputs && typeof message.output === "string") call.output = message.output;
    builder.call(call, undefined);
    return;
  }
  const content = Array.isArray(message.content) ? message.content : [];
  for (const block of content) {
    if (block?.type === "text" && typeof block.text === "string" && block.text.trim().length > 0) {
      builder.reply(block.text);
    } else if (block?.type === "toolCall" && typeof block.name === "string") {
      builder.call(piToolCall(block.name, block.arguments, withOutputs), block.id);
    } else if (block?.type === "toolCall") skip("tool call without name");
  }
  if (typeof message.errorMessage === "string" && message.errorMessage.length > 0) skip("assistant error message");
  const usage = asObject(message.usage);
  if (usage && typeof message.model === "string") {
    const counts = {
      input: countOf(usage.input),
      output: countOf(usage.output),
      cacheRead: countOf(usage.cacheRead),
      cacheWrite: countOf(usage.cacheWrite),
    };
    builder.addUsage(message.model, counts, countOf(asObject(usage.cost)?.total));
  }
}
