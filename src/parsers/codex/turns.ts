/**
 * Grouping Codex items into turns (docs/formats.md §3.3 "Turns"). Rules, each local to one turn so that a
 * resumed parse re-grouping only the last turn's items (from its grouping state) matches a full parse:
 *   - prompts come from `user_message` events and from `response_item` user messages; the two copies of one
 *     message (Codex writes the item, then the event, adjacent) are one prompt, with the event's text and time; a
 *     user message that no event mirrors (Codex ≥ 0.147 writes none, so a rollout resumed after an upgrade has
 *     both kinds) is a prompt of its own (issue 26);
 *   - inside a task (`task_started` … `task_complete`/`turn_aborted`, newer rollouts) the first prompt starts
 *     a turn and later prompts of the same task (messages typed while the agent works) join it;
 *   - outside tasks (0.77 and older have no task events) every prompt starts a turn;
 *   - a prompt equal to the previous one with the same timestamp is the 0.77 double record of a review
 *     prompt and is dropped;
 *   - a `! cmd` shell item starts a turn when its task has no prompt, else joins the turn like a typed message;
 *   - outputs pair with calls of the same turn by `call_id`;
 *   - the agent's prose comes from `response_item` assistant messages; a turn that has none takes it from its
 *     `agent_message` events instead (issue 37: a reply recorded only as the event was dropped while its prompt was
 *     kept). The two streams normally mirror each other, so a turn never takes both.
 *   - a `token_count` event adds the growth of the cumulative total to its turn, under the model of the last
 *     `turn_context` (usage.ts); before the first prompt it only sets where counting starts.
 * What cannot be placed (items before the first prompt, an output whose call is not in its turn, `unplaced` records)
 * is returned as `unplaced`, for the parse to count as skipped.
 */
import { filesTouched } from "../tool-calls.ts";
import type { ModelUsage, ToolCall, Turn } from "../types.ts";
import { addModelUsage } from "../usage.ts";
import type { Item } from "./records.ts";
import { type CodexTotals, tokensAdded } from "./usage.ts";

/** State of the grouper between items (JSON-serializable, saved before the last turn for resuming). */
export interface GroupState {
  inTask: boolean;
  taskHasPrompt: boolean;
  /** The model of the last `turn_context`, null before one (usage.ts). */
  model: string | null;
  /** The cumulative `total_token_usage` of the last `token_count` event, null before one. */
  total: CodexTotals | null;
}

/** A prompt of the current turn that the other stream may still mirror (its event or its item, adjacent). */
interface PendingPrompt {
  k: "prompt" | "userItem";
  /** {@link mirrorKey} of its text. */
  key: string;
  /** Index in `TurnDraft.prompts`. */
  at: number;
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
  /** Prompts not yet paired with their mirror; cleared by the agent's next output. */
  pending: PendingPrompt[];
  texts: string[];
  /** Texts of the turn's `agent_message` events: its prose only when `texts` stays empty. */
  replies: string[];
  calls: Array<Extract<Item, { k: "call" }>>;
  outputs: Map<string, { isError: boolean; output?: string }>;
  statuses: Map<string, boolean>;
  mcp: Map<string, { server: string; tool: string; isError: boolean }>;
  /** Tokens per model of the turn's `token_count` events (usage.ts). */
  usage: ModelUsage[];
}

/** An item the grouper could not place: its index in the grouped items, its line, and why. */
export interface UnplacedItem {
  index: number;
  n: number;
  reason: string;
}

/** The grouper state at the start of a rollout. */
export const initialGroupState = (): GroupState => ({ inTask: false, taskHasPrompt: false, model: null, total: null });

/**
 * The text a user message and its `user_message` event share: whitespace collapsed, image markers left out (the
 * item writes an image as `[image]` or `<image …>` tags, the event keeps it in `images`).
 * Examples: `"fix  it\n[image]"` → `fix it`; `"<image name=[Image #1]>\n[image]\n</image>\nlook"` → `look`.
 */
