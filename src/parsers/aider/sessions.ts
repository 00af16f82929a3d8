/**
 * From a history file (container) to its chat sessions (units), docs/formats.md §6. Aider starts every
 * run by appending `\n# aider chat started at YYYY-MM-DD hh:mm:ss\n\n` (aider/io.py `InputOutput.__init__`),
 * so a session is the block of bytes from one such header line to the next (or to the end of the file).
 * This module finds the headers in raw bytes (no decoding), names each session, and computes each
 * block's change key, so appending to the last session leaves the keys of the older ones unchanged.
 */
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { fsReason, isMissingError } from "../file-stats.ts";
import type { ParserHooks, SourceContainer, SourceUnit } from "../types.ts";

/** The text every session header line starts with (aider/io.py). */
export const headerPrefix = "# aider chat started at ";

/** A whole header line: the prefix and a local date-time with seconds, nothing else. */
const headerPattern = /^# aider chat started at (\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})\r?$/;

const headerBytes = Buffer.from(headerPrefix, "utf8");

/** One session block inside a history file. */
export interface SessionBlock {
  /** Byte offset of the header line's first byte. */
  start: number;
  /** Byte offset where the block ends: the next header line's first byte, or the file's size. */
  end: number;
  /** The header line without its "\n" (and without a "\r"), e.g. `# aider chat started at 2025-12-03 14:43:45`. */
  header: string;
  /** 1 for the first block with this header line in the file, 2 for the next one with the same line, … */
  ordinal: number;
}

/**
 * The session blocks of a history file's bytes, in file order. A header counts only as a whole line
 * matching `# aider chat started at YYYY-MM-DD hh:mm:ss` at the start of the file or right after "\n";
 * a header line still being written (no "\n" yet) counts once it is complete.
 * Example: "\n# aider chat started at 2025-05-04 17:02:36\n\n#### hi  \n" → [{start 1, end 48, ordinal 1}].
 */
export function findSessionBlocks(bytes: Uint8Array): SessionBlock[] {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const starts: Array<{ start: number; header: string }> = [];
  let from = 0;
  while (from < buffer.length) {
    const at = buffer.indexOf(headerBytes, from);
    if (at < 0) break;
    from = at + headerBytes.length;
    if (at > 0 && buffer[at - 1] !== 10) continue;
    const lineEnd = buffer.indexOf(10, at);
    if (lineEnd < 0) break;
    const header = buffer.toString("utf8", at, lineEnd).replace(/\r$/, "");
    if (headerPattern.test(header)) starts.push({ start: at, header });
  }
  const seen = new Map<string, number>();
  return starts.map((entry, index) => {
    const ordinal = (seen.get(entry.header) ?? 0) + 1;
    seen.set(entry.header, ordinal);
    return { start: entry.start, end: starts[index + 1]?.start ?? buffer.length, header: entry.header, ordinal };
  });
}

/**
 * Epoch ms of a header's date-time, read as local time of the machine running recall (aider writes
 * `datetime.now()` of its own machine, with no zone: when the two machines' zones differ, the time is off
 * by that difference). 0 when the line is not a header or the date is impossible (month 13).
 * Example (TZ=UTC): `# aider chat started at 2025-12-03 14:43:45` → 1764773025000.
 */
export function headerTimeOf(header: string): number {
  const match = headerPattern.exec(header);
  if (!match) return 0;
  const [year, month, day, hour, minute, second] = match.slice(1).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(year, month - 1, day, hour, minute, second);
  return date.getMonth() === month - 1 && date.getDate() === day ? date.getTime() : 0;
}

/**
 * The session id of a block: `aider-<first 12 hex of sha256(absolute file path + "\0" + header line)>`,
 * with `-<ordinal>` appended from the second block with the same header line on (aider restarted within
 * the same second). Stable while the file stays where it is; aider itself has no session ids.
 * Example: ("/p/.aider.chat.history.md", "# aider chat started at 2025-12-03 14:43:45", 1) → `aider-3f2a…` (12 hex).
 */
export function sessionIdOf(path: string, header: string, ordinal: number): string {
  const digest = createHash("sha256").update(`${path}\0${header}`).digest("hex").slice(0, 12);
  return ordinal > 1 ? `aider-${digest}-${ordinal}` : `aider-${digest}`;
}

/**
 * Change key of a block: `<start>:<length>:<wyhash hex>` over its bytes without trailing "\r"/"\n"
 * (the blank line aider writes before the NEXT header lands at the end of this block, so it is left
 * out: starting a new session does not re-parse the previous one).
 */
export function blockChangeKey(bytes: Uint8Array, block: SessionBlock): string {
  let end = block.end;
  while (end > block.start && (bytes[end - 1] === 10 || bytes[end - 1] === 13)) end--;
  return `${block.start}:${end - block.start}:${Bun.hash.wyhash(bytes.subarray(block.start, end)).toString(16)}`;
}

/**
 * Units of all history files: one per session block. `key` = `<file path>#<session id>`; `changeKey` =
 * {@link blockChangeKey}; `locator` = `{start, end (null for the file's last block, which may still grow),
 * header, ordinal, nextHeader (the next block's header line, which ends this session's time window; null for the last)}`
 * (byte offsets). The change key ignores `.aider.input.history`: aider writes a prompt there before it
 * writes it to the chat history, so the block changes whenever a prompt time could. Reads each file whole (only files whose fingerprint changed are listed).
 * Unreadable and zero-byte files are reported through `hooks.onUnavailable` (a zero-byte history is a
 * truncated or brand-new file: its stored sessions must not look deleted); content before the first
 * header is reported once through `hooks.onWarning`. Never throws for file-system errors.
 */
export function listAiderUnits(containers: readonly SourceContainer[], hooks?: ParserHooks): SourceUnit[] {
  const units: SourceUnit[] = [];
  for (const container of containers) {
    if (container.source !== "aider") continue;
    let bytes: Buffer;
    try {
      bytes = readFileSync(container.path);
    } catch (error) {
      if (!isMissingError(error)) reportUnavailable(hooks, container.path, fsReason(error));
      continue;
    }
    if (bytes.length === 0) {
      reportUnavailable(hooks, container.path, "empty file");
      continue;
    }
    const blocks = findSessionBlocks(bytes);
    const firstStart = blocks[0]?.start ?? bytes.length;
    if (bytes.subarray(0, firstStart).toString("utf8").trim().length > 0) {
      hooks?.onWarning?.(`${container.path}:1: text before the first "${headerPrefix.trim()}" line skipped`);
    }
    blocks.forEach((block, index) => {
      const sessionId = sessionIdOf(container.path, block.header, block.ordinal);
      units.push({
        source: "aider",
        key: `${container.path}#${sessionId}`,
        sessionId,
        containerPath: container.path,
        changeKey: blockChangeKey(bytes, block),
        locator: {
          start: block.start,
          end: index === blocks.length - 1 ? null : block.end,
          header: block.header,
          ordinal: block.ordinal,
          nextHeader: blocks[index + 1]?.header ?? null,
        },
      });
    });
  }
  return units;
}

function reportUnavailable(hooks: ParserHooks | undefined, path: string, reason: string): void {
  if (hooks?.onUnavailable) hooks.onUnavailable(path, reason);
  else hooks?.onWarning?.(`${path}: ${reason}`);
}
