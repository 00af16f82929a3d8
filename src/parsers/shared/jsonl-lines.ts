/**
 * Splitting JSONL bytes (one JSON object per "\n"-terminated line: Claude Code transcripts, Codex
 * rollouts) into decoded lines with skip counting. A range always starts at a line start; its last
 * segment without a "\n" is the line being written and is returned apart (`partial`).
 */
import type { SkipReport } from "../types.ts";
import { noteSkip } from "./skips.ts";

/** A decoded JSON line with its 1-based line number. */
export interface RawLine {
  line: number;
  value: Record<string, unknown>;
}

/** What {@link decodeLines} found in a byte range. */
export interface DecodedLines {
  /** Decoded complete lines, in file order (blank and skipped lines left out). */
  lines: RawLine[];
  /** The decoded unterminated last line, or null (none, blank, or skipped). */
  partial: RawLine | null;
  /** Bytes up to and including the last "\n" (0 when none). */
  completeBytes: number;
  /** Number of complete lines (blank and skipped ones included). */
  lineCount: number;
}

/**
 * Split `bytes` into complete JSON lines, decoding each. A last segment without a trailing "\n" is
 * returned separately in `partial` (decoded when it is valid JSON, else counted as skipped).
 * Skip reasons: `not JSON`, `not a JSON object`, `incomplete last line` (an unterminated line that is not JSON).
 * @param bytes UTF-8 bytes of a range that starts at a line start
 * @param firstLine 1-based number of the first line in `bytes`
 * @param path file path for skip messages
 * @param partialSkipped where the skip of an unterminated last line is counted (default `skipped`): a resume state
 *   keeps only the skips of complete lines, as the line being written is read again by the next parse
 * Examples: `{"a":1}\n{"b"` → lines [{a:1}], partial null (skipped: incomplete last line), completeBytes 8.
 */
export function decodeLines(
  bytes: Buffer,
  firstLine: number,
  path: string,
  skipped: SkipReport,
  partialSkipped: SkipReport = skipped,
): DecodedLines {
  const lines: RawLine[] = [];
  const lastNewline = bytes.lastIndexOf(10);
  const pieces = lastNewline < 0 ? [] : bytes.toString("utf8", 0, lastNewline).split("\n");
  for (let i = 0; i < pieces.length; i++) {
    const value = decodeOne(pieces[i] as string, firstLine + i, path, skipped);
    if (value) lines.push({ line: firstLine + i, value });
  }
  let partial: RawLine | null = null;
  const rest = bytes.toString("utf8", lastNewline + 1);
  if (rest.trim().length > 0) {
    const value = decodeOne(rest, firstLine + pieces.length, path, partialSkipped, "incomplete last line");
    if (value) partial = { line: firstLine + pieces.length, value };
  }
  return { lines, partial, completeBytes: lastNewline + 1, lineCount: pieces.length };
}

function decodeOne(
  piece: string,
  line: number,
  path: string,
  skipped: SkipReport,
  reason = "not JSON",
): Record<string, unknown> | null {
  if (piece.length === 0 || piece.trim().length === 0) return null;
  try {
    const value: unknown = JSON.parse(piece);
    if (value !== null && typeof value === "object" && !Array.isArray(value)) return value as Record<string, unknown>;
    noteSkip(skipped, `${path}:${line}`, "not a JSON object");
  } catch {
    noteSkip(skipped, `${path}:${line}`, reason);
  }
  return null;
}
