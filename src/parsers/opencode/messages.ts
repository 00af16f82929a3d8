/**
 * OpenCode conversation reconstruction, shared by the three storage generations (SQLite, JSON
 * storage, legacy 0.5.x): raw session/message/part records in, `Session` + `Turn[]` out.
 * Owns the turn rules (docs/formats.md §2.1 "Conversation reconstruction"); reading the records
 * from disk is left to sqlite.ts, json-storage.ts and legacy.ts.
 * Checked against OpenCode 0.5.28, 1.1.44, 1.2.25 and 1.17.3 data in ../shared/corpus/opencode.
 */
import { withFileChange } from "../file-change.ts";
import { buildToolCall, filesTouched, normalizeToolInput, normalizeToolName } from "../tool-calls.ts";
import type { ModelUsage, Session, SkipReport, ToolCall, Turn } from "../types.ts";
import { addModelUsage } from "../usage.ts";
import { messageUsage } from "./usage.ts";

/** One session row as every generation records it; times epoch ms UTC (0 when unknown). */
export interface RawSession {
  id: string;
  parentId: string | null;
  /** `session.directory` (db / JSON); "" when the generation has none (legacy). */
  directory: string;
  /** The project's `worktree`, "" when unknown or `/` (the `global` project). */
  worktree: string;
  title: string | null;
  timeCreated: number;
  timeUpdated: number;
}

/** One part: its id (`prt_…`) and its JSON object (`type`, `text`, `tool`, `state`, …). */
export interface RawPart {
  id: string;
  data: Record<string, unknown>;
}

/** One message: id (`msg_…`), creation time (epoch ms), its JSON object and its parts ordered by id. */
export interface RawMessage {
  id: string;
  timeCreated: number;
  data: Record<string, unknown>;
  parts: RawPart[];
}

/** Everything a generation loaded for one session; `skipped` counts records it could not read. */
export interface RawConversation {
  session: RawSession;
  messages: RawMessage[];
  location: string;
  bytesRead: number;
  skipped: SkipReport;
}

