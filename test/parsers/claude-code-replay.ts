/**
 * Test helper: replay the growth of a Claude Code transcript. Writes the first part of a real or
 * fixture file into a temp folder (same file name, so the parser sees the same kind of file), parses
 * it, appends the rest, resume-parses, and returns what a full parse of the final file gives too.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { claudeCodeParser, unitForContainer } from "../../src/parsers/claude-code.ts";
import type { ParseOptions, ParseResult, SourceUnit, Turn } from "../../src/parsers/types.ts";

/** Unit of a file on disk, stats as the scan would give them. */
export function unitOfFile(path: string): SourceUnit {
  const stat = statSync(path);
  return unitForContainer({ source: "claude-code", path, fingerprint: `${stat.size}:${stat.mtimeMs}`, sizeBytes: stat.size });
}

/** Byte offsets just after each "\n" of `bytes` (excluding the very end). */
export function lineBoundaries(bytes: Uint8Array): number[] {
  const cuts: number[] = [];
  for (let i = 0; i < bytes.length - 1; i++) if (bytes[i] === 10) cuts.push(i + 1);
  return cuts;
}

/** Outcome of one replay. */
export interface Replay {
  first: ParseResult;
  resumed: ParseResult;
  full: ParseResult;
  /** Turns of the first parse with turns >= resumed.fromTurn replaced by the resumed ones. */
  merged: Turn[];
  appendedBytes: number;
}

/**
 * Cut `source` at byte `cut`, parse, append the rest, resume-parse, and full-parse the result.
 * @param source a transcript file; it is copied, never modified
 */
export function replayAt(source: string, cut: number, options: ParseOptions = {}): Replay {
  const bytes = readFileSync(source);
  const dir = mkdtempSync(join(tmpdir(), "recall-cc-replay-"));
  try {
    const file = join(dir, basename(source));
    writeFileSync(file, bytes.subarray(0, cut));
    const first = claudeCodeParser.parse(unitOfFile(file), options);
    appendFileSync(file, bytes.subarray(cut));
    const resumed = claudeCodeParser.parse(unitOfFile(file), { ...options, resume: first.resume });
    const full = claudeCodeParser.parse(unitOfFile(file), options);
    const merged = [...first.turns.filter((turn) => turn.number < resumed.fromTurn), ...resumed.turns];
    return { first, resumed, full, merged, appendedBytes: bytes.length - cut };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
