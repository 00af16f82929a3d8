/**
 * Grouping Codex items into turns (docs/formats.md §3.3 "Turns"). Rules, each local to one turn so that a
 * resumed parse re-grouping only the last turn's items (from its grouping state) matches a full parse:
 *   - inside a task (`task_started` … `task_complete`/`turn_aborted`, newer rollouts) the first prompt starts
 *     a turn and later prompts of the same task (messages typed while the agent works) join it;
 *   - outside tasks (0.77 and older have no task events) every prompt starts a turn;
 *   - a prompt equal to the previous one with the same timestamp is the 0.77 double record of a review
 *     prompt and is dropped;
 *   - a `! cmd` shell item starts a turn only when its task has no prompt;
 *   - items before the first prompt are dropped; outputs pair with calls of the same turn by `call_id`.
 */
import { filesTouched } from "../tool-calls.ts";
import type { ToolCall, Turn } from "../types.ts";
import type { Item } from "./records.ts";

/** State of the grouper between items (JSON-serializable, saved before the last turn for resuming). */
export interface GroupState {
  inTask: boolean;
  taskHasPrompt: boolean;
}

/** A turn being built. */
export interface TurnDraft {
  number: number;
  /** Index of the item that started the turn, and the grouper state just before it. */
  startIndex: number;
  stateBefore: GroupState;
  timestamp: number;
  prompts: string[];
  lastPrompt: { text: string; t: number };
  texts: string[];
  calls: Array<Extract<Item, { k: "call" }>>;
  outputs: Map<string, { isError: boolean; output?: string }>;
  statuses: Map<string, boolean>;
  mcp: Map<string, { server: string; tool: string; isError: boolean }>;
}

/** The grouper state at the start of a rollout. */
export const initialGroupState = (): GroupState => ({ inTask: false, taskHasPrompt: false });

/**
 * Group `items` (file order) into turns numbered from `firstNumber`.
 * @param usePromptEvents true when the rollout has `user_message` events (then `userItem`s are ignored;
 *   otherwise they are the prompts: rollouts without events)
 * @returns the drafts and the grouper state after the last item
 */
export function groupTurns(
  items: readonly Item[],
  start: GroupState,
  firstNumber: number,
  usePromptEvents: boolean,
): { drafts: TurnDraft[]; state: GroupState } {
  const state: GroupState = { ...start };
  const drafts: TurnDraft[] = [];
  const open = (index: number, item: { t: number; text: string }) => {
    drafts.push({
      number: firstNumber + drafts.length,
      startIndex: index,
      stateBefore: { ...state },
      timestamp: item.t,
      prompts: [item.text],
      lastPrompt: { text: item.text, t: item.t },
      texts: [],
      calls: [],
      outputs: new Map(),
      statuses: new Map(),
      mcp: new Map(),
    });
    if (state.inTask) state.taskHasPrompt = true;
  };
  items.forEach((item, index) => {
    const draft = drafts.at(-1);
    switch (item.k) {
      case "task":
        state.inTask = true;
        state.taskHasPrompt = false;
        return;
      case "end":
        state.inTask = false;
        state.taskHasPrompt = false;
        return;
      case "userItem":
      case "prompt": {
        if ((item.k === "prompt") !== usePromptEvents) return;
        if (draft && draft.lastPrompt.text === item.text && draft.lastPrompt.t === item.t) return;
        if (draft && state.inTask && state.taskHasPrompt) {
          draft.prompts.push(item.text);
          draft.lastPrompt = { text: item.text, t: item.t };
        } else open(index, item);
        return;
      }
      case "shell":
        if (!(state.inTask && state.taskHasPrompt)) open(index, item);
        return;
      case "text":
        draft?.texts.push(item.text);
        return;
      case "call":
        draft?.calls.push(item);
        return;
      case "output":
        draft?.outputs.set(item.id, { isError: item.isError, output: item.output });
        return;
      case "status":
        draft?.statuses.set(item.id, item.isError);
        return;
      case "mcp":
        draft?.mcp.set(item.id, { server: item.server, tool: item.tool, isError: item.isError });
        return;
    }
  });
  return { drafts, state };
}

/**
 * The finished `Turn` of a draft: prompt = the turn's prompts joined by a blank line; response = assistant
 * texts joined by a blank line; tool calls in order, `isError` from the paired output, `exec_command_end`
 * or `mcp_tool_call_end`; an MCP call whose model-visible name differs from the invoked tool is renamed
 * `mcp__<server>__<tool>`; `output` only when `withOutputs`.
 */
export function finishTurn(draft: TurnDraft, sessionId: string, isSubagent: boolean, withOutputs: boolean): Turn {
  const toolCalls: ToolCall[] = [];
  for (const group of draft.calls) {
    const output = draft.outputs.get(group.id);
    const mcp = draft.mcp.get(group.id);
    const isError = (output?.isError ?? false) || (draft.statuses.get(group.id) ?? false) || (mcp?.isError ?? false);
    for (const base of group.calls) {
      const call: ToolCall = { ...base, isError };
      if (mcp && mcp.tool !== group.rawName && !call.name.startsWith("mcp__"))
        call.name = `mcp__${mcp.server}__${mcp.tool}`;
      if (withOutputs && output?.output !== undefined) call.output = output.output;
      toolCalls.push(call);
    }
  }
  return {
    sessionId,
    number: draft.number,
    timestamp: draft.timestamp,
    prompt: draft.prompts.join("\n\n"),
    response: draft.texts.join("\n\n"),
    toolCalls,
    files: filesTouched(toolCalls),
    isSubagent,
  };
}
