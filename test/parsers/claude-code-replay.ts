/**
 * Test helper: replay the growth of a Claude Code transcript (replay.ts) in a plain temp folder, the
 * unit named from the file's stats as the scan would give them.
 */
import { mkdtempSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claudeCodeParser, unitForContainer } from "../../src/parsers/claude-code.ts";
import type { ParseOptions, SourceUnit } from "../../src/parsers/types.ts";
import { replayGrowth, type Replay } from "./replay.ts";

/** Cut points of a transcript (replay.ts), also used by test/corpus/claude-code.test.ts. */
export { lineBoundaries } from "./replay.ts";

/** Unit of a file on disk, stats as the scan would give them. */
export function unitOfFile(path: string): SourceUnit {
  const stat = statSync(path);
  return unitForContainer({
    source: "claude-code",
    path,
    fingerprint: `${stat.size}:${stat.mtimeMs}`,
    sizeBytes: stat.size,
  });
}

/**
 * Cut `source` at byte `cut`, parse, append the rest, resume-parse, and full-parse the result.
 * @param source a transcript file; it is copied, never modified
 */
export function replayAt(source: string, cut: number, options: ParseOptions = {}): Replay {
  const makeFolder = () => {
    const root = mkdtempSync(join(tmpdir(), "recall-cc-replay-"));
    return { root, folder: root };
  };
  return replayGrowth({ parser: claudeCodeParser, makeFolder, unitOf: unitOfFile }, source, cut, options);
}
