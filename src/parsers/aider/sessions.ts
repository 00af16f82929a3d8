/**
 * From a history file (container) to its chat sessions (units), docs/formats.md §6. Aider starts every
 * run by appending `\n# aider chat started at YYYY-MM-DD hh:mm:ss\n\n` (aider/io.py `InputOutput.__init__`),
 * so a session is the block of bytes from one such header line to the next (or to the end of the file).
 * Text before the first header is a session too (issue 26): a history that was cut (rotated, truncated, copied
 * from the middle) starts mid-session; its block has the header "" and runs from byte 0 to the first header.
 * This module finds the headers in raw bytes (no decoding), names each session, and computes each
 * block's change key, so appending to the last session leaves the keys of the older ones unchanged.
 */
import { readFileSync } from "node:fs";
import { fsReason, isMissingError } from "../file-stats.ts";
import { rejectFile } from "../shared/skips.ts";
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
  /**
   * The header line without its "\n" (and without a "\r"), e.g. `# aider chat started at 2025-12-03 14:43:45`;
   * "" for the text before the file's first header ({@link sessionBlocksOf}).
   */
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
 * Every session block of a history file's bytes, in file order: the text before the first header (or the whole
 * file when it has none) as a block with the header "" when it holds more than white space, then
 * {@link findSessionBlocks}.
 * Example: "…the end of a reply\n\n# aider chat started at 2025-05-04 17:02:36\n" → [{start 0, end 20, header ""},
 *   {start 20, header "# aider chat started at 2025-05-04 17:02:36"}].
 */
export function sessionBlocksOf(bytes: Uint8Array): SessionBlock[] {
  const blocks = findSessionBlocks(bytes);
  const end = blocks[0]?.start ?? bytes.length;
  const lead = Buffer.from(bytes.buffer, bytes.byteOffset, end).toString("utf8");
  return lead.trim().length > 0 ? [{ start: 0, end, header: "", ordinal: 1 }, ...blocks] : blocks;
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
 * the same second); the text before the first header has the header "". Stable while the file stays where it
 * is (appends and new sessions leave it alone); aider itself has no session ids.
 * Example: ("/p/.aider.chat.history.md", "# aider chat started at 2025-12-03 14:43:45", 1) → `aider-3f2a…` (12 hex).
 */
export function sessionIdOf(path: string, header: string, ordinal: number): string {
  const digest = new Bun.CryptoHasher("sha256").update(`${path}\0${header}`).digest("hex").slice(0, 12);
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
 * Units of all history files: one per session block ({@link sessionBlocksOf}, the text before the first header
 * included). `key` = `<file path>#<session id>`; `changeKey` =
 * {@link blockChangeKey}; `locator` = `{start, end (null for the file's last block, which may still grow),
 * header ("" for the text before the first header), ordinal, nextHeader (the next block's header line, which ends
 * this session's time window; null for the last)}`
 * (byte offsets). The change key ignores `.aider.input.history`: aider writes a prompt there before it
 * writes it to the chat history, so the block changes whenever a prompt time could. Reads each file whole (only files whose fingerprint changed are listed).
 * Unreadable and zero-byte files are reported through `hooks.onUnavailable` (a zero-byte history is a
 * truncated or brand-new file: its stored sessions must not look deleted); a file of white space alone holds no
 * session and is reported through `hooks.onRejected` (`no aider chat session`). Never throws for file-system errors.
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
    const blocks = sessionBlocksOf(bytes);
    if (blocks.length === 0) rejectFile(hooks, container.path, "no aider chat session");
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
