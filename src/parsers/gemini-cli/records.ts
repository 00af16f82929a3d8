/**
 * Gemini CLI chat records → compact messages (docs/formats.md §4.2–§4.3). Owns: the message store with JSONL
 * semantics (a re-appended id replaces the message in place, `$rewindTo` cuts, `$set.messages` replaces everything,
 * `$set` merges metadata), prompt and prose extraction, and the shapes other writers and readers use besides the CLI's
 * own. Knows nothing of files, turns or resume.
 * Loader semantics follow `loadConversationRecord` in google-gemini/gemini-cli
 * packages/core/src/services/chatRecordingService.ts.
 */
import { timeOf } from "../shared/fields.ts";
import type { AbstractPart, ToolCall } from "../types.ts";
import { addAbstractPart, compressionSummary } from "./abstract.ts";
import { toToolCall } from "./tools.ts";
import type { TokenCounts } from "../usage.ts";
import { replyUsage } from "./usage.ts";

/** One chat message reduced to what turns need; JSON-serializable (it lives in resume states). */
export interface GeminiMessage {
  /** The record's `id`, or a synthetic one for a record without (see {@link syntheticId}). */
  id: string;
  /**
   * `user`; `gemini` for a reply (`type` `gemini`, or `model` as the Gemini API's `Content.role` names it);
   * `other` for `info`, `error`, `warning`, unknown types and a compression summary (`compaction`).
   */
  kind: "user" | "gemini" | "other";
  /** True for the `user` message holding a chat compression's summary (abstract.ts); `text` is the summary. */
  compaction?: boolean;
  /** Message time, epoch ms UTC; 0 when missing or unreadable. */
  t: number;
  /**
   * user: the prompt text; gemini: the prose (never thoughts); other: "" (or the text of an unknown type, see
   * `unknownType`, or the summary of a `compaction`).
   */
  text: string;
  /** gemini: its tool calls, in record order (outputs only when parsed with outputs). */
  calls?: ToolCall[];
  /**
   * What of this message no turn can hold (issue 26, counted when the message is grouped, turns.ts): tool calls
   * without a name (`droppedCalls`), or text of a message type recall does not know (`unknownType`). Absent = none.
   */
  droppedCalls?: number;
  unknownType?: boolean;
  /** gemini: its `model` and `tokens` (§4.2; usage.ts), absent when it records either not. */
  usage?: { model: string; counts: TokenCounts };
}
/** Header fields of one chat file (§4.2 ConversationRecord minus messages; §4.3 line 1 plus `$set`s). */
export interface ChatMeta {
  sessionId: string | null;
  projectHash: string | null;
  /** `startTime` / `lastUpdated`, epoch ms UTC (0 = absent). */
  startTime: number;
  lastUpdated: number;
  /** Earliest and latest message time seen, epoch ms UTC (0 = none), rewound messages included. */
  firstMessageAt: number;
  lastMessageAt: number;
  summary: string | null;
  /** `main`, `subagent`, or null when absent (files before CLI 0.37). */
  kind: string | null;
  /** Workspace directories (`/dir add`; sub-agents get the workspace). */
  directories: string[];
  /**
   * What the agent wrote about the session (issue 41, abstract.ts): each distinct `summary` as `agent_title` and each
   * distinct compression summary as `compaction`, in the order read; ordered (and the title left out) by parse.ts.
   */
  abstract: AbstractPart[];
}

/** A fresh, empty header. */
export function createMeta(): ChatMeta {
  return {
    sessionId: null,
    projectHash: null,
    startTime: 0,
    lastUpdated: 0,
    firstMessageAt: 0,
    lastMessageAt: 0,
    summary: null,
    kind: null,
    directories: [],
    abstract: [],
  };
}

