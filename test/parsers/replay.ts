/**
 * Test helper shared by the resume tests of every append-only source: replay the growth of a session
 * file. Writes the first part of a fixture or corpus file into a fresh temp folder (same file name, so
 * the parser sees the same kind of file), parses it, appends the rest, resume-parses with the first
 * parse's state, and full-parses the final file, so a test can compare the resumed result with the full one.
 */
import { expect } from "bun:test";
import { appendFileSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import type { ParseOptions, ParseResult, Parser, SourceUnit, Turn } from "../../src/parsers/types.ts";

/** Where a replay writes its copy, and how the unit of that copy is named. */
export interface ReplayTarget {
  parser: Parser;
  /** A fresh temp folder: the copy goes into `folder`; `root` (holding it) is removed afterwards. */
  makeFolder(): { root: string; folder: string };
  /** The unit of the copy `file` below `root`, as the parser's scan and listUnits (or a test) name it. */
  unitOf(file: string, root: string): SourceUnit;
}

/** Byte offsets just after each "\n" of `bytes` (excluding the very end): every place a line can be cut. */
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
  /** Turns of the first parse below `resumed.fromTurn`, then the resumed ones. */
  merged: Turn[];
  appendedBytes: number;
}

/**
 * Cut `source` at byte `cut`, parse, append the rest, resume-parse, and full-parse the result.
 * @param source a session file; it is copied, never modified
 */
export function replayGrowth(target: ReplayTarget, source: string, cut: number, options: ParseOptions = {}): Replay {
  const bytes = readFileSync(source);
  const { root, folder } = target.makeFolder();
  try {
    const file = join(folder, basename(source));
    writeFileSync(file, bytes.subarray(0, cut));
    const first = target.parser.parse(target.unitOf(file, root), options);
    appendFileSync(file, bytes.subarray(cut));
    const resumed = target.parser.parse(target.unitOf(file, root), { ...options, resume: first.resume });
    const full = target.parser.parse(target.unitOf(file, root), options);
    // As the index merges them (src/index/write/writer.ts): main turns from `fromTurn` on are replaced; rewound turns
    // (negative numbers, issue 26) only by a full parse (fromTurn 1), which returns them after the main turns.
    const kept = first.turns.filter((turn) => turn.number > 0 && turn.number < resumed.fromTurn);
    const rewound = resumed.fromTurn === 1 ? [] : first.turns.filter((turn) => turn.number < 0);
    const resumedMain = resumed.turns.filter((turn) => turn.number > 0);
    const resumedRewound = resumed.turns.filter((turn) => turn.number < 0);
    const merged = [...kept, ...resumedMain, ...rewound, ...resumedRewound];
    return { first, resumed, full, merged, appendedBytes: bytes.length - cut };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * Assert that resuming `source` cut at every line boundary and at its middle byte, with and without
 * tool outputs, gives the session and turns of a full parse, and a resume state again.
 * @param replayAt the source's replay (replayGrowth with that parser's target)
 */
export function expectResumeMatchesFullParse(
  replayAt: (source: string, cut: number, options: ParseOptions) => Replay,
  source: string,
): void {
  const bytes = readFileSync(source);
  for (const cut of [...lineBoundaries(bytes), Math.floor(bytes.length / 2)]) {
    for (const withOutputs of [false, true]) {
      const replay = replayAt(source, cut, { withOutputs });
      expect(replay.resumed.session).toEqual(replay.full.session);
      expect(replay.merged).toEqual(replay.full.turns);
      expect(replay.resumed.resume).toBeDefined();
    }
  }
}
