/**
 * Turns of one Cline-family chat (`ui_messages.json`, load.ts). The rules, from how the agents write the chat
 * (cline/cline src/core/task/index.ts @beb3ad78; RooCodeInc/Roo-Code src/core/task/Task.ts @cb836567) and checked on
 * real chats (docs/formats/cline.md):
 * - The first message is the task the user typed: `say "text"` (Roo Code, Kilo Code, and Cline's own chats of
 *   2025-10 … 2026-01) or `say "task"` (Cline's code). Each `say "user_feedback"` (a reply to a question, a
 *   completion or a resumed task) starts the next turn.
 * - The reply: `say "text"`, `say|ask "completion_result"`, the question of `ask "followup"` (`{question}`) and
 *   the answer of `ask "plan_mode_respond"|"act_mode_respond"` (`{response}`), joined with blank lines.
 *   `say "subtask_result"` (Roo Code: what a sub-task reported back) is part of the reply too.
 * - Tool calls: tools.ts; `say "task_progress"` (Cline's checklist) is a `TodoWrite`, `ask "new_task"` a `Task`,
 *   `say "load_mcp_documentation"` (text "") a `LoadMcpDocumentation`.
 * - `say "api_req_started"`, text `{request?, tokensIn?, tokensOut?, cacheWrites?, cacheReads?, cost?}`
 *   (`ClineApiReqInfo`), gives the turn's usage; its `request` (Cline, Kilo Code, older Roo Code) is the text the
 *   model was sent, whose environment details name the folder (`# Current Working Directory (<path>) Files`, Cline;
 *   `# Current Workspace Directory (<path>) Files`, Roo Code) and, in Roo Code and Kilo Code, the model
 *   (`<model>…</model>` under `# Current Mode`).
 * - Summaries of the context the agent wrote when it compacted it (issue 41): Cline's `ask "condense"` (the `condense`
 *   tool's summary, shown for approval) and `ask "summarize_task"` (its automatic compaction), text = the summary;
 *   Roo Code's and Kilo Code's `say "condense_context"` with `contextCondense {summary, cost, prevContextTokens,
 *   newContextTokens}` (Roo-Code Task.ts `condenseContext`). Each is a `compaction` of the abstract, in no turn.
 * - `say "reasoning"` is the model's thinking, left out as every source leaves it out. Any other message with text
 *   is counted in `skipped` by kind (`checkpoint_saved message not indexed`); messages without text carry nothing.
 */
import { addModelUsage, countOf } from "../usage.ts";
import { asObject } from "../shared/fields.ts";
import { noteSkip } from "../shared/skips.ts";
import { filesTouched } from "../tool-calls.ts";
import type { AbstractPart, SkipReport, ToolCall, Turn } from "../types.ts";
import type { TaskFolder } from "./load.ts";
import { browserCall, commandCall, mcpCall, sayToolCall } from "./tools.ts";
import { buildToolCall } from "../tool-calls.ts";

/** What one chat holds, in recall's shape. */
export interface ChatReading {
  turns: Turn[];
  /** The folder the environment details name first, "" when none does. */
  projectPath: string;
  /** Earliest and latest message time, epoch ms (0 when none). */
  startedAt: number;
  endedAt: number;
  /** The compaction summaries, in chat order (not yet put in abstract order). */
  abstract: AbstractPart[];
}

const folderPattern = /# Current (?:Working|Workspace) Directory \(([^\n]+?)\) Files/;
const modelPattern = /<model>([^<\n]+)<\/model>/;

