/**
 * Ordering Gemini CLI messages and grouping them into turns (docs/formats.md §4.2): a turn starts at
 * each `user` message with a non-empty prompt and holds every `gemini` message until the next one
 * (prose joined by a blank line, tool calls in order, tokens summed per model; thoughts never count as prose). `info`/`error`/`warning`
 * messages belong to no turn, nor do a chat compression's summary (a `user` message read as `compaction`, abstract.ts)
 * and the acknowledgement the CLI writes right after it. What a message holds that no turn can (a reply before the first prompt,
 * a tool call without a name, the text of an unknown message type) is listed, to be counted (issue 26).
 * Every rule is local to one turn, so re-grouping only the last turn's messages (a resumed parse) gives
 * the turns a full parse gives.
 */
import { filesTouched } from "../tool-calls.ts";
import type { ModelUsage, ToolCall, Turn } from "../types.ts";
import { addModelUsage } from "../usage.ts";
import { compressionAck } from "./abstract.ts";
import type { GeminiMessage } from "./records.ts";

/**
 * Order messages by time, stably: ties and messages without a time keep their given order (a message
 * without a time sorts with the one before it). Sessions merged from several files interleave by time.
 * Example: times [5, 0, 3] → [3, 5, 0] (the untimed message follows the 5 it was written after).
 */
export function orderByTime(messages: readonly GeminiMessage[]): GeminiMessage[] {
  let carried = 0;
  const keyed = messages.map((message, index) => {
    if (message.t > 0) carried = message.t;
    return { message, key: message.t > 0 ? message.t : carried, index };
  });
  keyed.sort((a, b) => a.key - b.key || a.index - b.index);
  return keyed.map((entry) => entry.message);
}

/** Something of a message that no turn holds: its index in the message list, its id, and why. */
export interface Unplaced {
  index: number;
  id: string;
  /** `reply before the first prompt`, `tool call without name` (one per call), `message of unknown type`. */
  reason: string;
}

/** Turns built from ordered messages, with where each turn's prompt sits in the list. */
export interface GroupedTurns {
  turns: Turn[];
  /** `promptIndexes[i]` = index in the message list of `turns[i]`'s prompt. */
  promptIndexes: number[];
  /** What no turn holds, in message order. */
  unplaced: Unplaced[];
}

/** True when a message starts a turn. */
export function isPrompt(message: GeminiMessage): boolean {
  return message.kind === "user" && message.text.length > 0;
}

/**
 * Group ordered messages into turns numbered from `firstNumber`. Messages before the first prompt have no
 * turn (e.g. an `info` line about an update); a reply among them is listed in `unplaced`. Tool call outputs and
 * changes are kept only when `withOutputs` (they were decoded that way).
 */
export function groupTurns(
  messages: readonly GeminiMessage[],
  firstNumber: number,
  sessionId: string,
  isSubagent: boolean,
  withOutputs: boolean,
): GroupedTurns {
  const grouped: GroupedTurns = { turns: [], promptIndexes: [], unplaced: [] };
  let texts: string[] = [];
  let calls: ToolCall[] = [];
  let usage: ModelUsage[] = [];
  const close = () => {
    const turn = grouped.turns.at(-1);
    if (!turn) return;
    turn.response = texts.join("\n\n");
    turn.toolCalls = calls;
    turn.files = filesTouched(calls);
    if (usage.length > 0) turn.usage = usage;
  };
  let afterCompaction = false;
  messages.forEach((message, index) => {
    const unplaced = (reason: string) => grouped.unplaced.push({ index, id: message.id, reason });
    const isAck =
      afterCompaction && message.kind === "gemini" && message.text === compressionAck && !message.calls?.length;
    afterCompaction = message.compaction === true;
    if (isAck) return;
    if (message.unknownType) unplaced("message of unknown type");
    for (let call = 0; call < (message.droppedCalls ?? 0); call++) unplaced("tool call without name");
    if (isPrompt(message)) {
      close();
      texts = [];
      calls = [];
      usage = [];
      grouped.promptIndexes.push(index);
      grouped.turns.push({
        sessionId,
        number: firstNumber + grouped.turns.length,
        timestamp: message.t,
        prompt: message.text,
        response: "",
        toolCalls: [],
        files: [],
        isSubagent,
      });
      return;
    }
    if (message.kind !== "gemini") return;
    if (grouped.turns.length === 0) {
      if (message.text || (message.calls?.length ?? 0) > 0) unplaced("reply before the first prompt");
      return;
    }
    if (message.text) texts.push(message.text);
    if (message.usage) addModelUsage(usage, message.usage.model, message.usage.counts);
    for (const call of message.calls ?? []) {
      const copy: ToolCall = { ...call };
      if (!withOutputs) {
        delete copy.output;
        delete copy.change;
      }
      calls.push(copy);
    }
  });
  close();
  return grouped;
}