/** Narrow an unknown JSON value to a plain object (arrays and null are not objects here). */
export function asObject(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

/** A string field or undefined. */
export function stringOf(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** A finite number field or undefined. */
export function numberOf(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) ? value : undefined;
}

interface TurnDraft {
  timestamp: number;
  prompt: string;
  texts: string[];
  calls: ToolCall[];
  /** Tokens and recorded cost per model of the turn's assistant messages (usage.ts). */
  usage: ModelUsage[];
}

/** Order messages by (time created, id) as OpenCode does (ids are time-ordered ascending, §2.1). */
export function sortMessages(messages: RawMessage[]): RawMessage[] {
  return messages.sort((a, b) => a.timeCreated - b.timeCreated || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The human prompt of a user message: its text parts that are neither `synthetic` (OpenCode's
 * own notes such as "The following tool was executed by the user" for a `!cmd` shell run, or
 * "Called the Read tool …" for an attached file) nor `ignored`, joined with blank lines.
 * Returns "" when the message has no such part (compaction requests, shell runs, continue notes).
 */
export function extractPrompt(message: RawMessage): string {
  const texts: string[] = [];
  for (const part of message.parts) {
    if (part.data.type !== "text" || part.data.synthetic === true || part.data.ignored === true) continue;
    const text = stringOf(part.data.text)?.trim();
    if (text) texts.push(text);
  }
  return texts.join("\n\n");
}

/** The synthetic text of a user message, used only when a conversation starts with one. */
function extractSyntheticText(message: RawMessage): string {
  const texts = message.parts
    .filter((part) => part.data.type === "text")
    .map((part) => stringOf(part.data.text)?.trim() ?? "");
  return texts.filter((text) => text.length > 0).join("\n\n");
}

/**
 * Tool part → ToolCall in the shared vocabulary; only withOutputs: output (state.output, else state.error) and, for
 * `edit {filePath, oldString, newString}` / `write {filePath, content}`, what it changed (`change`, file-change.ts).
 */
export function toToolCall(data: Record<string, unknown>, withOutputs: boolean): ToolCall | undefined {
  const tool = stringOf(data.tool);
  if (!tool) return undefined;
  const state = asObject(data.state) ?? {};
  const input = normalizeToolInput(state.input);
  const call = buildToolCall(normalizeToolName(tool), input, state.status === "error");
  if (withOutputs) {
    const output = stringOf(state.output) ?? stringOf(state.error);
    if (output !== undefined) call.output = output;
    withFileChange(call, input);
  }
  return call;
}

/**
 * Add an assistant message's prose and tool calls to a turn; compaction summaries add nothing but tools (their text
 * is the session's abstract, abstract.ts).
 */
function addAssistant(draft: TurnDraft, message: RawMessage, withOutputs: boolean): void {
  const isSummary = message.data.summary === true;
  const usage = messageUsage(message.data);
  if (usage) addModelUsage(draft.usage, usage.model, usage.counts, usage.costUsd);
  for (const part of message.parts) {
    if (part.data.type === "text" && !isSummary) {
      const text = stringOf(part.data.text)?.trim();
      if (text) draft.texts.push(text);
    } else if (part.data.type === "tool") {
      const call = toToolCall(part.data, withOutputs);
      if (call) draft.calls.push(call);
    }
  }
}

/**
 * Build the turns of one conversation (messages already sorted by {@link sortMessages}).
 * Rules (formats.md §2.1): a user message with a human prompt opens a turn; every assistant
 * message joins the turn of its `parentID` user message (aborted tries and retries included), or
 * the latest turn when it has no known parent (legacy 0.5.x has no `parentID`). A user message
 * without a human prompt (synthetic-only: `!cmd` shell runs, compaction requests, "continue")
 * does not open a turn: it and its answers fold into the previous turn. Usage: each assistant message's model,
 * tokens and cost, summed per model (usage.ts). Compaction summaries
 * (`summary: true`) contribute no response text. Response = assistant text parts, no reasoning.
 * Example: [user "fix x", asst(parent u1) text "ok" + bash, user synthetic, asst bash `ls`]
 *   → one turn: prompt "fix x", response "ok", tools [Bash, Bash].
 */
export function buildTurns(
  sessionId: string,
  messages: RawMessage[],
  isSubagent: boolean,
  withOutputs: boolean,
): Turn[] {
  const drafts: TurnDraft[] = [];
  const turnOfUser = new Map<string, TurnDraft>();
  for (const message of messages) {
    const role = message.data.role;
    if (role === "user") {
      const prompt = extractPrompt(message);
      let draft = drafts.at(-1);
      if (prompt || !draft) {
        draft = {
          timestamp: message.timeCreated,
          prompt: prompt || extractSyntheticText(message),
          texts: [],
          calls: [],
          usage: [],
        };
        drafts.push(draft);
      }
      turnOfUser.set(message.id, draft);
    } else if (role === "assistant") {
      const parentId = stringOf(message.data.parentID);
      let draft = (parentId && turnOfUser.get(parentId)) || drafts.at(-1);
      if (!draft) {
        draft = { timestamp: message.timeCreated, prompt: "", texts: [], calls: [], usage: [] };
        drafts.push(draft);
      }
      addAssistant(draft, message, withOutputs);
    }
  }
  return drafts.map((draft, index) => {
    const turn: Turn = {
      sessionId,
      number: index + 1,
      timestamp: draft.timestamp,
      prompt: draft.prompt,
      response: draft.texts.join("\n\n"),
      toolCalls: draft.calls,
      files: filesTouched(draft.calls),
      isSubagent,
    };
    if (draft.usage.length > 0) turn.usage = draft.usage;
    return turn;
  });
}

/** Last path component of a POSIX or Windows path ("" for "" or "/"). */
export function lastPathComponent(path: string): string {
  const parts = path.split(/[\\/]/).filter((part) => part.length > 0);
  return parts.at(-1) ?? "";
}

/**
 * Assemble the `Session` record. projectPath = session.directory, else the project worktree
 * (except `/`), else the first assistant `path.cwd` (legacy 0.5.x keeps the directory only there).
 * endedAt = max(time_updated, last message creation) because aborted replies can land after the
 * session's own update stamp (seen in the 1.1.44 corpus session).
 */
export function buildSession(raw: RawSession, messages: RawMessage[], turnCount: number, location: string): Session {
  const projectPath = raw.directory || (raw.worktree !== "/" ? raw.worktree : "") || findAssistantCwd(messages);
  const lastMessageMs = messages.reduce((max, message) => Math.max(max, message.timeCreated), 0);
  return {
    id: raw.id,
    source: "opencode",
    projectPath,
    projectName: lastPathComponent(projectPath),
    gitBranch: null,
    startedAt: raw.timeCreated || (messages[0]?.timeCreated ?? 0),
    endedAt: Math.max(raw.timeUpdated, lastMessageMs),
    title: raw.title,
    turnCount,
    parentSessionId: raw.parentId,
    isSubagent: raw.parentId !== null,
    location,
  };
}

function findAssistantCwd(messages: RawMessage[]): string {
  for (const message of messages) {
    const cwd = stringOf(asObject(message.data.path)?.cwd);
    if (message.data.role === "assistant" && cwd) return cwd;
  }
  return "";
}
