/**
 * Reading a JSONL prompt-history file (Claude Code and Codex CLI `history.jsonl`, docs/formats.md §1.10, §3.1): the
 * whole file decoded line by line (an unterminated last line is read when it is complete JSON), each object mapped to
 * a {@link HistoryPrompt} by the source's own record reader, anything else counted as skipped.
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { decodeLines } from "./jsonl-lines.ts";
import { noteSkip } from "./skips.ts";
import type { SkipReport } from "../types.ts";
import type { HistoryPrompt, PromptHistoryFile, PromptHistorySpec } from "./prompt-history.ts";

/**
 * Read `path` (from byte `fromByte` to its end: the lines appended since a file of that size) and map each decoded
 * line with `toPrompt`, which returns the prompt or a skip reason (a string such as `no sessionId`).
 * @throws the fs error when the file cannot be read
 */
export function readJsonlHistory(
  path: string,
  toPrompt: (record: Record<string, unknown>) => HistoryPrompt | string,
  fromByte = 0,
): PromptHistoryFile {
  const bytes = fromByte > 0 ? readTail(path, fromByte) : readFileSync(path);
  const skipped: SkipReport = { count: 0 };
  const decoded = decodeLines(bytes, 1, path, skipped);
  const prompts: HistoryPrompt[] = [];
  for (const { line, value } of decoded.partial ? [...decoded.lines, decoded.partial] : decoded.lines) {
    const prompt = toPrompt(value);
    if (typeof prompt === "string") noteSkip(skipped, `${path}:${line}`, prompt);
    else prompts.push(prompt);
  }
  return { prompts, bytesRead: bytes.length, skipped };
}

/**
 * The {@link PromptHistorySpec} of an append-only JSONL history named `fileName` whose lines `toPrompt` reads: the whole
 * file for listing and parsing, its tail since a known size for the freshness check.
 */
export function jsonlHistorySpec(
  fileName: string,
  toPrompt: (record: Record<string, unknown>) => HistoryPrompt | string,
): PromptHistorySpec {
  return {
    fileName,
    read: (path) => readJsonlHistory(path, toPrompt),
    readFrom: (path, fromByte) => readJsonlHistory(path, toPrompt, fromByte),
  };
}

/** The bytes of `path` from `fromByte` to its end (empty when it is shorter). */
function readTail(path: string, fromByte: number): Buffer {
  const fd = openSync(path, "r");
  try {
    const length = Math.max(0, fstatSync(fd).size - fromByte);
    const buffer = Buffer.allocUnsafe(length);
    const read = length === 0 ? 0 : readSync(fd, buffer, 0, length, fromByte);
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}
