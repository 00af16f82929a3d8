/**
 * Grouping of tree records into turns (docs/formats.md §1.9): a turn starts at each human prompt on
 * the active path (slash commands included: a slash command starts a turn); assistant lines merge by
 * `message.id`, whose usage counts once, in the turn of its last line (formats.md §1.5; an answer on no branch that
 * kept only thinking counts in the turn it was written in); tool results pair with tool uses by id. Off-path lines are
 * admitted only when they
 * belong to the same turn's messages (split assistant lines of a path message, parallel tool results
 * hanging off sibling assistant lines). Every rule is local to one turn, so a resumed parse that
 * re-groups only the last turn's records gives the same turns as a full parse.
 * What is left off the path (prompts and answers of branches the user rewound past, issue 26) becomes rewound turns
 * ({@link groupRewound}), numbered -1, -2, … in file order apart from the main turns.
 * A tool result on the path whose call is not among its turn's messages (a transcript that starts after a compaction,
 * a sub-agent's report whose launch is not in the file; issue 37: its text was in no turn) is kept in that turn as a
 * call of its own, named `unknown` (`Task` with its sub-agent link for a sub-agent's report).
 */
import { buildToolCall, filesTouched } from "../tool-calls.ts";
import type { ModelUsage, ToolCall, Turn } from "../types.ts";
import { addModelUsage } from "../usage.ts";
import type { Rec, RecBlock, RecResult, RecUsage } from "./records.ts";

/** A turn being built: its opening record, plus merged content. */
export interface TurnDraft {
  number: number;
  /** Uuid of the record that opened the turn (its prompt, or an opening answer): a resumed parse's anchor. */
  anchorUuid: string;
  timestamp: number;
  prompt: string;
  /** message.id → blocks, in first-seen order; a tool_use id seen again replaces its block. */
  messages: Map<string, RecBlock[]>;
  results: Map<string, RecResult>;
  /** Results on the path whose call is not among `messages` (issue 37), by tool_use id, in file order. */
  orphans: Map<string, RecResult>;
  /** message.id → the usage of its last merged line (§1.5: counted once per message, the last split line wins). */
  usage: Map<string, RecUsage>;
}

/** Turns grouped by {@link groupTurns}, with the indexes of the records they took in. */
export interface GroupedTurns {
  drafts: TurnDraft[];
  /** Indexes in `recs` of every prompt, assistant and result record merged into a draft. */
  used: Set<number>;
}

/**
 * Group `recs` (file order) into turns numbered from `firstNumber`.
 * A conversation that starts with an assistant line or a tool result on the path (converted or hand-written
 * transcripts, issue 11; a transcript that starts after a compaction, issue 37) opens with a turn whose prompt is ""
 * holding it; other records before the first path prompt are left out of `used` (system lines).
 * @param onPath uuids of the active branches (tree.ts)
 */
