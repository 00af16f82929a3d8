/**
 * Parsing one cursor-agent chat store into a `Session` and its `Turn`s (docs/formats/cursor-agent.md). The latest root
 * blob lists the conversation's message blobs in order (store.ts); each is one AI SDK message, UTF-8 JSON
 * `{role, content, providerOptions?: {cursor: {requestId, modelName}}}` (yashas-salankimatt/sidecar
 * docs/plans/cursor-cli-adapter.md @4b230572; chenhg5/tape's Cursor CLI source tests):
 * - `user`: `content` a string or `[{type: "text", text}]`. cursor-agent wraps the typed text in `<user_query>…
 *   </user_query>` after context it adds (`<user_info>` with the OS and `Workspace Path: …`): the query is the prompt
 *   and starts a turn; the added context is counted in `skipped` (`context the agent added`).
 * - `assistant`: parts `text` (reply), `reasoning` (thinking, left out as for every source), `tool-call {toolCallId,
 *   toolName, args}`; `providerOptions.cursor.modelName` (on the message or a part) names the model, recorded in the
 *   turn's usage without token counts (the store keeps none per turn).
 * - `tool`: parts `tool-result {toolCallId, toolName, result}`, the output of the call with that id.
 * - `system`: the system prompt, counted in `skipped`. Anything else (another role, another part type, a blob that is
 *   missing or not JSON) is counted in `skipped` too.
 * Messages carry no times: every turn takes the chat's `createdAt`; the session ends at the store's last write (the
 * newer mtime of `store.db` and `store.db-wal`). Title: `meta.name` unless it is cursor-agent's default `New Agent`.
 * Project: the root's workspace URI, else the `Workspace Path:` line of the first `<user_info>`. No git branch recorded.
 */
import { statSync } from "node:fs";
import { SourceError } from "../../errors.ts";
import { asObject, projectNameOf } from "../shared/fields.ts";
import { describeSqliteError } from "../shared/readonly-sqlite.ts";
import { noteSkip } from "../shared/skips.ts";
import { finishDraft, newTurnDraft, type TurnDraft } from "../shared/turn-builder.ts";
import type { ParseOptions, ParseResult, SkipReport, SourceUnit, ToolCall } from "../types.ts";
import { addModelUsage } from "../usage.ts";
import { cursorAgentToolCall } from "./tools.ts";
import { type ChatMeta, type ChatRoot, decodeRoot, readBlob, readChatMeta, withChatStore } from "./store.ts";
import type { ReadonlyDatabase } from "../shared/readonly-sqlite.ts";

/** The name cursor-agent gives a chat it has not titled. */
const defaultChatName = "New Agent";

/** One turn being built. */
interface Draft extends TurnDraft {
  calls: ToolCall[];
}

/** Per-parse state. */
interface Context {
  path: string;
  skipped: SkipReport;
  drafts: Draft[];
  calls: Map<string, ToolCall>;
  sessionId: string;
  createdAt: number;
  withOutputs: boolean;
  workspaceFromContext: string;
}

const unknownCounts = { input: null, output: null, cacheRead: null, cacheWrite: null };

/**
 * Parse one chat store (always a full parse).
 * @throws SourceError when the store cannot be read now or holds no chat, e.g. `cannot read cursor-agent chat
 *   /x/store.db: database is locked`
 */
export function parseCursorAgentUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const path = unit.key;
  const fail = (reason: string, cause?: unknown): never => {
    throw new SourceError(`cannot read cursor-agent chat ${path}: ${reason}`, path, { cause });
  };
  let read: ReturnType<typeof readChat>;
  try {
    read = withChatStore(path, readChat);
  } catch (error) {
    return fail(describeSqliteError(error), error);
  }
  if ("problem" in read) return fail(read.problem);
  const { meta, root, messages } = read;
  const context: Context = {
    path,
    skipped: { count: 0 },
    drafts: [],
    calls: new Map(),
    sessionId: unit.sessionId,
    createdAt: meta.createdAt,
    withOutputs: options.withOutputs === true,
    workspaceFromContext: "",
  };
  let bytesRead = read.rootBytes;
  for (const { id, data } of messages) {
    const place = `${path}: blob ${id}`;
    if (!data) {
      noteSkip(context.skipped, place, "missing message blob");
      continue;
    }
    bytesRead += data.length;
    let message: Record<string, unknown> | undefined;
    try {
      message = asObject(JSON.parse(Buffer.from(data).toString("utf8")));
    } catch {
      message = undefined;
    }
    if (!message || typeof message.role !== "string") {
      noteSkip(context.skipped, place, "message blob not a JSON message");
      continue;
    }
    readMessage(context, message, place);
  }
  const turns = context.drafts.map((draft) => {
    draft.turn.toolCalls = draft.calls;
    return finishDraft(draft);
  });
  const projectPath = root.workspacePath || context.workspaceFromContext;
  return {
    session: {
      id: unit.sessionId,
      source: "cursor-agent",
      projectPath,
      projectName: projectNameOf(projectPath),
      gitBranch: null,
      startedAt: meta.createdAt,
      endedAt: Math.max(meta.createdAt, lastWrite(path)),
      title: meta.name && meta.name !== defaultChatName ? meta.name : null,
      turnCount: turns.length,
      parentSessionId: null,
      isSubagent: false,
      location: path,
    },
    turns,
    fromTurn: 1,
    bytesRead,
    skipped: context.skipped,
  };
}