export function mirrorKey(text: string): string {
  return text
    .replace(/<\/?image\b[^>]*>|\[image\]|\[Image #\d+\]/gi, " ")
    .replace(/\s+/g, " ")
    .trim();
}

/**
 * Group `items` (file order) into turns numbered from `firstNumber`.
 * @returns the drafts, the grouper state after the last item, and the items that could not be placed (file order)
 */
export function groupTurns(
  items: readonly Item[],
  start: GroupState,
  firstNumber: number,
): { drafts: TurnDraft[]; state: GroupState; unplaced: UnplacedItem[] } {
  const state: GroupState = { ...start };
  const drafts: TurnDraft[] = [];
  const unplaced: UnplacedItem[] = [];
  const open = (index: number, item: { t: number; text: string }) => {
    drafts.push({
      number: firstNumber + drafts.length,
      startIndex: index,
      stateBefore: { ...state },
      timestamp: item.t,
      prompts: [item.text],
      lastPrompt: { text: item.text, t: item.t },
      pending: [],
      texts: [],
      replies: [],
      calls: [],
      outputs: new Map(),
      statuses: new Map(),
      mcp: new Map(),
      usage: [],
    });
    if (state.inTask) state.taskHasPrompt = true;
  };
  /** Add a prompt: join the task's turn or open one. */
  const addPrompt = (index: number, item: { t: number; text: string }) => {
    const draft = drafts.at(-1);
    if (draft && state.inTask && state.taskHasPrompt) {
      draft.prompts.push(item.text);
      draft.lastPrompt = { text: item.text, t: item.t };
    } else open(index, item);
  };
  items.forEach((item, index) => {
    const draft = drafts.at(-1);
    const notPlaced = (reason: string) => unplaced.push({ index, n: item.n, reason });
    switch (item.k) {
      case "task":
        state.inTask = true;
        state.taskHasPrompt = false;
        if (draft) draft.pending = [];
        return;
      case "end":
        state.inTask = false;
        state.taskHasPrompt = false;
        if (draft) draft.pending = [];
        return;
      case "userItem":
      case "prompt": {
        if (draft && draft.lastPrompt.text === item.text && draft.lastPrompt.t === item.t) return;
        const key = mirrorKey(item.text);
        const mirror = draft?.pending.findIndex((pending) => pending.k !== item.k && pending.key === key) ?? -1;
        if (draft && mirror >= 0) {
          const [pending] = draft.pending.splice(mirror, 1);
          if (item.k === "prompt" && pending) preferEvent(draft, pending.at, item);
          return;
        }
        addPrompt(index, item);
        const current = drafts.at(-1) as TurnDraft;
        current.pending.push({ k: item.k, key, at: current.prompts.length - 1 });
        return;
      }
      case "shell":
        addPrompt(index, item);
        return;
      case "unplaced":
        notPlaced(item.reason);
        return;
      case "text":
      case "call":
      case "output":
        if (!draft) notPlaced("before the first prompt");
        else if (item.k === "output" && !draft.calls.some((call) => call.id === item.id))
          notPlaced("tool output without its call");
        else placeOutput(draft, item);
        return;
      case "reply":
        // Before the first prompt the reply's assistant message, its mirror, is the one counted as unplaced.
        draft?.replies.push(item.text);
        return;
      case "status":
        draft?.statuses.set(item.id, item.isError);
        return;
      case "mcp":
        draft?.mcp.set(item.id, { server: item.server, tool: item.tool, isError: item.isError });
        return;
      case "model":
        state.model = item.model;
        return;
      case "tokens": {
        // Before the first prompt (a fork's copied history, a header) the total only sets where counting starts.
        const added = tokensAdded(state.total, item);
        if (item.total) state.total = item.total;
        if (added && draft) addModelUsage(draft.usage, state.model ?? unknownModel, added);
        return;
      }
    }
  });
  return { drafts, state, unplaced };
}

/** Add the agent's prose, call or a call's output to its turn; prose and calls end the wait for a prompt's mirror. */
function placeOutput(draft: TurnDraft, item: Extract<Item, { k: "text" | "call" | "output" }>): void {
  if (item.k === "output") {
    draft.outputs.set(item.id, { isError: item.isError, output: item.output });
    return;
  }
  if (item.k === "text") draft.texts.push(item.text);
  else draft.calls.push(item);
  draft.pending = [];
}

/**
 * The `user_message` event of a prompt first seen as its `response_item`: the human's text as typed (§3.3) and the
 * event's time replace the item's, as when the event alone made the prompt.
 */
function preferEvent(draft: TurnDraft, at: number, event: { t: number; text: string }): void {
  draft.prompts[at] = event.text;
  if (at === 0) draft.timestamp = event.t;
  if (at === draft.prompts.length - 1) draft.lastPrompt = { text: event.text, t: event.t };
}

/**
 * The finished `Turn` of a draft: prompt = the turn's prompts joined by a blank line; response = assistant
 * texts joined by a blank line (the `agent_message` texts when the turn has no assistant message); tool calls in order, `isError` from the paired output, `exec_command_end`
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
  const turn: Turn = {
    sessionId,
    number: draft.number,
    timestamp: draft.timestamp,
    prompt: draft.prompts.join("\n\n"),
    response: (draft.texts.length > 0 ? draft.texts : draft.replies).join("\n\n"),
    toolCalls,
    files: filesTouched(toolCalls),
    isSubagent,
  };
  if (draft.usage.length > 0) turn.usage = draft.usage.map((entry) => ({ ...entry }));
  return turn;
}

/** The model named for tokens counted before any `turn_context` named one (not seen in the corpus). */
const unknownModel = "unknown";
