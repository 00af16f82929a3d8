/**
 * Grouping of tree records into turns (docs/formats.md §1.9): a turn starts at each human prompt on
 * the active path (slash commands included: a slash command starts a turn); assistant lines merge by
 * `message.id`; tool results pair with tool uses by id. Off-path lines are admitted only when they
 * belong to the same turn's messages (split assistant lines of a path message, parallel tool results
 * hanging off sibling assistant lines). Every rule is local to one turn, so a resumed parse that
 * re-groups only the last turn's records gives the same turns as a full parse.
 */
import { filesTouched } from "../tool-calls.ts";
import type { ToolCall, Turn } from "../types.ts";
import type { Rec, RecBlock, RecResult } from "./records.ts";

/** A turn being built: the index of its prompt record in the grouped list, plus merged content. */
export interface TurnDraft {
  number: number;
  promptIndex: number;
  timestamp: number;
  prompt: string;
  /** message.id → blocks, in first-seen order; a tool_use id seen again replaces its block. */
  messages: Map<string, RecBlock[]>;
  results: Map<string, RecResult>;
}

/**
 * Group `recs` (file order) into turns numbered from `firstNumber`.
 * A conversation that starts with an assistant line on the path (converted or hand-written transcripts, issue 11)
 * opens with a turn whose prompt is "" holding that answer; other records before the first path prompt are
 * dropped (nothing to attach them to: tool results, system lines).
 * @param onPath uuids of the active branch (tree.ts)
 */
export function groupTurns(recs: readonly Rec[], onPath: ReadonlySet<string>, firstNumber: number): TurnDraft[] {
  const segmentOf = new Int32Array(recs.length);
  const messageIds: Array<Set<string>> = [];
  const openers = new Set<number>();
  let segment = -1;
  recs.forEach((rec, index) => {
    const opensWithAnswer = segment === -1 && rec.k === "assistant" && onPath.has(rec.u);
    if ((rec.k === "prompt" && onPath.has(rec.u)) || opensWithAnswer) {
      segment++;
      messageIds.push(new Set());
      openers.add(index);
    }
    segmentOf[index] = segment;
    if (segment >= 0 && rec.k === "assistant" && rec.mid && onPath.has(rec.u)) messageIds[segment]?.add(rec.mid);
  });
  const toolIds = collectToolIds(recs, segmentOf, messageIds);
  const drafts: TurnDraft[] = [];
  recs.forEach((rec, index) => {
    const seg = segmentOf[index] as number;
    if (seg < 0) return;
    // A prompt on the path (or an opening answer) starts a draft; a prompt off the path adds nothing.
    if (openers.has(index)) drafts.push(newDraft(rec, index, firstNumber + drafts.length));
    if (rec.k === "assistant") {
      if (rec.mid && messageIds[seg]?.has(rec.mid)) mergeAssistant(drafts.at(-1), rec);
    } else if (rec.k === "result") {
      const draft = drafts.at(-1);
      for (const result of rec.results ?? [])
        if (draft && toolIds[seg]?.has(result.id)) draft.results.set(result.id, result);
    }
  });
  return drafts;
}

function collectToolIds(
  recs: readonly Rec[],
  segmentOf: Int32Array,
  messageIds: Array<Set<string>>,
): Array<Set<string>> {
  const toolIds = messageIds.map(() => new Set<string>());
  recs.forEach((rec, index) => {
    const seg = segmentOf[index] as number;
    if (seg < 0 || rec.k !== "assistant" || !rec.mid || !messageIds[seg]?.has(rec.mid)) return;
    for (const block of rec.blocks ?? []) if (block.tool) toolIds[seg]?.add(block.tool.id);
  });
  return toolIds;
}

function newDraft(rec: Rec, index: number, number: number): TurnDraft {
  return {
    number,
    promptIndex: index,
    timestamp: rec.t,
    prompt: rec.prompt ?? "",
    messages: new Map(),
    results: new Map(),
  };
}

function mergeAssistant(draft: TurnDraft | undefined, rec: Rec): void {
  if (!draft || !rec.mid) return;
  let blocks = draft.messages.get(rec.mid);
  if (!blocks) {
    blocks = [];
    draft.messages.set(rec.mid, blocks);
  }
  for (const block of rec.blocks ?? []) {
    const toolId = block.tool?.id;
    const existing = toolId ? blocks.findIndex((other) => other.tool?.id === toolId) : -1;
    if (existing >= 0) blocks[existing] = block;
    else blocks.push(block);
  }
}

/**
 * The finished `Turn` of a draft: response = text blocks joined by a blank line; tool calls in block
 * order with `isError` from the paired result and, when `withOutputs`, `output` = the result text.
 */
export function finishTurn(draft: TurnDraft, sessionId: string, isSubagent: boolean, withOutputs: boolean): Turn {
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const blocks of draft.messages.values()) {
    for (const block of blocks) {
      if (block.text !== undefined) texts.push(block.text);
      if (!block.tool) continue;
      const result = draft.results.get(block.tool.id);
      const call: ToolCall = { ...block.tool.call, isError: result?.isError ?? false };
      if (withOutputs && result?.output !== undefined) call.output = result.output;
      toolCalls.push(call);
    }
  }
  return {
    sessionId,
    number: draft.number,
    timestamp: draft.timestamp,
    prompt: draft.prompt,
    response: texts.join("\n\n"),
    toolCalls,
    files: filesTouched(toolCalls),
    isSubagent,
  };
}