export function groupTurns(recs: readonly Rec[], onPath: ReadonlySet<string>, firstNumber: number): GroupedTurns {
  const segmentOf = new Int32Array(recs.length);
  const messageIds: Array<Set<string>> = [];
  const openers = new Set<number>();
  let segment = -1;
  recs.forEach((rec, index) => {
    const opensWithAnswer = segment === -1 && (rec.k === "assistant" || rec.k === "result") && onPath.has(rec.u);
    if ((rec.k === "prompt" && onPath.has(rec.u)) || opensWithAnswer) {
      segment++;
      messageIds.push(new Set());
      openers.add(index);
    }
    segmentOf[index] = segment;
    if (segment >= 0 && rec.k === "assistant" && rec.mid && onPath.has(rec.u)) messageIds[segment]?.add(rec.mid);
  });
  const toolIds = collectToolIds(recs, segmentOf, messageIds);
  const abandoned = abandonedMessages(recs, onPath, messageIds);
  const usageSegment = lastSegments(recs, segmentOf, messageIds, abandoned);
  const drafts: TurnDraft[] = [];
  const used = new Set<number>();
  recs.forEach((rec, index) => {
    const seg = segmentOf[index] as number;
    if (seg < 0) return;
    // A prompt on the path (or an opening answer) starts a draft; a prompt off the path adds nothing.
    if (openers.has(index)) {
      drafts.push(newDraft(rec, firstNumber + drafts.length));
      used.add(index);
    }
    if (rec.k === "assistant") {
      if (rec.mid && messageIds[seg]?.has(rec.mid)) {
        mergeAssistant(drafts.at(-1), rec, usageSegment.get(rec.mid) === seg);
        used.add(index);
      } else if (rec.mid && rec.use && abandoned.has(rec.mid) && usageSegment.get(rec.mid) === seg) {
        drafts.at(-1)?.usage.set(rec.mid, rec.use);
      }
    } else if (rec.k === "result") {
      const draft = drafts.at(-1);
      for (const result of rec.results ?? []) {
        if (!draft) continue;
        if (toolIds[seg]?.has(result.id)) draft.results.set(result.id, result);
        else if (onPath.has(rec.u)) draft.orphans.set(result.id, result);
        else continue;
        used.add(index);
      }
    }
  });
  return { drafts, used };
}

/**
 * The rewound turns of a conversation: the prompts and answers no active branch holds and no main turn took in
 * (`used`), grouped by the same rules among themselves (a rewound prompt opens a turn; an abandoned answer without its
 * prompt opens one with an empty prompt) and numbered -1, -2, … in file order. Assistant lines with nothing kept
 * (synthetic API errors) and tool results of no rewound call add nothing.
 */
