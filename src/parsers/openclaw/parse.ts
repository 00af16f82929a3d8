/**
 * Parsing one OpenClaw transcript into a `Session` and its `Turn`s (docs/formats/openclaw.md). OpenClaw runs pi's agent
 * library and writes pi's session file, version 3 (badlogic/pi-mono packages/coding-agent/docs/session.md and
 * src/core/session-manager.ts, commit 83378aad; readers: wesm/agentsview internal/parser/openclaw.go, commit 1c173202,
 * Dicklesworthstone/coding_agent_session_search src/connectors/openclaw.rs, commit 24cbdced). Every line is one entry:
 * - `session` `{version, id, timestamp, cwd, parentSession?}`: the header, first line: session id and project folder.
 * - `message` `{id, parentId, timestamp, message}` with `message.role`:
 *   `user` `{content: string | blocks}` starts a turn; `assistant` `{content: [text | thinking | toolCall], model,
 *   usage: {input, output, cacheRead, cacheWrite, cost: {total}}, stopReason, errorMessage?}` adds prose, calls, tokens
 *   (an `errorMessage` is kept in the reply as `[error] …`); `toolResult` `{toolCallId, content, isError}` ends a call;
 *   `bashExecution` `{command, output, exitCode}` (a command the user ran with `!`) is kept as a `Bash` call;
 *   `custom` (an extension's message) is counted in `skipped`.
 * - `session_info` `{name}` names the session; `model_change`, `thinking_level_change`, `label`, `custom`,
 *   `context_transform`, `ephemeral` are settings and extension state.
 * - Summaries (issue 41): a `compaction` `{summary}` entry or `compactionSummary` `{summary}` message is a `compaction`
 *   of the session's abstract, a `branch_summary` entry or `branchSummary` message (what the agent wrote of a branch
 *   the user left) an `agent_summary`, at the entry's time; none is a turn.
 * - Left out by design: thinking blocks (as for every source). The file keeps every branch of the conversation tree
 *   (`parentId` links): all are read, in file order.
 * - A sub-agent (`sessions_spawn`) has a transcript of its own; the agent's sessions.json links it to its parent
 *   (scan.ts, `locator`). No git branch is recorded.
 * Any other entry or role that carries text is counted in `skipped`.
 */
import { readFileSync } from "node:fs";
import { SourceError } from "../../errors.ts";
import { fsReason } from "../file-stats.ts";
import { asObject, projectNameOf, timeOf } from "../shared/fields.ts";
import { decodeLines } from "../shared/jsonl-lines.ts";
import { noteSkip } from "../shared/skips.ts";
import { finishDraft, newTurnDraft, type TurnDraft } from "../shared/turn-builder.ts";
import { withAbstract } from "../shared/abstract.ts";
import type {
  AbstractPart,
  AbstractSource,
  ParseOptions,
  ParseResult,
  Session,
  SkipReport,
  SourceUnit,
  ToolCall,
} from "../types.ts";
import { addModelUsage, countOf } from "../usage.ts";
import { openclawToolCall, textOf } from "./tools.ts";

/** Entry kinds that hold settings or extension state (see the file comment): never counted. */
const metadataTypes = new Set([
  "model_change",
  "thinking_level_change",
  "label",
  "custom",
  "context_transform",
  "ephemeral",
]);

/** Entry types and message roles holding a `summary`, and the abstract source each gives. */
const summaryKinds: Record<string, AbstractSource> = {
  compaction: "compaction",
  compactionSummary: "compaction",
  branch_summary: "agent_summary",
  branchSummary: "agent_summary",
};

/**
 * Parse one transcript.
 * @throws SourceError when the file cannot be read, e.g. `cannot read openclaw transcript /x/4f1c.jsonl: permission denied`
 */
