/**
 * Parsing one Qwen Code chat file into a `Session` and its `Turn`s (docs/formats/qwen-code.md). Every line is one
 * `ChatRecord` `{uuid, parentUuid, sessionId, timestamp, type, subtype?, cwd, version, gitBranch?, message?: {role,
 * parts}, model?, usageMetadata?, toolCallResult?, systemPayload?, isSidechain?, agentId?}` (QwenLM/qwen-code
 * `packages/core/src/services/chatRecordingService.ts`, commits 1ef51670 and 015346f1, Apache-2.0). The parts are
 * Gemini API parts, as in Gemini CLI chats, so their text, the tool calls and the token counts are read by Gemini CLI's
 * code (gemini-cli/records.ts `promptText` / `partsText`, tools.ts `toToolCall`, usage.ts `replyUsage`); Qwen's own
 * tool names are mapped first (./tools.ts).
 * - `user` (no `subtype`, `provenance` absent or `real_user`): a prompt, starting a turn.
 * - `assistant`: `text` parts are the reply (`thought` parts left out, as thinking is for every source);
 *   `functionCall {id, name, args}` parts are calls; `model` + `usageMetadata` the usage.
 * - `tool_result`: `functionResponse {id, name, response: {output | error}}` parts and `toolCallResult {callId,
 *   status}` complete the call of the same id.
 * - `system` `custom_title`: the title (`systemPayload.customTitle`, last wins). `system` `chat_compression`
 *   (`recordChatCompression`: `systemPayload {info, compressedHistory: Content[]}`, the history that replaced the old
 *   one, Gemini CLI's compression shape: the summary as its first `user` entry, then "Got it. …"): that entry's text
 *   (inside its `<state_snapshot>` when it has one, gemini-cli/abstract.ts) is the session's abstract (issue 41).
 *   Other system records are the CLI's
 *   bookkeeping (compression checkpoints, telemetry, slash commands, snapshots): left out; one of them that carries
 *   display text is counted in `skipped`, as is a `user` record the CLI injected (goal runtime, notifications).
 * - Sub-agent records (`isSidechain` or `agentId`) are kept in the turn that started them: replies in its response,
 *   calls and usage with its own.
 * Records are read in file order: a branch the user rewound (`parentUuid` pointing back) is not cut.
 */
import { readFileSync } from "node:fs";
import { SourceError } from "../../errors.ts";
import { fsReason } from "../file-stats.ts";
import { asObject, projectNameOf, timeOf } from "../shared/fields.ts";
import { decodeLines } from "../shared/jsonl-lines.ts";
import { noteSkip } from "../shared/skips.ts";
import { finishDraft, newTurnDraft, type TurnDraft } from "../shared/turn-builder.ts";
import type { AbstractPart, ParseOptions, ParseResult, Session, SkipReport, SourceUnit, ToolCall } from "../types.ts";
import { addModelUsage } from "../usage.ts";
import { compressionSummary } from "../gemini-cli/abstract.ts";
import { partsText, promptText } from "../gemini-cli/records.ts";
import { withAbstract } from "../shared/abstract.ts";
import { toToolCall } from "../gemini-cli/tools.ts";
import { replyUsage } from "../gemini-cli/usage.ts";
import { qwenToolName } from "./tools.ts";

/** A call as the assistant asked for it, completed by its tool result. */
interface PendingCall {
  name: string;
  args: unknown;
  result: unknown[];
  status?: string;
  resultDisplay?: unknown;
}

/** One turn being built: its calls stay pending until the file is read. */
interface Draft extends TurnDraft {
  calls: PendingCall[];
}

/** Keys of a system record's payload that hold text someone may want found (such a record is counted when skipped). */
const textPayloadKeys = ["displayText", "content", "message", "text"];

/**
 * Parse one chat file.
 * @throws SourceError when the file cannot be read, e.g. `cannot read qwen-code chat /x/s.jsonl: permission denied`
 */
