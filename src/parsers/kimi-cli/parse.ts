/**
 * Parsing one Kimi CLI wire log into a `Session` and its `Turn`s (docs/formats/kimi-cli.md). The first line is a
 * header `{"type":"metadata","protocol_version":"1.x"}` (absent in files of protocol 1.1); every other line is a record
 * `{timestamp: <epoch seconds>, message: {type, payload}}` of the session's merged wire messages (MoonshotAI/kimi-cli
 * `src/kimi_cli/wire/file.py`, `wire/types.py`, `wire/__init__.py` `_WireRecorder`, commit 4a550eff):
 * - `TurnBegin` / `SteerInput` `{user_input: text | parts}`: a prompt (a steer is typed while the agent works), starting
 *   a turn;
 * - `ContentPart` `{type: "text", text}`: reply text (`think` parts left out, as thinking is for every source);
 *   `PlanDisplay {content}`: the plan the agent wrote, kept as reply text;
 * - `ToolCall {id, function: {name, arguments}}` (+ `ToolCallPart {arguments_part}`), `ToolResult {tool_call_id,
 *   return_value: {is_error, output, message}}`: calls;
 * - `StatusUpdate {token_usage: {input_other, output, input_cache_read, input_cache_creation}}`: one model step's
 *   tokens. The wire names no model, so usage is recorded under `unknown`.
 * - `SubagentEvent {parent_tool_call_id, agent_id, event: {type, payload}}`: a sub-agent's message, kept in the turn
 *   whose `Agent` call started it (prompt and replies in its response, calls and tokens with its own).
 * - `BtwBegin {question}` / `BtwEnd {response}` (a side question that never enters the conversation) and
 *   `QuestionResponse {answers}` are counted in `skipped`; step, compaction, hook, MCP, approval and notification
 *   messages are the interface's bookkeeping, left out.
 * Title: `state.json` `custom_title` (kimi_cli/session_state.py); project: the session's work dir (scan.ts, locator).
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { SourceError } from "../../errors.ts";
import { fsReason } from "../file-stats.ts";
import { asObject, projectNameOf } from "../shared/fields.ts";
import { decodeLines } from "../shared/jsonl-lines.ts";
import { noteSkip } from "../shared/skips.ts";
import { finishDraft, newTurnDraft, type TurnDraft } from "../shared/turn-builder.ts";
import type { ParseOptions, ParseResult, SkipReport, SourceUnit } from "../types.ts";
import { addModelUsage, countOf } from "../usage.ts";
import { stateFileName } from "./scan.ts";
import { kimiToolCall } from "./tools.ts";

/** A call as the wire announced it, completed by its result. */
interface PendingCall {
  name: string;
  argumentsText: string;
  isError: boolean;
  output?: string;
}

/** One turn being built. */
interface Draft extends TurnDraft {
  calls: PendingCall[];
}

/** The model name usage is recorded under: the wire names none (codex/turns.ts uses the same word). */
const unknownModel = "unknown";

/** Message types of the interface's bookkeeping: never conversation text, never counted. */
const metadataTypes = new Set([
  "TurnEnd",
  "StepBegin",
  "StepInterrupted",
  "StepRetry",
  "CompactionBegin",
  "CompactionEnd",
  "HookTriggered",
  "HookResolved",
  "MCPLoadingBegin",
  "MCPLoadingEnd",
  "Notification",
  "ApprovalRequest",
  "ApprovalResponse",
  "ApprovalRequestResolved",
  "ToolCallRequest",
  "QuestionRequest",
  "HookRequest",
  "HookResponse",
]);

/** Per-parse state. */
interface Context {
  path: string;
  skipped: SkipReport;
  drafts: Draft[];
  calls: Map<string, PendingCall>;
  lastCall: PendingCall | undefined;
  sessionId: string;
}

/**
 * Parse one wire log.
 * @throws SourceError when the file cannot be read, e.g. `cannot read kimi-cli wire log /x/wire.jsonl: permission denied`
 */
export function parseKimiUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const path = unit.key;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new SourceError(`cannot read kimi-cli wire log ${path}: ${fsReason(error)}`, path, { cause: error });
  }
  const context: Context = {
    path,
    skipped: { count: 0 },
    drafts: [],
    calls: new Map(),
    lastCall: undefined,
    sessionId: unit.sessionId,
  };
  const decoded = decodeLines(bytes, 1, path, context.skipped);
  const lines = decoded.partial ? [...decoded.lines, decoded.partial] : decoded.lines;
  let startedAt = 0;
  let endedAt = 0;
  for (const { line: n, value } of lines) {
    if (value.type === "metadata") continue;
    const message = asObject(value.message);
    if (!message || typeof message.type !== "string") {
      noteSkip(context.skipped, `${path}:${n}`, "not a wire record");
      continue;
    }
    const t = typeof value.timestamp === "number" && Number.isFinite(value.timestamp) ? value.timestamp * 1000 : 0;
    if (t > 0) {
      if (startedAt === 0) startedAt = t;
      endedAt = Math.max(endedAt, t);
    }
    readMessage(context, message.type, asObject(message.payload) ?? {}, t, `${path}:${n}`, false);
  }
  const withOutputs = options.withOutputs === true;
  const turns = context.drafts.map((draft) => {
    draft.turn.toolCalls = draft.calls.map((pending) => {
      const call = kimiToolCall(pending.name, pending.argumentsText, withOutputs);
      call.isError = pending.isError;
      if (withOutputs) call.output = pending.output ?? "";
      return call;
    });
    return finishDraft(draft);
  });
  const projectPath = typeof unit.locator?.projectPath === "string" ? unit.locator.projectPath : "";
  return {
    session: {
      id: unit.sessionId,
      source: "kimi-cli",
      projectPath,
      projectName: projectNameOf(projectPath),
      gitBranch: null,
      startedAt,
      endedAt,
      title: readTitle(dirname(path)),
      turnCount: turns.length,
      parentSessionId: null,
      isSubagent: false,
      location: path,
    },
    turns,
    fromTurn: 1,
    bytesRead: bytes.length,
    skipped: context.skipped,
  };
}

