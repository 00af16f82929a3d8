/**
 * Decoding one Gemini CLI chat file (docs/formats.md §4.2, §4.3): format detection by content, the
 * whole-document JSON format, and JSONL lines applied to a {@link MessageStore}. A resumed parse uses
 * the same line application with a guard that stops at any record it cannot apply to the resumed
 * messages alone. Files, merging and turns are elsewhere (parse.ts, turns.ts). Every record that
 * cannot become a message is counted (issue 26): `message not an object`, `message without type`
 * (neither `type` nor `role`), `unknown record`, and the line reasons `not JSON`, `incomplete last line`.
 */
import type { DecodedLines, RawLine } from "../shared/jsonl-lines.ts";
import { noteSkip } from "../shared/skips.ts";
import type { SkipReport } from "../types.ts";
import {
  applyHeader,
  createMeta,
  MessageStore,
  messageType,
  noteMessage,
  recordId,
  syntheticId,
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
  partial: RawLine | null;
}

/** What applying JSONL lines met that a resumed parse cannot continue from. */
export type LineOutcome = "applied" | "touches-prior";

/** Where JSONL lines are applied, and what a resumed parse must not touch. */
export interface LineTarget {
  meta: ChatMeta;
  store: MessageStore;
  withOutputs: boolean;
  /** The file, for skip places (`<path>:<line>`). */
  path: string;
  skipped: SkipReport;
  /**
   * Set for a resumed parse, whose `store` holds only the messages from the resume anchor on, merged from every file
   * of the session: `prior` = ids before the anchor; `merged` = the session has other files, so a `$set.messages`
   * checkpoint (which acts on this file's messages only) cannot be applied to the merged store. A `$rewindTo` never
   * is: its cut makes rewound turns, which a full parse numbers.
   */
  resume?: { prior: ReadonlySet<string>; merged: boolean };
}

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
 * Messages of a `messages` array (a JSON document's, a checkpoint's, a whole record on one line); entries that are
 * not objects or have no type are counted at `place(index)` and left out. `idPlace(index)` names the synthetic id of
 * an entry without one ({@link syntheticId}).
 */
function messageList(
  entries: readonly unknown[],
  withOutputs: boolean,
  idPlace: (index: number) => string,
  skip: (index: number, reason: string) => void,
): GeminiMessage[] {
  const messages: GeminiMessage[] = [];
  entries.forEach((raw, index) => {
    if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
      skip(index, "message not an object");
      return;
    }
    const record = raw as Record<string, unknown>;
    const message = toMessage(record, withOutputs, syntheticId(idPlace(index), record));
    if (message) messages.push(message);
    else skip(index, "message without type");
  });
  return messages;
}

/**
 * Decode a whole JSON-format document (§4.2). Entries that are not objects or have no type are counted
 * (`<path>: message <n>`, 1-based); an entry without an id gets a synthetic one (`m<n>`); a repeated id keeps its
 * first place and its last content.
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
  const entries = Array.isArray(document.messages) ? document.messages : [];
  const messages = messageList(
    entries,
    withOutputs,
    (index) => `m${index + 1}`,
    (index, reason) => noteSkip(skipped, `${path}: message ${index + 1}`, reason),
  );
  for (const message of messages) {
    noteMessage(meta, message);
    store.put(message);
  }
  return { format: "json", meta, store, completeBytes: 0, lineCount: 0, partial: null };
}

/** Put messages into the target's store (a message list on one line); "touches-prior" when one is before the anchor. */
function putAll(messages: readonly GeminiMessage[], target: LineTarget): LineOutcome {
  if (messages.some((message) => target.resume?.prior.has(message.id))) return "touches-prior";
  for (const message of messages) {
    noteMessage(target.meta, message);
    target.store.put(message);
  }
  return "applied";
}

/**
 * The JSONL semantics of one decoded line (§4.3, as `loadConversationRecord` reads it but for checkpoints): `$rewindTo`;
 * `$set` (with `messages`, a checkpoint, whose messages not held are added: MessageStore.addCheckpoint, where the
 * CLI's loader replaces all); a message with an id; a header (line 1, or a whole record on one
 * line whose `messages` are added); a message without an id (kept under a synthetic id, `l<line>`); anything else is
 * counted as `unknown record`.
 */