export function parseQwenUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const path = unit.key;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new SourceError(`cannot read qwen-code chat ${path}: ${fsReason(error)}`, path, { cause: error });
  }
  const skipped: SkipReport = { count: 0 };
  const decoded = decodeLines(bytes, 1, path, skipped);
  const lines = decoded.partial ? [...decoded.lines, decoded.partial] : decoded.lines;
  let sessionId = unit.sessionId;
  let projectPath = "";
  let gitBranch: string | null = null;
  let title: string | null = null;
  const abstract: AbstractPart[] = [];
  let startedAt = 0;
  let endedAt = 0;
  const drafts: Draft[] = [];
  const byId = new Map<string, PendingCall>();
  const current = (t: number): Draft => {
    const last = drafts.at(-1);
    if (last) return last;
    const draft = newDraft(sessionId, 1, t, ""); // records before the first prompt: a turn without one
    drafts.push(draft);
    return draft;
  };
  for (const { line: n, value: record } of lines) {
    const t = timeOf(record.timestamp);
    if (t > 0) {
      if (startedAt === 0) startedAt = t;
      endedAt = Math.max(endedAt, t);
    }
    if (drafts.length === 0 && typeof record.sessionId === "string" && record.sessionId) sessionId = record.sessionId;
    if (!projectPath && typeof record.cwd === "string") projectPath = record.cwd;
    if (gitBranch === null && typeof record.gitBranch === "string" && record.gitBranch && record.gitBranch !== "HEAD")
      gitBranch = record.gitBranch;
    const place = `${path}:${n}`;
    const parts = asObject(record.message)?.parts;
    const fromSubagent = record.isSidechain === true || (typeof record.agentId === "string" && record.agentId !== "");
    switch (record.type) {
      case "user": {
        const text = promptText({ parts });
        if (!text) break; // no text (an image alone): nothing to keep
        const injected = record.subtype ?? (record.provenance === "real_user" ? undefined : record.provenance);
        if (fromSubagent) current(t).replies.push(text);
        else if (injected !== undefined) noteSkip(skipped, place, `injected user record (${String(injected)})`);
        else drafts.push(newDraft(sessionId, drafts.length + 1, t, text));
        break;
      }
      case "assistant": {
        const draft = current(t);
        const text = partsText(parts).trim();
        if (text) draft.replies.push(text);
        for (const part of Array.isArray(parts) ? parts : []) {
          const call = asObject(asObject(part)?.functionCall);
          if (!call) continue;
          if (typeof call.name !== "string" || !call.name) {
            noteSkip(skipped, place, "function call without a name");
            continue;
          }
          const pending: PendingCall = { name: qwenToolName(call.name), args: call.args, result: [] };
          if (typeof call.id === "string" && call.id) byId.set(call.id, pending);
          draft.calls.push(pending);
        }
        const usage = replyUsage({ model: record.model, tokens: tokensOf(record.usageMetadata) });
        if (usage) addModelUsage(draft.turn.usage ?? [], usage.model, usage.counts);
        break;
      }
      case "tool_result":
        readToolResult(record, parts, byId, skipped, place);
        break;
      case "system": {
        const payload = asObject(record.systemPayload);
        if (record.subtype === "custom_title") {
          if (typeof payload?.customTitle === "string" && payload.customTitle.trim())
            title = payload.customTitle.trim();
        } else if (record.subtype === "chat_compression") {
          const summary = compressionText(payload?.compressedHistory);
          if (summary) abstract.push({ source: "compaction", text: summary, at: t });
        } else if (textPayloadKeys.some((key) => typeof payload?.[key] === "string" && String(payload[key]).trim()))
          noteSkip(skipped, place, `system record ${String(record.subtype ?? "(no subtype)")}`);
        break;
      }
      default:
        if (partsText(parts).trim()) noteSkip(skipped, place, `unknown record type ${String(record.type)}`);
    }
  }
  const withOutputs = options.withOutputs === true;
  const turns = drafts.map((draft) => {
    draft.turn.toolCalls = draft.calls
      .map((call) => toToolCall(call, withOutputs))
      .filter((call): call is ToolCall => !!call);
    return finishDraft(draft);
  });
  const session: Session = {
    id: sessionId,
    source: "qwen-code",
    projectPath,
    projectName: projectNameOf(projectPath),
    gitBranch,
    startedAt,
    endedAt,
    title,
    turnCount: turns.length,
    parentSessionId: null,
    isSubagent: false,
    location: path,
  };
  return {
    session: withAbstract(session, abstract),
    turns,
    fromTurn: 1,
    bytesRead: bytes.length,
    skipped,
  };
}

/**
 * The summary of a compression checkpoint: the text of the first `user` entry of its `compressedHistory`, inside its
 * `<state_snapshot>` when it has one; "" when there is none.
 */
function compressionText(history: unknown): string {
  const first = Array.isArray(history) ? asObject(history[0]) : undefined;
  if (first?.role !== "user") return "";
  const text = partsText(first.parts).trim();
  return compressionSummary(text) ?? text;
}

function newDraft(sessionId: string, number: number, timestamp: number, prompt: string): Draft {
  return { ...newTurnDraft(sessionId, number, timestamp, prompt), calls: [] };
}

/** A `tool_result` record: each function response goes to the call of its id (`toolCallResult.callId` when it has none). */
function readToolResult(
  record: Record<string, unknown>,
  parts: unknown,
  byId: Map<string, PendingCall>,
  skipped: SkipReport,
  place: string,
): void {
  const result = asObject(record.toolCallResult);
  const fallbackId = typeof result?.callId === "string" ? result.callId : "";
  for (const part of Array.isArray(parts) ? parts : []) {
    const response = asObject(asObject(part)?.functionResponse);
    if (!response) continue;
    const id = typeof response.id === "string" && response.id ? response.id : fallbackId;
    const call = byId.get(id);
    if (!call) {
      noteSkip(skipped, place, "tool result without its call");
      continue;
    }
    call.result.push(part);
    if (id === fallbackId && typeof result?.status === "string") call.status = result.status;
    if (id === fallbackId && result?.resultDisplay !== undefined) call.resultDisplay = result.resultDisplay;
  }
}

/**
 * Token counts as Gemini CLI's `tokens` (gemini-cli/usage.ts): Qwen wrote that summary `{input, output, cached,
 * thoughts, tool}` at first and the API's own `{promptTokenCount, candidatesTokenCount, cachedContentTokenCount,
 * thoughtsTokenCount, toolUsePromptTokenCount}` later. Undefined when the record has none.
 */
function tokensOf(value: unknown): Record<string, unknown> | undefined {
  const usage = asObject(value);
  if (!usage) return undefined;
  if (usage.promptTokenCount === undefined && usage.candidatesTokenCount === undefined) return usage;
  return {
    input: usage.promptTokenCount,
    output: usage.candidatesTokenCount,
    cached: usage.cachedContentTokenCount,
    thoughts: usage.thoughtsTokenCount,
    tool: usage.toolUsePromptTokenCount,
  };
}
