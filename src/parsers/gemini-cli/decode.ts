/**
 * Decoding one Gemini CLI chat file (docs/formats.md §4.2, §4.3): format detection by content, the
 * whole-document JSON format, and JSONL lines applied to a {@link MessageStore}. A resumed parse uses
 * the same line application with a guard that stops at any record touching a message before the
 * resume anchor. Files, merging and turns are elsewhere (parse.ts, turns.ts).
 */
import { noteSkip } from "../shared/skips.ts";
import type { SkipReport } from "../types.ts";
import {
  applyHeader,
  createMeta,
  MessageStore,
  noteMessageTime,
  toMessage,
  type ChatMeta,
  type GeminiMessage,
} from "./records.ts";

/** Storage format of one chat file. */
export type ChatFormat = "json" | "jsonl";

/** A decoded chat file. */
export interface DecodedChat {
  format: ChatFormat;
  meta: ChatMeta;
  store: MessageStore;
  /** JSONL: bytes up to and including the last "\n" (the resume offset); JSON: 0 (never resumed by offset). */
  completeBytes: number;
  /** JSONL: complete lines before `completeBytes`. */
  lineCount: number;
  /** JSONL: the unterminated last line, decoded (null when absent or not JSON). Not applied to `store`. */
  partial: Record<string, unknown> | null;
}

/** What applying JSONL lines met that a resumed parse cannot continue from. */
export type LineOutcome = "applied" | "touches-prior";

/**
 * Decide the format from the content: a file whose text is one JSON document with a `messages` array
 * is the JSON format (§4.2), whatever its extension; anything else is JSONL (§4.3: "if the first line
 * parses as a whole JSON document with a `messages` array, it is the old format").
 * Examples: `{\n  "sessionId": …, "messages": [] }` → json; `{"sessionId":…}\n{"id":…}\n` → jsonl.
 * @returns the format and, for JSON, the parsed document; `broken` when the text is neither (a JSON
 *   document cut mid-write: the first line is not a JSON object and the whole is not JSON)
 */
export function detectFormat(text: string): { format: ChatFormat; document?: Record<string, unknown> } | "broken" {
  const firstEnd = text.indexOf("\n");
  const firstLine = (firstEnd < 0 ? text : text.slice(0, firstEnd)).trim();
  const rest = firstEnd < 0 ? "" : text.slice(firstEnd + 1).trim();
  if (firstLine.startsWith("{") && firstLine.endsWith("}") && rest.length > 0) {
    if (parseObject(firstLine)) return { format: "jsonl" };
  }
  const whole = parseObject(text);
  if (whole && Array.isArray(whole.messages)) return { format: "json", document: whole };
  if (whole) return { format: "jsonl" };
  if (parseObject(firstLine)) return { format: "jsonl" };
  return "broken";
}