/** The turn being built, opening one without a prompt when a message comes before any prompt. */
function current(context: Context, t: number): Draft {
  const last = context.drafts.at(-1);
  if (last) return last;
  return openTurn(context, t, "");
}

function openTurn(context: Context, t: number, prompt: string): Draft {
  const draft: Draft = { ...newTurnDraft(context.sessionId, context.drafts.length + 1, t, prompt), calls: [] };
  context.drafts.push(draft);
  return draft;
}

/** One wire message (a sub-agent's too, `fromSubagent`) into the turn being built. */
function readMessage(
  context: Context,
  type: string,
  payload: Record<string, unknown>,
  t: number,
  place: string,
  fromSubagent: boolean,
): void {
  switch (type) {
    case "TurnBegin":
    case "SteerInput": {
      const text = inputText(payload.user_input);
      if (!text) break; // an image alone: no text to keep
      if (fromSubagent) current(context, t).replies.push(text);
      else openTurn(context, t, text);
      break;
    }
    case "ContentPart":
      if (payload.type === "text" && typeof payload.text === "string" && payload.text.trim())
        current(context, t).replies.push(payload.text);
      break;
    case "PlanDisplay":
      if (typeof payload.content === "string" && payload.content.trim())
        current(context, t).replies.push(payload.content);
      break;
    case "ToolCall": {
      const fn = asObject(payload.function);
      if (typeof fn?.name !== "string" || !fn.name) {
        noteSkip(context.skipped, place, "tool call without a name");
        break;
      }
      const call: PendingCall = {
        name: fn.name,
        argumentsText: typeof fn.arguments === "string" ? fn.arguments : "",
        isError: false,
      };
      if (typeof payload.id === "string" && payload.id) context.calls.set(payload.id, call);
      context.lastCall = call;
      current(context, t).calls.push(call);
      break;
    }
    case "ToolCallPart":
      if (context.lastCall && typeof payload.arguments_part === "string")
        context.lastCall.argumentsText += payload.arguments_part;
      break;
    case "ToolResult": {
      const call = context.calls.get(typeof payload.tool_call_id === "string" ? payload.tool_call_id : "");
      const value = asObject(payload.return_value) ?? {};
      const output = [inputText(value.output), typeof value.message === "string" ? value.message : ""]
        .filter((text) => text.trim())
        .join("\n");
      if (!call) {
        if (output) noteSkip(context.skipped, place, "tool result without its call");
        break;
      }
      call.isError = value.is_error === true;
      call.output = output;
      break;
    }
    case "StatusUpdate": {
      const usage = asObject(payload.token_usage);
      if (!usage) break;
      const draft = current(context, t);
      addModelUsage(draft.turn.usage ?? [], unknownModel, {
        input: countOf(usage.input_other),
        output: countOf(usage.output),
        cacheRead: countOf(usage.input_cache_read),
        cacheWrite: countOf(usage.input_cache_creation),
      });
      break;
    }
    case "SubagentEvent": {
      const event = asObject(payload.event);
      if (event && typeof event.type === "string")
        readMessage(context, event.type, asObject(event.payload) ?? {}, t, place, true);
      break;
    }
    case "BtwBegin":
    case "BtwEnd":
      if (typeof (payload.question ?? payload.response) === "string")
        noteSkip(context.skipped, place, "side question (/btw)");
      break;
    case "QuestionResponse":
      noteSkip(context.skipped, place, "answers to the agent's questions");
      break;
    default:
      if (!metadataTypes.has(type)) noteSkip(context.skipped, place, `unknown wire message ${type}`);
  }
}

/**
 * The text of a user input or tool output: a string, or the `text` parts of a part list joined by "\n"
 * (kosong `TextPart {type: "text", text}`); other parts (images, audio) hold no text.
 */
function inputText(value: unknown): string {
  if (typeof value === "string") return value.trim();
  if (!Array.isArray(value)) return "";
  return value
    .map((part) => asObject(part))
    .filter((part) => part?.type === "text" && typeof part.text === "string")
    .map((part) => part?.text as string)
    .join("\n")
    .trim();
}

/** The session's `custom_title` from its `state.json`, or null (missing, unreadable or no title). */
function readTitle(sessionDir: string): string | null {
  try {
    const state = asObject(JSON.parse(readFileSync(join(sessionDir, stateFileName), "utf8")));
    return typeof state?.custom_title === "string" && state.custom_title.trim() ? state.custom_title.trim() : null;
  } catch {
    return null;
  }
}
