/**
 * Reading a JSONL prompt-history file (Claude Code and Codex CLI `history.jsonl`, docs/formats.md §1.10, §3.1): the
 * whole file decoded line by line (an unterminated last line is read when it is complete JSON), each object mapped to
 * a {@link HistoryPrompt} by the source's own record reader, anything else counted as skipped.
 */
import { readFileSync } from "node:fs";
import { decodeLines, noteSkip, type SkipCounter } from "./jsonl-lines.ts";
import type { HistoryPrompt, PromptHistoryFile } from "./prompt-history.ts";

/**
 * Read `path` and map each decoded line with `toPrompt`, which returns the prompt or a skip reason (a string such as
 * `no sessionId`).
 * @throws the fs error when the file cannot be read
 */
export function readJsonlHistory(path: string, toPrompt: (record: Record<string, unknown>) => HistoryPrompt | string): PromptHistoryFile {
  const bytes = readFileSync(path);
  const skipped: SkipCounter = { count: 0 };
  const decoded = decodeLines(bytes, 1, path, skipped);
  const prompts: HistoryPrompt[] = [];
  for (const { line, value } of decoded.partial ? [...decoded.lines, decoded.partial] : decoded.lines) {
    const prompt = toPrompt(value);
    if (typeof prompt === "string") noteSkip(skipped, `${path}:${line}: ${prompt}`);
    else prompts.push(prompt);
  }
  return { prompts, bytesRead: bytes.length, skipped };
}
