/**
 * Continue history items grouped into turns (docs/formats/continue.md). A session's `history` is a list of
 * `ChatHistoryItem {message, contextItems, toolCallStates?, promptLogs?, reasoning?, conversationSummary?}`
 * (`core/index.d.ts` at d0a3c0b6); `message` is `{role, content}` with role `user`, `assistant` (`toolCalls?`,
 * `usage?`), `thinking`, `tool` (`toolCallId`) or `system`, and `content` a string or `[{type:"text", text} |
 * {type:"imageUrl"}]`. A user message opens a turn; an assistant message's text is the reply and its tool calls the
 * turn's calls, read from the item's `toolCallStates {toolCallId, toolCall, status, parsedArgs, output?}` when it has
 * them, else from `message.toolCalls`; results come from the states' `output` (context items) and from `tool`
 * messages. Thinking and `reasoning` are not prose. An item's `conversationSummary` (the summary Continue writes when
 * it compacts the conversation) is the session's abstract (`compaction`, issue 41; at 0: Continue records no time per
 * message). The files and other context attached to a prompt (`contextItems`), the prompt logs and system messages
 * are counted, not kept (issue 26).
 */
import { asObject } from "../shared/fields.ts";
import { noteSkip } from "../shared/skips.ts";
import { TurnBuilder } from "../shared/turn-builder.ts";
import type { AbstractPart, SkipReport, Turn } from "../types.ts";
import { countOf, type TokenCounts } from "../usage.ts";
import { continueToolCall } from "./tools.ts";

/** The text of a `MessageContent`: the string, or its text parts joined by a blank line. */
export function contentText(content: unknown): string {
  if (typeof content === "string") return content.trim();
  if (!Array.isArray(content)) return "";
  return content
    .filter((part) => part?.type === "text" && typeof part.text === "string")
    .map((part) => part.text as string)
    .join("\n\n")
    .trim();
}

/**
 * An assistant message's `usage {promptTokens, completionTokens, promptTokensDetails?: {cachedTokens?,
 * cacheWriteTokens?}}` (OpenAI's usage object: prompt tokens include the cached ones) as token counts.
 */
function countsOf(usage: Record<string, unknown>): TokenCounts {
  const details = asObject(usage.promptTokensDetails);
  const prompt = countOf(usage.promptTokens);
  const cached = countOf(details?.cachedTokens);
  return {
    input: prompt === null ? null : Math.max(0, prompt - (cached ?? 0)),
    output: countOf(usage.completionTokens),
    cacheRead: cached,
    cacheWrite: countOf(details?.cacheWriteTokens),
  };
}

/** What one session's turns are built from besides its history. */
export interface ContinueTurnContext {
  sessionId: string;
  /** Time of every turn (Continue records no time per message): the session's creation, epoch ms, or 0. */
  time: number;
  /** The session's `chatModelTitle`, the model a turn is booked to when its prompt log names none. */
  modelTitle: string | null;
  withOutputs: boolean;
  /** The session file, for skip places `<path>: history <index>`. */
  place: string;
}

/** The turns of one session's history, numbered from 1; its compaction summaries are pushed to `abstract`. */
export function groupContinueTurns(
  history: readonly unknown[],
  context: ContinueTurnContext,
  skipped: SkipReport,
  abstract: AbstractPart[],
): Turn[] {
  const builder = new TurnBuilder(context.sessionId, 1, context.withOutputs);
  const errored = new Set<string>();
  history.forEach((entry, index) => {
    const skip = (reason: string) => noteSkip(skipped, `${context.place}: history ${index}`, reason);
    const item = asObject(entry);
    const message = asObject(item?.message);
    if (!item || !message) {
      skip("history item without message");
      return;
    }
    if (Array.isArray(item.contextItems) && item.contextItems.length > 0) skip("attached context");
    if (Array.isArray(item.promptLogs) && item.promptLogs.length > 0) skip("prompt log");
    if (typeof item.conversationSummary === "string" && item.conversationSummary.length > 0)
      abstract.push({ source: "compaction", text: item.conversationSummary, at: 0 });
    const text = contentText(message.content);
    switch (message.role) {
      case "user":
        if (text.length > 0) builder.prompt(text, context.time);
        break;
      case "assistant": {
        if (!builder.started) {
          if (text.length > 0 || Array.isArray(message.toolCalls)) skip("reply before the first prompt");
          break;
        }
        if (text.length > 0) builder.reply(text);
        addCalls(builder, item, message, context.withOutputs, errored, skip);
        const log = Array.isArray(item.promptLogs) ? asObject(item.promptLogs[0]) : undefined;
        const model = typeof log?.modelTitle === "string" ? log.modelTitle : context.modelTitle;
        const usage = asObject(message.usage);
        if (model && usage) builder.addUsage(model, countsOf(usage));
        else if (model) builder.addUsage(model, { input: null, output: null, cacheRead: null, cacheWrite: null });
        break;
      }
      case "tool": {
        const id = message.toolCallId;
        const content = typeof message.content === "string" ? message.content : contentText(message.content);
        if (!builder.result(id, typeof id === "string" && errored.has(id), content))
          skip("tool result without its call");
        break;
      }
      case "thinking":
        break; // not prose
      case "system":
        if (text.length > 0) skip("system message");
        break;
      default:
        skip("message of unknown role");
    }
  });
  builder.close();
  return builder.turns;
}

/** The calls of an assistant item: its tool call states (with their outputs), else its message's tool calls. */
function addCalls(
  builder: TurnBuilder,
  item: Record<string, unknown>,
  message: Record<string, unknown>,
  withOutputs: boolean,
  errored: Set<string>,
  skip: (reason: string) => void,
): void {
  const states = Array.isArray(item.toolCallStates) ? item.toolCallStates.map((state) => asObject(state)) : [];
  if (states.length > 0) {
    for (const state of states) {
      const fn = asObject(asObject(state?.toolCall)?.function);
      const id = state?.toolCallId;
      if (!state || typeof fn?.name !== "string") {
        skip("tool call without name");
        continue;
      }
      builder.call(continueToolCall(fn.name, state.parsedArgs ?? fn.arguments, withOutputs), id);
      const isError = state.status === "errored";
      if (isError && typeof id === "string") errored.add(id);
      if (Array.isArray(state.output)) {
        const output = state.output
          .map((context) => asObject(context)?.content)
          .filter((content): content is string => typeof content === "string")
          .join("\n");
        builder.result(id, isError, output);
      } else if (isError) builder.result(id, true, "");
    }
    return;
  }
  if (!Array.isArray(message.toolCalls)) return;
  for (const delta of message.toolCalls) {
    const fn = asObject(asObject(delta)?.function);
    if (typeof fn?.name === "string")
      builder.call(continueToolCall(fn.name, fn.arguments, withOutputs), asObject(delta)?.id);
    else skip("tool call without name");
  }
}
