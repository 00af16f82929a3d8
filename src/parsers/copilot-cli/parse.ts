/**
 * Parsing one GitHub Copilot CLI event log into a `Session` and its `Turn`s (docs/formats/copilot-cli.md). Every line
 * is one event `{type, data, id, timestamp, parentId, agentId?}` (github/copilot-sdk
 * nodejs/src/generated/session-events.ts, commit cc0438d6); only events not flagged `ephemeral` are on disk.
 * - `session.start` `{sessionId, selectedModel?, context: {cwd, branch?}}`: the id, project folder and git branch;
 *   `session.resume` and `session.context_changed` give them when the start did not; `session.title_changed` the title;
 *   `session.model_change` `{newModel}`, `assistant.turn_start` `{model}` the model answering now.
 * - `user.message` `{content}` starts a turn; `assistant.message` `{content, toolRequests[], model?, outputTokens?}`
 *   adds prose, calls and output tokens (input and cache counts are only in the ephemeral `assistant.usage`, never on
 *   disk, so they stay null); `tool.execution_start` adds a call no message announced; `tool.execution_complete` sets
 *   its error flag and output.
 * - Sub-agents (`task` calls) run inside the same log: their events carry `agentId` (or, before it, the deprecated
 *   `data.parentToolCallId`). They are kept in the turn whose `task` call started them: their tool calls with the
 *   turn's, their prompt and replies in its response (a log names no sub-agent before it is read whole, so they get no
 *   session of their own); their models and tokens are left to the sub-agent (only `subagent.completed` totals them).
 * - Abstract (issue 41): `session.compaction_complete` `{success, summaryContent?}` (the model's summary of the
 *   compacted history) is a `compaction`; `session.task_complete` `{summary?}` (the agent's summary of the task it
 *   completed) an `agent_summary`; both at the event's time, from the main agent only (a sub-agent's are its own).
 * - Reasoning (`assistant.reasoning`, `reasoningText`), the system prompt (`system.message`) and notices
 *   (`session.info`, `session.warning`, …) are left out by design, as thinking is for every source; an event of a kind
 *   not known here that carries text is counted in `skipped`.
 */
import { readFileSync } from "node:fs";
import { SourceError } from "../../errors.ts";
import { fsReason } from "../file-stats.ts";
import { asObject, projectNameOf, timeOf } from "../shared/fields.ts";
import { decodeLines } from "../shared/jsonl-lines.ts";
import { noteSkip } from "../shared/skips.ts";
import { finishDraft, newTurnDraft, type TurnDraft } from "../shared/turn-builder.ts";
import { withAbstract } from "../shared/abstract.ts";
import type { AbstractPart, ParseOptions, ParseResult, Session, SkipReport, SourceUnit, ToolCall } from "../types.ts";
import { addModelUsage, countOf } from "../usage.ts";
import { copilotToolCall, toolOutputOf } from "./tools.ts";

/** Event kinds read for metadata only, or left out by design (see the file comment): never counted. */
const metadataTypes = new Set([
  "assistant.turn_end",
  "assistant.reasoning",
  "assistant.intent",
  "assistant.idle",
  "assistant.usage",
  "assistant.message_start",
  "tool.execution_partial_result",
  "tool.execution_progress",
  "tool.user_requested",
  "tool_search.activated",
  "skill.invoked",
  "system.message",
  "system.notification",
  "pending_messages.modified",
  "abort",
]);

/** Event families that never hold conversation text (session lifecycle, hooks, permissions, sub-agent lifecycle). */
const metadataFamilies = ["session.", "hook.", "permission.", "subagent.", "mcp.", "model."];

/** What the events said about the session. */
interface Meta {
  sessionId: string;
  projectPath: string;
  gitBranch: string | null;
  title: string | null;
  model: string | null;
  startedAt: number;
  endedAt: number;
}

/**
 * Parse one event log.
 * @throws SourceError when the file cannot be read, e.g. `cannot read copilot-cli event log /x/events.jsonl: permission denied`
 */
