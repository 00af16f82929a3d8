/**
 * Gemini CLI chat records → compact messages (docs/formats.md §4.2–§4.3). Owns: telling the two
 * formats apart by content, the message store with JSONL semantics (a re-appended id replaces the
 * message in place, `$rewindTo` cuts, `$set.messages` replaces everything, `$set` merges metadata),
 * prompt and prose extraction. Knows nothing of files, turns or resume.
 * Loader semantics follow `loadConversationRecord` in google-gemini/gemini-cli
 * packages/core/src/services/chatRecordingService.ts.
 */
import { timeOf } from "../shared/fields.ts";
import type { ToolCall } from "../types.ts";
import { toToolCall } from "./tools.ts";

/** One chat message reduced to what turns need; JSON-serializable (it lives in resume states). */
export interface GeminiMessage {
  id: string;
  /** `user` and `gemini` matter for turns; `info`, `error`, `warning` and unknown types are `other`. */
  kind: "user" | "gemini" | "other";
  /** Message time, epoch ms UTC; 0 when missing or unreadable. */
  t: number;
  /** user: the prompt text; gemini: the prose (never `thoughts`); other: "". */
  text: string;
  /** gemini: its tool calls, in record order (outputs only when parsed with outputs). */
  calls?: ToolCall[];
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
  if (typeof header.summary === "string" && header.summary.trim()) meta.summary = summaryText(header.summary.trim());
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
 * The human prompt of a user record: `displayContent` when present (what was typed, §4.2), else
 * `content` cut before the text of `@`-referenced files, which the CLI appends to the prompt.
 * Examples: `[{text:"fix @a.ts"},{text:"\n--- Content from referenced files ---"},…]` → `fix @a.ts`;
 *   `"hello"` → `hello`.
 */
export function promptText(record: Record<string, unknown>): string {
  if (record.displayContent !== undefined && record.displayContent !== null) {
    const shown = partsText(record.displayContent).trim();
    if (shown) return shown;
  }
  const text = partsText(record.content);
  const cut = text.indexOf(referencedFilesMarker);
  return (cut >= 0 ? text.slice(0, cut) : text).trim();
}

/**
 * One message record as a {@link GeminiMessage}.
 * @returns null when it has no string `id` or `type` (the caller counts it as skipped)
 */
export function toMessage(record: Record<string, unknown>, withOutputs: boolean): GeminiMessage | null {
  if (typeof record.id !== "string" || !record.id || typeof record.type !== "string") return null;
  const t = timeOf(record.timestamp);
  if (record.type === "user") return { id: record.id, kind: "user", t, text: promptText(record) };
  if (record.type !== "gemini") return { id: record.id, kind: "other", t, text: "" };
  const calls: ToolCall[] = [];
  if (Array.isArray(record.toolCalls)) {
    for (const raw of record.toolCalls) {
      const call = toToolCall(raw, withOutputs);
      if (call) calls.push(call);
    }
  }
  return { id: record.id, kind: "gemini", t, text: partsText(record.content).trim(), calls };
}

/** Track message times in the header (mutates). */
export function noteMessageTime(meta: ChatMeta, t: number): void {
  if (t <= 0) return;
  if (meta.firstMessageAt === 0 || t < meta.firstMessageAt) meta.firstMessageAt = t;
  if (t > meta.lastMessageAt) meta.lastMessageAt = t;
}

/**
 * Messages by id in first-seen order, with the JSONL semantics of §4.3: `put` of a known id replaces
 * the message where it stands (as a JS Map does: the CLI's own loader uses one), `rewindTo` deletes
 * the id and everything after it (an unknown id clears all), `replaceAll` is a `$set.messages` checkpoint.
 */
export class MessageStore {
  private readonly byId = new Map<string, GeminiMessage>();

  constructor(messages: readonly GeminiMessage[] = []) {
    for (const message of messages) this.byId.set(message.id, message);
  }

  /** Whether a message with this id is held. */
  has(id: string): boolean {
    return this.byId.has(id);
  }

  /** Add a message, or replace the one with its id where it stands. */
  put(message: GeminiMessage): void {
    this.byId.set(message.id, message);
  }

  /** Delete `id` and every later message; unknown id: delete all. Returns whether `id` was known. */
  rewindTo(id: string): boolean {
    if (!this.byId.has(id)) {
      this.byId.clear();
      return false;
    }
    let cutting = false;
    for (const key of [...this.byId.keys()]) {
      if (key === id) cutting = true;
      if (cutting) this.byId.delete(key);
    }
    return true;
  }

  /** Replace every message (a `$set.messages` checkpoint). */
  replaceAll(messages: readonly GeminiMessage[]): void {
    this.byId.clear();
    for (const message of messages) this.byId.set(message.id, message);
  }

  /** The messages in store order (a new array). */
  values(): GeminiMessage[] {
    return [...this.byId.values()];
  }

  /** A shallow copy (messages are shared, never mutated). */
  copy(): MessageStore {
    return new MessageStore(this.values());
  }
}