function parseObject(text: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Decode a whole JSON-format document (§4.2). Messages that are not objects or lack `id`/`type` are
 * skipped (`<path>: message <index>: …`); a repeated id keeps its first place and its last content.
 */
export function decodeJsonDocument(
  document: Record<string, unknown>,
  path: string,
  withOutputs: boolean,
  skipped: SkipReport,
): DecodedChat {
  const meta = createMeta();
  applyHeader(meta, document);
  const store = new MessageStore();
  const messages = Array.isArray(document.messages) ? document.messages : [];
  for (const [index, raw] of messages.entries()) {
    const message = raw && typeof raw === "object" ? toMessage(raw as Record<string, unknown>, withOutputs) : null;
    if (!message) {
      noteSkip(skipped, `${path}: message ${index}`, "no id or type");
      continue;
    }
    noteMessageTime(meta, message.t);
    store.put(message);
  }
  return { format: "json", meta, store, completeBytes: 0, lineCount: 0, partial: null };
}

/** The JSONL semantics of one decoded line; `prior` = ids before the resume anchor (empty for a full parse). */
export function applyLine(
  value: Record<string, unknown>,
  meta: ChatMeta,
  store: MessageStore,
  prior: ReadonlySet<string>,
  withOutputs: boolean,
  skip: (reason: string) => void,
): LineOutcome {
  if (typeof value.$rewindTo === "string") {
    if (prior.has(value.$rewindTo) || !store.has(value.$rewindTo)) {
      // A rewind into the already-grouped prefix, or an unknown id (= clear all), changes earlier turns.
      if (prior.size > 0) return "touches-prior";
    }
    store.rewindTo(value.$rewindTo);
    return "applied";
  }
  if (value.$set && typeof value.$set === "object" && !Array.isArray(value.$set)) {
    const set = value.$set as Record<string, unknown>;
    applyHeader(meta, set);
    if (Array.isArray(set.messages)) {
      if (prior.size > 0) return "touches-prior";
      const checkpoint: GeminiMessage[] = [];
      for (const raw of set.messages) {
        const message = raw && typeof raw === "object" ? toMessage(raw as Record<string, unknown>, withOutputs) : null;
        if (message) {
          checkpoint.push(message);
          noteMessageTime(meta, message.t);
        }
      }
      store.replaceAll(checkpoint);
    }
    return "applied";
  }
  if (typeof value.id === "string") {
    if (prior.has(value.id)) return "touches-prior";
    const message = toMessage(value, withOutputs);
    if (!message) {
      skip("message without type");
      return "applied";
    }
    noteMessageTime(meta, message.t);
    store.put(message);
    return "applied";
  }
  if (typeof value.sessionId === "string") {
    applyHeader(meta, value); // line 1 (metadata), or a migrated file's header
    return "applied";
  }
  skip("unknown record");
  return "applied";
}

/** Lines of a byte range: complete decoded lines, the unterminated tail, and byte/line counts. */
export interface SplitLines {
  lines: Array<{ line: number; value: Record<string, unknown> }>;
  partial: Record<string, unknown> | null;
  completeBytes: number;
  lineCount: number;
}

/**
 * Split UTF-8 bytes that start at a line start into decoded JSON lines. Lines that are not JSON
 * objects are skipped (`<path>:<line>: not JSON`); blank lines are ignored; an unterminated last line
 * is returned in `partial` when it decodes, else counted as skipped ("incomplete last line").
 * @param firstLine 1-based number of the first line in `bytes`
 */
export function splitLines(bytes: Buffer, firstLine: number, path: string, skipped: SkipReport): SplitLines {
  const out: SplitLines = { lines: [], partial: null, completeBytes: 0, lineCount: 0 };
  let start = 0;
  let line = firstLine;
  while (start < bytes.length) {
    const end = bytes.indexOf(10, start);
    if (end < 0) {
      const text = bytes.toString("utf8", start).trim();
      if (text) {
        out.partial = parseObject(text);
        if (!out.partial) noteSkip(skipped, `${path}:${line}`, "incomplete last line");
      }
      break;
    }
    const text = bytes.toString("utf8", start, end).trim();
    if (text) {
      const value = parseObject(text);
      if (value) out.lines.push({ line, value });
      else noteSkip(skipped, `${path}:${line}`, "not JSON");
    }
    start = end + 1;
    line++;
    out.completeBytes = start;
    out.lineCount++;
  }
  return out;
}

/** Decode a whole JSONL file (§4.3) into header + store; the partial last line is returned, not applied. */
export function decodeJsonl(bytes: Buffer, path: string, withOutputs: boolean, skipped: SkipReport): DecodedChat {
  const split = splitLines(bytes, 1, path, skipped);
  const meta = createMeta();
  const store = new MessageStore();
  const none = new Set<string>();
  for (const { line, value } of split.lines) {
    applyLine(value, meta, store, none, withOutputs, (reason) => noteSkip(skipped, `${path}:${line}`, reason));
  }
  return {
    format: "jsonl",
    meta,
    store,
    completeBytes: split.completeBytes,
    lineCount: split.lineCount,
    partial: split.partial,
  };
}