export function parseCopilotUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const path = unit.key;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new SourceError(`cannot read copilot-cli event log ${path}: ${fsReason(error)}`, path, { cause: error });
  }
  const skipped: SkipReport = { count: 0 };
  const decoded = decodeLines(bytes, 1, path, skipped);
  const lines = decoded.partial ? [...decoded.lines, decoded.partial] : decoded.lines;
  const meta: Meta = {
    sessionId: unit.sessionId,
    projectPath: "",
    gitBranch: null,
    title: null,
    model: null,
    startedAt: 0,
    endedAt: 0,
  };
  const withOutputs = options.withOutputs === true;
  const parts: AbstractPart[] = [];
  const drafts: TurnDraft[] = [];
  const calls = new Map<string, ToolCall>();
  const current = (t: number): TurnDraft => {
    const last = drafts.at(-1);
    if (last) return last;
    const draft = newTurnDraft(meta.sessionId, 1, t, ""); // events before the first prompt: a turn without one
    drafts.push(draft);
    return draft;
  };
  for (const { line: n, value } of lines) {
    const type = typeof value.type === "string" ? value.type : "";
    const data = asObject(value.data) ?? {};
    const t = timeOf(value.timestamp);
    if (t > 0) {
      if (meta.startedAt === 0) meta.startedAt = t;
      meta.endedAt = Math.max(meta.endedAt, t);
    }
    const place = `${path}:${n}`;
    const fromSubagent = isNonEmpty(value.agentId) || isNonEmpty(data.parentToolCallId);
    switch (type) {
      case "session.start":
      case "session.resume":
      case "session.context_changed":
        readContext(meta, type, data);
        break;
      case "session.title_changed":
        if (isNonEmpty(data.title)) meta.title = data.title;
        break;
      case "session.model_change":
        if (isNonEmpty(data.newModel)) meta.model = data.newModel;
        break;
      case "assistant.turn_start":
        if (!fromSubagent && isNonEmpty(data.model)) meta.model = data.model;
        break;
      case "user.message": {
        const content = typeof data.content === "string" ? data.content : "";
        if (content.trim().length === 0) break; // no text (an attachment alone): nothing to keep
        if (fromSubagent) current(t).replies.push(content);
        else drafts.push(newTurnDraft(meta.sessionId, drafts.length + 1, t, content));
        break;
      }
      case "assistant.message": {
        const content = typeof data.content === "string" ? data.content : "";
        const requests = Array.isArray(data.toolRequests) ? data.toolRequests : [];
        if (content.trim().length === 0 && requests.length === 0 && data.outputTokens === undefined) break;
        const draft = current(t);
        if (content.trim()) draft.replies.push(content);
        for (const request of requests) {
          const entry = asObject(request);
          if (!entry || !isNonEmpty(entry.name)) {
            noteSkip(skipped, place, "tool request without a name");
            continue;
          }
          const call = copilotToolCall(
            entry.name,
            entry.arguments,
            withOutputs,
            str(entry.mcpServerName),
            str(entry.mcpToolName),
          );
          if (isNonEmpty(entry.toolCallId)) calls.set(entry.toolCallId, call);
          draft.turn.toolCalls.push(call);
        }
        if (!fromSubagent) addUsage(draft, data, meta.model);
        break;
      }
      case "tool.execution_start": {
        if (isNonEmpty(data.model) && !fromSubagent) meta.model = data.model;
        const id = str(data.toolCallId);
        if ((id && calls.has(id)) || !isNonEmpty(data.toolName)) break;
        const call = copilotToolCall(
          data.toolName,
          data.arguments,
          withOutputs,
          str(data.mcpServerName),
          str(data.mcpToolName),
        );
        if (id) calls.set(id, call);
        current(t).turn.toolCalls.push(call);
        break;
      }
      case "session.compaction_complete":
        if (!fromSubagent && isNonEmpty(data.summaryContent))
          parts.push({ source: "compaction", text: data.summaryContent, at: t });
        break;
      case "session.task_complete":
        if (!fromSubagent && isNonEmpty(data.summary))
          parts.push({ source: "agent_summary", text: data.summary, at: t });
        break;
      case "tool.execution_complete": {
        const call = calls.get(str(data.toolCallId) ?? "");
        if (!call) {
          if (toolOutputOf(data).trim()) noteSkip(skipped, place, "tool result without its call");
          break;
        }
        call.isError = data.success === false;
        if (withOutputs) call.output = toolOutputOf(data);
        break;
      }
      default:
        if (metadataTypes.has(type) || metadataFamilies.some((family) => type.startsWith(family))) break;
        if (carriesText(data)) noteSkip(skipped, place, `unknown event type ${type || "(none)"}`);
    }
  }
  const turns = drafts.map(finishDraft);
  const session: Session = {
    id: meta.sessionId,
    source: "copilot-cli",
    projectPath: meta.projectPath,
    projectName: projectNameOf(meta.projectPath),
    gitBranch: meta.gitBranch,
    startedAt: meta.startedAt,
    endedAt: meta.endedAt,
    title: meta.title,
    turnCount: turns.length,
    parentSessionId: null,
    isSubagent: false,
    location: path,
  };
  return {
    session: withAbstract(session, parts),
    turns,
    fromTurn: 1,
    bytesRead: bytes.length,
    skipped,
  };
}

/** Session id, project folder, branch and model from a start, resume or context change (the first recorded wins). */
function readContext(meta: Meta, type: string, data: Record<string, unknown>): void {
  if (type === "session.start" && isNonEmpty(data.sessionId)) meta.sessionId = data.sessionId;
  const context = type === "session.context_changed" ? data : asObject(data.context);
  if (!meta.projectPath && isNonEmpty(context?.cwd)) meta.projectPath = context.cwd;
  if (meta.gitBranch === null && isNonEmpty(context?.branch) && context.branch !== "HEAD")
    meta.gitBranch = context.branch;
  if (isNonEmpty(data.selectedModel)) meta.model = data.selectedModel;
}

/** The message's output tokens under its model (the session's current one when it names none). */
function addUsage(draft: TurnDraft, data: Record<string, unknown>, current: string | null): void {
  const model = isNonEmpty(data.model) ? data.model : current;
  const output = countOf(data.outputTokens);
  if (model === null && output === null) return;
  addModelUsage(draft.turn.usage ?? [], model ?? "unknown", { input: null, output, cacheRead: null, cacheWrite: null });
}

/** True when an event of an unknown kind holds text someone wrote (`content` or `message`). */
function carriesText(data: Record<string, unknown>): boolean {
  return [data.content, data.message].some((value) => typeof value === "string" && value.trim().length > 0);
}

function isNonEmpty(value: unknown): value is string {
  return typeof value === "string" && value.length > 0;
}

function str(value: unknown): string | undefined {
  return isNonEmpty(value) ? value : undefined;
}