/** Fold header fields (the ConversationRecord itself, JSONL line 1, or a `$set` object) into `meta` (mutates). */
export function applyHeader(meta: ChatMeta, header: Record<string, unknown>): void {
  if (typeof header.sessionId === "string" && header.sessionId) meta.sessionId = header.sessionId;
  if (typeof header.projectHash === "string" && header.projectHash) meta.projectHash = header.projectHash;
  const start = timeOf(header.startTime);
  if (start > 0) meta.startTime = start;
  const updated = timeOf(header.lastUpdated);
  if (updated > meta.lastUpdated) meta.lastUpdated = updated;
  if (typeof header.summary === "string" && header.summary.trim()) {
    meta.summary = summaryText(header.summary.trim());
    addAbstractPart(meta.abstract, { source: "agent_title", text: meta.summary, at: updated });
  }
  if (typeof header.kind === "string" && header.kind) meta.kind = header.kind;
  if (Array.isArray(header.directories))
    meta.directories = header.directories.filter((entry): entry is string => typeof entry === "string");
}

/**
 * A session summary as a title. Sub-agent summaries are the agent's JSON result
 * (`{"response": "I have added …"}`, real 2026-04 file, sometimes cut short and so not valid JSON):
 * its first string field is the text.
 * Examples: `Fix login bug` → `Fix login bug`; `{"response":"Done."}` → `Done.`; `{"response": "Did x…` → `Did x…`.
 */