export function groupRewound(
  recs: readonly Rec[],
  onPath: ReadonlySet<string>,
  used: ReadonlySet<number>,
): TurnDraft[] {
  const leftover = recs.filter(
    (rec, index) =>
      !used.has(index) &&
      !onPath.has(rec.u) &&
      (rec.k === "prompt" || rec.k === "result" || (rec.k === "assistant" && (rec.blocks?.length ?? 0) > 0)),
  );
  if (!leftover.some((rec) => rec.k !== "result")) return [];
  const { drafts } = groupTurns(leftover, new Set(leftover.map((rec) => rec.u)), 1);
  return drafts.map((draft) => ({ ...draft, number: -draft.number }));
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

function newDraft(rec: Rec, number: number): TurnDraft {
  return {
    number,
    anchorUuid: rec.u,
    timestamp: rec.t,
    prompt: rec.prompt ?? "",
    messages: new Map(),
    results: new Map(),
    orphans: new Map(),
    usage: new Map(),
  };
}

/**
 * The segment (turn) of each message's last line on the path: its usage counts there only. A message can straddle a
 * prompt (the user typed while it streamed: its text line before the prompt, its tool_use line after), and its lines
 * then join both turns; its tokens must count once (formats.md §1.5), with the last line's usage.
 */
function lastSegments(
  recs: readonly Rec[],
  segmentOf: Int32Array,
  messageIds: Array<Set<string>>,
  abandoned: ReadonlySet<string>,
): Map<string, number> {
  const last = new Map<string, number>();
  recs.forEach((rec, index) => {
    const seg = segmentOf[index] as number;
    if (seg < 0 || rec.k !== "assistant" || !rec.mid || !rec.use) return;
    if (messageIds[seg]?.has(rec.mid) || abandoned.has(rec.mid)) last.set(rec.mid, seg);
  });
  return last;
}

/**
 * Messages on no active branch that keep nothing a turn shows (thinking only: an answer cut off by an API error and
 * retried, or rewound past), so no rewound turn holds them ({@link groupRewound} takes lines with blocks): their
 * tokens were spent on the turn they were written in (file order) and count there.
 */
function abandonedMessages(
  recs: readonly Rec[],
  onPath: ReadonlySet<string>,
  messageIds: Array<Set<string>>,
): Set<string> {
  const onBranch = new Set(messageIds.flatMap((ids) => [...ids]));
  const offPath = recs.filter(
    (rec) => rec.k === "assistant" && rec.mid && !onPath.has(rec.u) && !onBranch.has(rec.mid),
  );
  const shown = new Set(offPath.filter((rec) => (rec.blocks?.length ?? 0) > 0).map((rec) => rec.mid));
  return new Set(offPath.filter((rec) => rec.use && !shown.has(rec.mid)).map((rec) => rec.mid as string));
}

/** Merge an assistant line's blocks into its message; its usage replaces the message's when `countsUsage`. */
function mergeAssistant(draft: TurnDraft | undefined, rec: Rec, countsUsage: boolean): void {
  if (!draft || !rec.mid) return;
  let blocks = draft.messages.get(rec.mid);
  if (!blocks) {
    blocks = [];
    draft.messages.set(rec.mid, blocks);
  }
  if (rec.use && countsUsage) draft.usage.set(rec.mid, rec.use);
  for (const block of rec.blocks ?? []) {
    const toolId = block.tool?.id;
    const existing = toolId ? blocks.findIndex((other) => other.tool?.id === toolId) : -1;
    if (existing >= 0) blocks[existing] = block;
    else blocks.push(block);
  }
}

/**
 * The finished `Turn` of a draft: response = text blocks joined by a blank line; tool calls in block
 * order with `isError` from the paired result and, when `withOutputs`, `output` = the result text, then one call per
 * result without its call ({@link orphanCall}). A Task call links
 * to its sub-agent session: `agent-<agentId>` from its result (an agent file, §1.8), else the inline chain whose first
 * prompt is the call's prompt (`inlineAgents`: promptKey → session id, sidechains.ts).
 */
export function finishTurn(
  draft: TurnDraft,
  sessionId: string,
  isSubagent: boolean,
  withOutputs: boolean,
  inlineAgents: ReadonlyMap<string, string> = new Map(),
): Turn {
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  for (const blocks of draft.messages.values()) {
    for (const block of blocks) {
      if (block.text !== undefined) texts.push(block.text);
      if (!block.tool) continue;
      const result = draft.results.get(block.tool.id);
      const call: ToolCall = { ...block.tool.call, isError: result?.isError ?? false };
      if (withOutputs && result?.output !== undefined) call.output = result.output;
      const agent = result?.agentId ? `agent-${result.agentId}` : inlineAgents.get(block.tool.taskPrompt ?? "");
      if (agent !== undefined) call.subagentSessionId = agent;
      toolCalls.push(call);
    }
  }
  for (const result of draft.orphans.values()) toolCalls.push(orphanCall(result, withOutputs));
  const turn: Turn = {
    sessionId,
    number: draft.number,
    timestamp: draft.timestamp,
    prompt: draft.prompt,
    response: texts.join("\n\n"),
    toolCalls,
    files: filesTouched(toolCalls),
    isSubagent,
  };
  const usage: ModelUsage[] = [];
  for (const { model, ...counts } of draft.usage.values()) addModelUsage(usage, model, counts);
  if (usage.length > 0) turn.usage = usage;
  return turn;
}

/**
 * The call of a tool result whose `tool_use` is not in the transcript (issue 37): named `unknown` with no input, or
 * `Task` linked to its sub-agent session (`agent-<agentId>`) when the result is a sub-agent's report
 * (`toolUseResult.agentId`, formats.md §1.6); `isError` and, when `withOutputs`, `output` from the result.
 */
function orphanCall(result: RecResult, withOutputs: boolean): ToolCall {
  const call = buildToolCall(result.agentId ? "Task" : "unknown", {}, result.isError);
  if (result.agentId) call.subagentSessionId = `agent-${result.agentId}`;
  if (withOutputs && result.output !== undefined) call.output = result.output;
  return call;
}