export function parseOpenclawUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const path = unit.key;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new SourceError(`cannot read openclaw transcript ${path}: ${fsReason(error)}`, path, { cause: error });
  }
  const skipped: SkipReport = { count: 0 };
  const decoded = decodeLines(bytes, 1, path, skipped);
  const lines = decoded.partial ? [...decoded.lines, decoded.partial] : decoded.lines;
  const isSubagent = unit.locator?.isSubagent === true;
  const withOutputs = options.withOutputs === true;
  let sessionId = unit.sessionId;
  let projectPath = "";
  let title: string | null = null;
  let startedAt = 0;
  let endedAt = 0;
  const drafts: TurnDraft[] = [];
  const parts: AbstractPart[] = [];
  const calls = new Map<string, ToolCall>();
  const current = (t: number): TurnDraft => {
    const last = drafts.at(-1);
    if (last) return last;
    const draft = newTurnDraft(sessionId, 1, t, "", isSubagent); // entries before the first prompt: a turn without one
    drafts.push(draft);
    return draft;
  };
  for (const { line: n, value } of lines) {
    const type = typeof value.type === "string" ? value.type : "";
    const message = asObject(value.message) ?? {};
    const t = timeOf(value.timestamp) || millisOf(message.timestamp);
    if (t > 0) {
      if (startedAt === 0 || t < startedAt) startedAt = t;
      endedAt = Math.max(endedAt, t);
    }
    const place = `${path}:${n}`;
    if (type === "session") {
      if (typeof value.id === "string" && value.id.length > 0) sessionId = value.id;
      if (!projectPath && typeof value.cwd === "string") projectPath = value.cwd;
      continue;
    }
    if (type === "session_info") {
      if (typeof value.name === "string" && value.name.trim()) title = value.name.trim();
      continue;
    }
    if (metadataTypes.has(type)) continue;
    const summaryKind = summaryKinds[type === "message" ? String(message.role) : type];
    if (summaryKind) {
      const summary = (type === "message" ? message : value).summary;
      if (typeof summary === "string") parts.push({ source: summaryKind, text: summary, at: t });
      continue;
    }
    if (type !== "message") {
      if (carriesText(value)) noteSkip(skipped, place, `unknown entry type ${type || "(none)"}`);
      continue;
    }
    const role = typeof message.role === "string" ? message.role : "";
    switch (role) {
      case "user": {
        const text = textOf(message.content);
        if (text.trim().length === 0) break; // an image alone: no text to keep
        drafts.push(newTurnDraft(sessionId, drafts.length + 1, t, text, isSubagent));
        break;
      }
      case "assistant":
        readAssistant(current(t), message, calls, withOutputs, place, skipped);
        break;
      case "toolResult": {
        const call = calls.get(typeof message.toolCallId === "string" ? message.toolCallId : "");
        const output = textOf(message.content);
        if (!call) {
          if (output.trim()) noteSkip(skipped, place, "tool result without its call");
          break;
        }
        call.isError = message.isError === true;
        if (withOutputs) call.output = output;
        break;
      }
      case "bashExecution": {
        if (typeof message.command !== "string" || !message.command.trim()) break;
        const call = openclawToolCall("bash", { command: message.command }, withOutputs);
        call.isError = typeof message.exitCode === "number" && message.exitCode !== 0;
        if (withOutputs && typeof message.output === "string") call.output = message.output;
        current(t).turn.toolCalls.push(call);
        break;
      }
      default:
        if (textOf(message.content).trim()) noteSkip(skipped, place, `message role ${role || "(none)"}`);
    }
  }
  const turns = drafts.map(finishDraft);
  const label = typeof unit.locator?.label === "string" ? unit.locator.label : null;
  const parent = typeof unit.locator?.parentSessionId === "string" ? unit.locator.parentSessionId : null;
  const session: Session = {
    id: sessionId,
    source: "openclaw",
    projectPath,
    projectName: projectNameOf(projectPath),
    gitBranch: null,
    startedAt,
    endedAt,
    title: title ?? label,
    turnCount: turns.length,
    parentSessionId: parent,
    isSubagent,
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

/** Prose, tool calls and token usage of one assistant message, into the turn being built. */
function readAssistant(
  draft: TurnDraft,
  message: Record<string, unknown>,
  calls: Map<string, ToolCall>,
  withOutputs: boolean,
  place: string,
  skipped: SkipReport,
): void {
  const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content }] : message.content;
  for (const block of Array.isArray(blocks) ? blocks : []) {
    const entry = asObject(block);
    if (!entry) continue;
    if (entry.type === "text") {
      if (typeof entry.text === "string" && entry.text.trim()) draft.replies.push(entry.text);
    } else if (entry.type === "toolCall") {
      if (typeof entry.name !== "string" || entry.name.length === 0) {
        noteSkip(skipped, place, "tool call without a name");
        continue;
      }
      const call = openclawToolCall(entry.name, entry.arguments, withOutputs);
      if (typeof entry.id === "string") calls.set(entry.id, call);
      draft.turn.toolCalls.push(call);
    } else if (entry.type !== "thinking" && typeof entry.text === "string" && entry.text.trim()) {
      noteSkip(skipped, place, `content block ${String(entry.type)}`);
    }
  }
  if (typeof message.errorMessage === "string" && message.errorMessage.trim())
    draft.replies.push(`[error] ${message.errorMessage}`);
  const usage = asObject(message.usage);
  if (!usage) return;
  const model = typeof message.model === "string" && message.model ? message.model : "unknown";
  const cost = countOf(asObject(usage.cost)?.total);
  addModelUsage(
    draft.turn.usage ?? [],
    model,
    {
      input: countOf(usage.input),
      output: countOf(usage.output),
      cacheRead: countOf(usage.cacheRead),
      cacheWrite: countOf(usage.cacheWrite),
    },
    cost,
  );
}

/** Epoch ms of a message's own `timestamp` (a number of ms), 0 when absent. */
function millisOf(value: unknown): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0;
}

/** True when an entry of an unknown kind holds text someone wrote (`content` as a string or text blocks, `summary`, `text`). */
function carriesText(value: Record<string, unknown>): boolean {
  return [textOf(value.content), value.summary, value.text].some(
    (field) => typeof field === "string" && field.trim().length > 0,
  );
}