export function applyLine(value: Record<string, unknown>, line: number, target: LineTarget): LineOutcome {
  const { meta, store, resume } = target;
  const skip = (reason: string) => noteSkip(target.skipped, `${target.path}:${line}`, reason);
  if (typeof value.$rewindTo === "string") {
    // What a rewind cuts becomes rewound turns, numbered over the whole session: only a full parse makes them.
    if (resume) return "touches-prior";
    store.rewindTo(value.$rewindTo);
    return "applied";
  }
  if (value.$set && typeof value.$set === "object" && !Array.isArray(value.$set)) {
    const set = value.$set as Record<string, unknown>;
    if (Array.isArray(set.messages)) {
      if (resume && (resume.merged || resume.prior.size > 0)) return "touches-prior";
      const checkpoint = messageList(
        set.messages,
        target.withOutputs,
        (index) => `l${line}.${index + 1}`,
        (_index, reason) => skip(reason),
      );
      for (const message of checkpoint) noteMessage(meta, message);
      store.addCheckpoint(checkpoint);
    }
    applyHeader(meta, set);
    return "applied";
  }
  const id = recordId(value);
  if (id !== null) {
    if (resume?.prior.has(id)) return "touches-prior";
    const message = toMessage(value, target.withOutputs, id);
    if (!message) {
      skip("message without type");
      return "applied";
    }
    return putAll([message], target);
  }
  if (typeof value.sessionId === "string") {
    applyHeader(meta, value); // line 1 (metadata), or a migrated file's header
    if (!Array.isArray(value.messages)) return "applied";
    // A whole ConversationRecord on one line: the CLI's loader adds its messages (isPartialMetadataRecord).
    const messages = messageList(
      value.messages,
      target.withOutputs,
      (index) => `l${line}.${index + 1}`,
      (_index, reason) => skip(reason),
    );
    return putAll(messages, target);
  }
  if (messageType(value) !== null) {
    // A message without an id: the CLI's loader drops it, recall keeps it (other writers of this format omit ids).
    return putAll([toMessage(value, target.withOutputs, syntheticId(`l${line}`, value))!], target);
  }
  skip("unknown record");
  return "applied";
}

/**
 * Split UTF-8 bytes that start at a line start into decoded JSON lines (the shape of shared/jsonl-lines.ts
 * `decodeLines`, decoded line by line: on a 665 KB real chat with non-ASCII text this is twice as fast as decoding the
 * whole range into one string first). Lines that are not JSON objects are counted into `skipped` (`not JSON`); blank
 * lines are ignored; an unterminated last line is returned in `partial` when it decodes, else counted into
 * `partialSkipped` (`incomplete last line`): the line being written, which the next parse reads again.
 * @param firstLine 1-based number of the first line in `bytes`
 */
export function splitLines(
  bytes: Buffer,
  firstLine: number,
  path: string,
  skipped: SkipReport,
  partialSkipped: SkipReport,
): DecodedLines {
  const out: DecodedLines = { lines: [], partial: null, completeBytes: 0, lineCount: 0 };
  let start = 0;
  let line = firstLine;
  while (start < bytes.length) {
    const end = bytes.indexOf(10, start);
    const text = bytes.toString("utf8", start, end < 0 ? bytes.length : end).trim();
    if (end < 0) {
      const value = text ? parseObject(text) : null;
      if (value) out.partial = { line, value };
      else if (text) noteSkip(partialSkipped, `${path}:${line}`, "incomplete last line");
      break;
    }
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

/**
 * Decode a whole JSONL file (§4.3) into header + store ({@link splitLines} counts broken lines into `skipped`, the
 * unterminated last line's into `partialSkipped`); a decoded unterminated last line is returned in `partial`, not
 * applied.
 */
export function decodeJsonl(
  bytes: Buffer,
  path: string,
  withOutputs: boolean,
  skipped: SkipReport,
  partialSkipped: SkipReport,
): DecodedChat {
  const decoded = splitLines(bytes, 1, path, skipped, partialSkipped);
  const target: LineTarget = { meta: createMeta(), store: new MessageStore(), withOutputs, path, skipped };
  for (const { line, value } of decoded.lines) applyLine(value, line, target);
  return {
    format: "jsonl",
    meta: target.meta,
    store: target.store,
    completeBytes: decoded.completeBytes,
    lineCount: decoded.lineCount,
    partial: decoded.partial,
  };
}
