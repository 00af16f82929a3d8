/**
 * The decode step of a JSONL parse that can be resumed (Claude Code transcripts, Codex rollouts): a full
 * parse decodes a whole file and notes where its complete lines end; a resumed one checks the parsed
 * prefix (prefix-hash.ts) and decodes only the lines appended after it. Both give the next
 * {@link LinePosition}, the three numbers a resume state keeps.
 */
import type { SkipReport } from "../types.ts";
import { decodeLines, type RawLine } from "./jsonl-lines.ts";
import { copySkips, emptySkips, mergeSkips } from "./skips.ts";
import { prefixHashOf, readAppended } from "./prefix-hash.ts";

/** Where a file's complete lines end. */
export interface LinePosition {
  /** Bytes up to and including the last complete line's "\n". */
  offset: number;
  /** Complete lines before `offset` (for 1-based line numbers in skip reports). */
  lineCount: number;
  /** prefix-hash.ts `prefixDigest` of bytes [0, offset). */
  prefixHash: string;
  /**
   * What the complete lines before `offset` held that could not be decoded (issue 26), so a resumed parse reports the
   * whole file's skips, not only those of the appended bytes. Absent in states written before it: nothing known.
   */
  skipped?: SkipReport;
}

/** Lines decoded by {@link decodeWhole} or {@link decodeAppended}, and the position after them. */
export interface DecodedRange {
  /** Complete lines decoded, numbered from the file's start. */
  lines: RawLine[];
  /** The decoded unterminated last line, or null. */
  partial: RawLine | null;
  /** Position after the last complete line: the next resume state's. */
  position: LinePosition;
}

/**
 * Decode a whole file already in memory (`bytes`, read from `path`); skips are counted into `skipped` (the position
 * keeps those of the complete lines).
 */
export function decodeWhole(bytes: Buffer, path: string, skipped: SkipReport): DecodedRange {
  const partialSkipped = emptySkips();
  const decoded = decodeLines(bytes, 1, path, skipped, partialSkipped);
  const position = {
    offset: decoded.completeBytes,
    lineCount: decoded.lineCount,
    prefixHash: prefixHashOf(bytes, decoded.completeBytes),
    skipped: copySkips(skipped),
  };
  mergeSkips(skipped, partialSkipped);
  return { lines: decoded.lines, partial: decoded.partial, position };
}

/**
 * Decode only the lines appended to `path` after `from`, once bytes [0, from.offset) are verified
 * against `from.prefixHash`. `skipped` receives the skips `from` recorded for the earlier lines plus those of the
 * appended ones: the whole file's.
 * @returns the lines with `bytesRead` (appended bytes decoded) and `bytesVerified` (= `from.offset`), or
 *   null when the file cannot be read, shrank or its prefix changed: the caller parses fully (and a full
 *   parse reports why a file cannot be read)
 */
export function decodeAppended(
  path: string,
  from: LinePosition,
  skipped: SkipReport,
): (DecodedRange & { bytesRead: number; bytesVerified: number }) | null {
  let read: ReturnType<typeof readAppended>;
  try {
    read = readAppended(path, from.offset, from.prefixHash);
  } catch {
    return null;
  }
  if (!read) return null;
  mergeSkips(skipped, from.skipped);
  const partialSkipped = emptySkips();
  const decoded = decodeLines(read.appended, from.lineCount + 1, path, skipped, partialSkipped);
  const position = {
    offset: from.offset + decoded.completeBytes,
    lineCount: from.lineCount + decoded.lineCount,
    prefixHash: read.digestThrough(decoded.completeBytes),
    skipped: copySkips(skipped),
  };
  mergeSkips(skipped, partialSkipped);
  return {
    lines: decoded.lines,
    partial: decoded.partial,
    position,
    bytesRead: read.appended.length,
    bytesVerified: from.offset,
  };
}