/** What one store holds for a parse: its metadata, latest root and the root's message blobs (null when missing). */
type ChatRead =
  | { meta: ChatMeta; root: ChatRoot; rootBytes: number; messages: { id: string; data: Uint8Array | null }[] }
  | { problem: string };

/** Read a store's metadata, latest root and message blobs while it is open; a phrase when it holds no chat. */
function readChat(handle: ReadonlyDatabase): ChatRead {
  const meta = readChatMeta(handle);
  if (!meta?.latestRootBlobId) return { problem: "no chat metadata (meta key 0)" };
  const rootBlob = readBlob(handle, meta.latestRootBlobId);
  if (!rootBlob) return { problem: "the root blob is missing" };
  const root = decodeRoot(rootBlob);
  if (!root) return { problem: "the root blob is not a protocol-buffer message" };
  const messages = root.messageIds.map((id) => ({ id, data: readBlob(handle, id) }));
  return { meta, root, rootBytes: rootBlob.length, messages };
}

/** The newer mtime of the store and its `-wal`, epoch ms; 0 when neither can be stat'ed. */
function lastWrite(path: string): number {
  let newest = 0;
  for (const file of [path, `${path}-wal`]) {
    try {
      newest = Math.max(newest, statSync(file).mtimeMs);
    } catch {
      // absent: no write there
    }
  }
  return Math.floor(newest);
}

function openTurn(context: Context, prompt: string): Draft {
  const draft: Draft = {
    ...newTurnDraft(context.sessionId, context.drafts.length + 1, context.createdAt, prompt),
    calls: [],
  };
  context.drafts.push(draft);
  return draft;
}

/** The turn being built, opening one without a prompt when an answer comes before any prompt. */
function current(context: Context): Draft {
  return context.drafts.at(-1) ?? openTurn(context, "");
}

/** The parts of a message's content: a string is one text part. */
function partsOf(content: unknown): Record<string, unknown>[] {
  if (typeof content === "string") return [{ type: "text", text: content }];
  return Array.isArray(content) ? content.map((part) => asObject(part) ?? {}) : [];
}

/** `providerOptions.cursor.modelName` of a message or part, or null. */
function modelNameOf(value: Record<string, unknown>): string | null {
  const name = asObject(asObject(value.providerOptions)?.cursor)?.modelName;
  return typeof name === "string" && name.trim() ? name.trim() : null;
}

function readMessage(context: Context, message: Record<string, unknown>, place: string): void {
  const parts = partsOf(message.content);
  switch (message.role) {
    case "system":
      noteSkip(context.skipped, place, "system prompt");
      return;
    case "user":
      readUser(context, parts, place);
      return;
    case "assistant": {
      const draft = current(context);
      const model = modelNameOf(message) ?? parts.map(modelNameOf).find((name) => name !== null) ?? null;
      if (model) addModelUsage(draft.turn.usage ?? [], model, unknownCounts);
      for (const part of parts) {
        if (part.type === "text") {
          if (typeof part.text === "string" && part.text.trim()) draft.replies.push(part.text.trim());
        } else if (part.type === "tool-call") {
          const name = typeof part.toolName === "string" ? part.toolName : "";
          if (!name) {
            noteSkip(context.skipped, place, "tool call without a name");
            continue;
          }
          const call = cursorAgentToolCall(name, part.args ?? part.input, context.withOutputs);
          if (typeof part.toolCallId === "string") context.calls.set(part.toolCallId, call);
          draft.calls.push(call);
        } else if (part.type !== "reasoning") noteSkip(context.skipped, place, `assistant part ${String(part.type)}`);
      }
      return;
    }
    case "tool":
      for (const part of parts) {
        const call = context.calls.get(typeof part.toolCallId === "string" ? part.toolCallId : "");
        if (part.type !== "tool-result" || !call) {
          noteSkip(context.skipped, place, "tool result without its call");
          continue;
        }
        call.isError = part.isError === true;
        if (context.withOutputs) call.output = outputText(part.result ?? part.output);
      }
      return;
    default:
      noteSkip(context.skipped, place, `message role ${String(message.role)}`);
  }
}

/** A tool result as text: a string as is, anything else as JSON. */
function outputText(value: unknown): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

const queryBlock = /<user_query>([\s\S]*?)(?:<\/user_query>|$)/g;
const infoBlock = /<user_info>([\s\S]*?)(?:<\/user_info>|$)/;

/** A user message: its `<user_query>` text (or, without one, its text outside `<user_info>`) opens a turn. */
function readUser(context: Context, parts: Record<string, unknown>[], place: string): void {
  const text = parts
    .filter((part) => part.type === "text" && typeof part.text === "string")
    .map((part) => part.text as string)
    .join("\n");
  const info = infoBlock.exec(text);
  if (info && !context.workspaceFromContext) {
    const line = /^\s*Workspace Path:\s*(.+?)\s*$/m.exec(info[1] ?? "");
    if (line?.[1]) context.workspaceFromContext = line[1];
  }
  const queries = [...text.matchAll(queryBlock)].map((match) => (match[1] ?? "").trim()).filter(Boolean);
  const prompt =
    queries.length > 0 ? queries.join("\n\n") : text.replace(/<user_info>[\s\S]*?(?:<\/user_info>|$)/g, "").trim();
  const rest = queries.length > 0 ? text.replace(queryBlock, "").trim() : info ? "context" : "";
  if (rest) noteSkip(context.skipped, place, "context the agent added");
  if (prompt) openTurn(context, prompt);
}