/** A JSON object from a message text, or undefined. */
function jsonObject(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith("{")) return undefined;
  try {
    return asObject(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** The model in use at `ts` by Cline's `model_usage` (the last switch at or before it), or undefined. */
function modelAt(folder: TaskFolder, ts: number): string | undefined {
  let model: string | undefined;
  for (const change of folder.modelSwitches) if (change.ts <= ts || model === undefined) model = change.model;
  return model;
}

/**
 * Add what one `api_req_started` records to its turn: its tokens and cost (under the model in use), and the folder
 * its request's environment details name (`onFolder`, every time one is named).
 * @returns the model in use from now on (the request's `<model>`, else `model`)
 */
function addRequest(
  info: Record<string, unknown>,
  turn: Turn,
  model: string | undefined,
  folder: TaskFolder,
  ts: number,
  onFolder: (path: string) => void,
): string | undefined {
  const request = typeof info.request === "string" ? info.request : "";
  const named = folderPattern.exec(request)?.[1];
  if (named && !named.startsWith("Primary:")) onFolder(named);
  const inUse = modelPattern.exec(request)?.[1]?.trim() || model;
  const used = inUse ?? modelAt(folder, ts);
  const counts = {
    input: countOf(info.tokensIn),
    output: countOf(info.tokensOut),
    cacheRead: countOf(info.cacheReads),
    cacheWrite: countOf(info.cacheWrites),
  };
  const cost = countOf(info.cost);
  const recorded = Object.values(counts).some((count) => count !== null) || cost !== null;
  if (used && recorded) addModelUsage((turn.usage ??= []), used, counts, cost);
  return inUse;
}

/**
 * Build the turns of one chat.
 * @param path the chat file, for skip places (`<path>: message <index>`)
 * @param withOutputs keep command, MCP, browser and listing outputs on their calls (level 3)
 * @param skipped counts what was not placed (mutated)
 */
export function buildChatTurns(
  sessionId: string,
  folder: TaskFolder,
  path: string,
  isSubagent: boolean,
  withOutputs: boolean,
  skipped: SkipReport,
): ChatReading {
  const turns: Turn[] = [];
  const replies: string[][] = [];
  const abstract: AbstractPart[] = [];
  let projectPath = "";
  let model: string | undefined;
  let startedAt = 0;
  let endedAt = 0;
  let lastCall: ToolCall | undefined;
  const open = (prompt: string, timestamp: number): void => {
    turns.push({
      sessionId,
      number: turns.length + 1,
      timestamp,
      prompt,
      response: "",
      toolCalls: [],
      files: [],
      isSubagent,
    });
    replies.push([]);
    lastCall = undefined;
  };
  const current = (timestamp: number): Turn => {
    if (turns.length === 0) open("", timestamp);
    return turns[turns.length - 1]!;
  };
  const reply = (text: string, timestamp: number): void => {
    current(timestamp);
    if (text.trim()) replies[replies.length - 1]!.push(text.trim());
  };
  const call = (made: ToolCall, timestamp: number): void => {
    current(timestamp).toolCalls.push(made);
    lastCall = made;
  };
  const output = (text: string): void => {
    if (withOutputs && lastCall) lastCall.output = lastCall.output ? `${lastCall.output}\n${text}` : text;
  };

  for (const [index, value] of folder.messages.entries()) {
    const place = `${path}: message ${index}`;
    const message = asObject(value);
    if (!message) {
      noteSkip(skipped, place, "not an object");
      continue;
    }
    const kind = message.type === "say" ? message.say : message.type === "ask" ? message.ask : undefined;
    if (typeof kind !== "string") {
      noteSkip(skipped, place, "neither say nor ask");
      continue;
    }
    const ts = typeof message.ts === "number" && Number.isFinite(message.ts) ? message.ts : 0;
    if (ts > 0) {
      startedAt = startedAt === 0 ? ts : Math.min(startedAt, ts);
      endedAt = Math.max(endedAt, ts);
    }
    const modelInfo = asObject(message.modelInfo);
    if (typeof modelInfo?.modelId === "string" && modelInfo.modelId) model = modelInfo.modelId;
    const text = typeof message.text === "string" ? message.text : "";
    const isSay = message.type === "say";

    if (isSay && (kind === "user_feedback" || (turns.length === 0 && (kind === "task" || kind === "text")))) {
      open(text, ts);
      continue;
    }
    switch (kind) {
      case "text":
      case "completion_result":
      case "subtask_result":
        reply(text, ts);
        break;
      case "followup":
      case "plan_mode_respond":
      case "act_mode_respond": {
        const asked = jsonObject(text);
        const said = asked ? (asked.question ?? asked.response) : text;
        reply(typeof said === "string" ? said : text, ts);
        break;
      }
      case "tool": {
        const tool = jsonObject(text);
        if (tool) call(sayToolCall(tool, withOutputs), ts);
        else if (text) noteSkip(skipped, place, "tool message not JSON");
        break;
      }
      case "command":
        if (text) call(commandCall(text), ts);
        break;
      case "command_output":
      case "mcp_server_response":
      case "browser_action_result":
        if (text) output(text);
        break;
      case "use_mcp_server": {
        const request = jsonObject(text);
        if (request) call(mcpCall(request), ts);
        else if (text) noteSkip(skipped, place, "use_mcp_server message not JSON");
        break;
      }
      case "browser_action_launch":
        call(browserCall(`launch ${text}`.trim()), ts);
        break;
      case "browser_action": {
        const action = jsonObject(text);
        const what = [action?.action, action?.coordinate, action?.text].filter((part) => typeof part === "string");
        call(browserCall(what.join(" ") || text), ts);
        break;
      }
      case "task_progress":
        if (text) call(buildToolCall("TodoWrite", { todos: text }, false), ts);
        break;
      case "load_mcp_documentation": // Cline's tool that reads its MCP server guide: no text, no input
        call(buildToolCall("LoadMcpDocumentation", {}, false), ts);
        break;
      case "new_task":
        call(buildToolCall("Task", { description: text }, false), ts);
        break;
      case "api_req_started": {
        const info = jsonObject(text);
        if (info)
          model = addRequest(info, current(ts), model, folder, ts, (folderPath) => {
            projectPath ||= folderPath;
          });
        else if (text) noteSkip(skipped, place, "api_req_started message not JSON");
        break;
      }
      case "condense":
      case "summarize_task":
        if (text.trim()) abstract.push({ source: "compaction", text, at: ts });
        break;
      case "condense_context": {
        const summary = asObject(message.contextCondense)?.summary;
        if (typeof summary === "string" && summary.trim())
          abstract.push({ source: "compaction", text: summary, at: ts });
        break;
      }
      case "reasoning":
        break; // thinking: left out, as every source leaves it out
      default:
        if (text.trim()) noteSkip(skipped, place, `${kind} message not indexed`);
    }
  }

  turns.forEach((turn, index) => {
    turn.response = replies[index]!.join("\n\n");
    turn.files = filesTouched(turn.toolCalls);
  });
  return { turns, projectPath, startedAt, endedAt, abstract };
}