export function summaryText(summary: string): string {
  if (!summary.startsWith("{")) return summary;
  try {
    const value: unknown = JSON.parse(summary);
    if (value && typeof value === "object" && !Array.isArray(value)) {
      const text = Object.values(value).find(
        (entry): entry is string => typeof entry === "string" && entry.trim().length > 0,
      );
      if (text) return text.trim();
    }
  } catch {
    // Cut to a length by the CLI (real: ends with "…agent..."): take the first field's text as far as it goes.
    const cut = /^\{\s*"[\w-]+"\s*:\s*"([\s\S]+)$/.exec(summary)?.[1];
    if (cut)
      return cut
        .replace(/"\s*\}?\s*$/, "")
        .replace(/\\n/g, "\n")
        .replace(/\\(["\\])/g, "$1")
        .trim();
  }
  return summary;
}

/** Where the text of files referenced with `@path` starts inside a prompt (atCommandProcessor of the CLI). */
const referencedFilesMarker = "\n--- Content from referenced files ---";

/**
 * Text of a `PartListUnion`: a string, one part or a list of parts; `{text}` parts joined with ""
 * (the CLI concatenates them), `inlineData` / `fileData` parts as `[inline data: <mime>]` / `[file: <uri>]`.
 */
export function partsText(content: unknown): string {
  if (typeof content === "string") return content;
  const parts = Array.isArray(content) ? content : content && typeof content === "object" ? [content] : [];
  let text = "";
  for (const part of parts) {
    if (typeof part === "string") text += part;
    else if (part && typeof part === "object") {
      const record = part as Record<string, unknown>;
      if (typeof record.text === "string") {
        if (record.thought !== true) text += record.text;
      } else if (record.inlineData && typeof record.inlineData === "object") {
        text += `[inline data: ${String((record.inlineData as Record<string, unknown>).mimeType ?? "unknown")}]`;
      } else if (record.fileData && typeof record.fileData === "object") {
        text += `[file: ${String((record.fileData as Record<string, unknown>).fileUri ?? "unknown")}]`;
      }
    }
  }
  return text;
}

/**
 * The human prompt of a user record: `displayContent` when present (what was typed, §4.2), else `content` (or the
 * Gemini API's `parts`) cut before the text of `@`-referenced files, which the CLI appends to the prompt.
 * Examples: `[{text:"fix @a.ts"},{text:"\n--- Content from referenced files ---"},…]` → `fix @a.ts`;
 *   `"hello"` → `hello`; `{parts:[{text:"hi"}]}` → `hi`.
 */
export function promptText(record: Record<string, unknown>): string {
  if (record.displayContent !== undefined && record.displayContent !== null) {
    const shown = partsText(record.displayContent).trim();
    if (shown) return shown;
  }
  const text = bodyText(record);
  const cut = text.indexOf(referencedFilesMarker);
  return (cut >= 0 ? text.slice(0, cut) : text).trim();
}

/** The text of a record's `content`, or of its `parts` when `content` holds none (the Gemini API `Content` shape). */
function bodyText(record: Record<string, unknown>): string {
  const content = partsText(record.content);
  return content.trim() ? content : partsText(record.parts);
}

/** Reply types: the CLI's `gemini`; `model`, the role the Gemini API (and readers such as cass) gives replies. */
const replyTypes = new Set(["gemini", "model"]);

/** Types the CLI writes that carry no conversation text (§4.2): notices of the interface. */
const noticeTypes = new Set(["info", "error", "warning"]);

/**
 * A record's message type: `type`, else the Gemini API's `role` (`user` / `model`); null when it has neither.
 * Examples: `{type:"gemini"}` → `gemini`; `{role:"model", parts:[…]}` → `model`; `{content:"x"}` → null.
 */
export function messageType(record: Record<string, unknown>): string | null {
  if (typeof record.type === "string" && record.type) return record.type;
  if (typeof record.role === "string" && record.role) return record.role;
  return null;
}

/**
 * The record's own id: a non-empty string `id` (what the CLI writes, `isMessageRecord` in chatRecordingService.ts),
 * or a number as its decimal text (other writers); else null.
 */
export function recordId(record: Record<string, unknown>): string | null {
  if (typeof record.id === "string" && record.id) return record.id;
  if (typeof record.id === "number" && Number.isFinite(record.id)) return String(record.id);
  return null;
}

/**
 * Id of a message record that has none (the CLI itself never writes one, but other writers of this format do, and
 * readers such as cass and agentsview keep them): its place in its file, with its type and time, so it is stable
 * however the file grows (`place` = `m<n>`, n-th entry of a JSON document's `messages`; `l<n>`, the message on JSONL
 * line n; `l<n>.<k>`, the k-th message of an array on line n), and two files of one session that hold the same record
 * at the same place (a copied chat) merge it, while different records at one place do not. Without an id it can be
 * neither replaced nor named by a `$rewindTo`; a rewind to an earlier id still cuts it.
 * Example: (`l7`, `{type:"model", timestamp:"2026-01-01T10:00:00Z"}`) → `#l7|model|2026-01-01T10:00:00Z`.
 */
export function syntheticId(place: string, record: Record<string, unknown>): string {
  const time = typeof record.timestamp === "string" ? record.timestamp : "";
  return `#${place}|${messageType(record) ?? ""}|${time}`;
}

/**
 * Tool calls of a reply: its `toolCalls` records (§4.2), then any `functionCall` parts of its `content` or `parts`
 * (the Gemini API shape), as shared `ToolCall`s; `dropped` counts records that name no tool.
 */
function replyCalls(record: Record<string, unknown>, withOutputs: boolean): { calls: ToolCall[]; dropped: number } {
  const calls: ToolCall[] = [];
  let dropped = 0;
  if (Array.isArray(record.toolCalls)) {
    for (const raw of record.toolCalls) {
      const call = toToolCall(raw, withOutputs);
      if (call) calls.push(call);
      else dropped++;
    }
  }
  for (const list of [record.content, record.parts]) {
    if (!Array.isArray(list)) continue;
    for (const part of list) {
      const functionCall = (part as { functionCall?: unknown } | null)?.functionCall;
      if (!functionCall || typeof functionCall !== "object") continue;
      const call = toToolCall(functionCall, withOutputs);
      if (call) calls.push(call);
      else dropped++;
    }
  }
  return { calls, dropped };
}

/**
 * One message record as a {@link GeminiMessage}.
 * @param fallbackId the id to use when the record has none ({@link syntheticId})
 * @returns null when it has no type (no `type`, no `role`): the caller counts it as skipped
 */
export function toMessage(
  record: Record<string, unknown>,
  withOutputs: boolean,
  fallbackId: string,
): GeminiMessage | null {
  const type = messageType(record);
  if (type === null) return null;
  const id = recordId(record) ?? fallbackId;
  const t = timeOf(record.timestamp);
  if (type === "user") {
    const text = promptText(record);
    const summary = compressionSummary(text);
    return summary === null ? { id, kind: "user", t, text } : { id, kind: "other", t, text: summary, compaction: true };
  }
  if (!replyTypes.has(type)) {
    if (noticeTypes.has(type)) return { id, kind: "other", t, text: "" };
    const text = bodyText(record).trim();
    return text ? { id, kind: "other", t, text, unknownType: true } : { id, kind: "other", t, text: "" };
  }
  const { calls, dropped } = replyCalls(record, withOutputs);
  const message: GeminiMessage = { id, kind: "gemini", t, text: bodyText(record).trim(), calls };
  if (dropped > 0) message.droppedCalls = dropped;
  const usage = replyUsage(record);
  if (usage) message.usage = usage;
  return message;
}

/** Track a message in the header (mutates): its time, and its summary when it is a compression summary. */
export function noteMessage(meta: ChatMeta, message: GeminiMessage): void {
  if (message.compaction) addAbstractPart(meta.abstract, { source: "compaction", text: message.text, at: message.t });
  const t = message.t;
  if (t <= 0) return;
  if (meta.firstMessageAt === 0 || t < meta.firstMessageAt) meta.firstMessageAt = t;
  if (t > meta.lastMessageAt) meta.lastMessageAt = t;
}

/**
 * Messages by id in first-seen order, with the JSONL semantics of §4.3: `put` of a known id replaces
 * the message where it stands (as a JS Map does: the CLI's own loader uses one), `rewindTo` deletes
 * the id and everything after it (an unknown id clears all). A `$set.messages` checkpoint ({@link addCheckpoint})
 * only adds: the CLI's loader replaces everything with it, recall keeps what the history no longer holds.
 * It also remembers every id it was ever given (`hasSeen`), and keeps the messages a rewind cut ({@link rewoundValues},
 * the session's rewound turns, issue 26).
 */
export class MessageStore {
  private readonly byId = new Map<string, GeminiMessage>();
  private readonly seen = new Set<string>();
  /** Messages `rewindTo` cut and no later line put back, by id, in the order they were cut. */
  private readonly rewound = new Map<string, GeminiMessage>();

  constructor(messages: readonly GeminiMessage[] = []) {
    for (const message of messages) this.put(message);
  }

  /** Whether a message with this id is held. */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Whether a message with this id was ever put here (also when it was rewound or replaced since). */
  hasSeen(id: string): boolean {
    return this.seen.has(id);
  }

  /** Add a message, or replace the one with its id where it stands (a rewound one is held again). */
  put(message: GeminiMessage): void {
    this.byId.set(message.id, message);
    this.seen.add(message.id);
    this.rewound.delete(message.id);
  }

  /**
   * Delete `id` and every later message (kept as rewound); unknown id: delete all. Returns whether `id` was known.
   */
  rewindTo(id: string): boolean {
    const known = this.byId.has(id);
    let cutting = !known;
    for (const [key, message] of [...this.byId]) {
      if (key === id) cutting = true;
      if (!cutting) continue;
      this.byId.delete(key);
      this.rewound.set(key, message);
    }
    return known;
  }

  /** The messages rewinds cut that are not held again, in the order they were cut. */
  rewoundValues(): GeminiMessage[] {
    return [...this.rewound.values()];
  }

  /**
   * Apply a `$set.messages` checkpoint as the archive reads it: its messages not held are added, those held stay as
   * they were first read. The CLI writes one whenever its in-memory history changes (chatRecordingService.ts
   * `updateMessagesFromHistory`, google-gemini/gemini-cli): after a chat compression the history is the summary, an
   * acknowledgement and the kept tail (the earlier turns are gone from it), after tool output masking the old tool
   * outputs are placeholders (`<tool_output_masked>`, toolOutputMaskingService.ts). Replacing the messages, as the
   * CLI's loader does, would drop those turns and outputs from the index at the next re-parse of a session recall
   * had read whole.
   */
  addCheckpoint(messages: readonly GeminiMessage[]): void {
    for (const message of messages) if (!this.byId.has(message.id)) this.put(message);
  }

  /** The messages in store order (a new array). */
  values(): GeminiMessage[] {
    return [...this.byId.values()];
  }

  /** A shallow copy, ids seen and rewound messages included (messages are shared, never mutated). */
  copy(): MessageStore {
    const copy = new MessageStore(this.values());
    for (const id of this.seen) copy.seen.add(id);
    for (const [id, message] of this.rewound) copy.rewound.set(id, message);
    return copy;
  }
}
