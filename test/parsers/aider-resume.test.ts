import { afterAll, describe, expect, test } from "bun:test";
import { appendFileSync, existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { aiderParser } from "../../src/parsers/aider.ts";
import type { ParseOptions, ParseResult, SourceUnit, Turn } from "../../src/parsers/types.ts";
import { corpusDir } from "../helpers/corpus.ts";
import { lineBoundaries } from "./replay.ts";

const fixtures = resolve(import.meta.dir, "../fixtures/aider");
const projectA = join(fixtures, "project-a/.aider.chat.history.md");
const aiderCorpus = join(corpusDir, "aider");
const corpusFiles = existsSync(aiderCorpus)
  ? readdirSync(aiderCorpus)
      .sort()
      .map((name) => join(aiderCorpus, name, ".aider.chat.history.md"))
      .filter(existsSync)
  : [];
const temps: string[] = [];
afterAll(() => {
  for (const dir of temps) rmSync(dir, { recursive: true, force: true });
});

function unitsOf(file: string): SourceUnit[] {
  return aiderParser.listUnits(aiderParser.scan([file]).containers);
}

/** Outcome of one growth replay of the session being written when the file was cut. */
interface Replay {
  first: ParseResult;
  resumed: ParseResult;
  full: ParseResult;
  merged: Turn[];
  appendedBytes: number;
  /** Size of the copied `.aider.input.history` (0 when none): a parse reads it whole for prompt times. */
  inputBytes: number;
}

/**
 * Write `source` cut at byte `cut` to a temp file, parse its last session, append the rest, and parse
 * that same session again resumed from the first parse's state and fully (the whole `.aider.input.history`
 * beside `source`, if any, is copied along). Null when the cut holds no session yet.
 */
function replayAt(source: string, cut: number, options: ParseOptions = {}): Replay | null {
  const bytes = readFileSync(source);
  const dir = mkdtempSync(join(tmpdir(), "recall-aider-replay-"));
  temps.push(dir);
  const input = join(source, "..", ".aider.input.history");
  const inputBytes = existsSync(input) ? readFileSync(input).length : 0;
  if (inputBytes > 0) writeFileSync(join(dir, ".aider.input.history"), readFileSync(input));
  const file = join(dir, basename(source));
  writeFileSync(file, bytes.subarray(0, cut));
  const last = unitsOf(file).at(-1);
  if (!last) return null;
  const first = aiderParser.parse(last, options);
  appendFileSync(file, bytes.subarray(cut));
  const unit = unitsOf(file).find((candidate) => candidate.sessionId === last.sessionId)!;
  const resumed = aiderParser.parse(unit, { ...options, resume: first.resume });
  const full = aiderParser.parse(unit, options);
  const merged = [...first.turns.filter((turn) => turn.number < resumed.fromTurn), ...resumed.turns];
  rmSync(dir, { recursive: true, force: true });
  return { first, resumed, full, merged, appendedBytes: bytes.length - cut, inputBytes };
}

/** Assert resumed = full at the given cuts, with and without outputs. */
function expectResumeMatchesFull(source: string, cuts: readonly number[]): void {
  for (const cut of cuts) {
    for (const withOutputs of [false, true]) {
      const replay = replayAt(source, cut, { withOutputs });
      if (!replay) continue;
      expect(replay.resumed.session).toEqual(replay.full.session);
      expect(replay.merged).toEqual(replay.full.turns);
      expect(replay.first.resume).toBeDefined();
      if (replay.resumed.bytesVerified! > 0)
        expect(replay.resumed.bytesRead).toBeLessThanOrEqual(replay.appendedBytes + replay.inputBytes);
    }
  }
}

describe("aider incremental resume", () => {
  test("resuming the hand-made history at every line boundary and mid-line gives the full parse", () => {
    const bytes = readFileSync(projectA);
    expectResumeMatchesFull(projectA, [...lineBoundaries(bytes), Math.floor(bytes.length / 2)]);
  });

  test("resuming a history with prompt times at every line boundary gives the full parse", () => {
    const source = join(fixtures, "with-input/.aider.chat.history.md");
    expectResumeMatchesFull(source, lineBoundaries(readFileSync(source)));
    const text = readFileSync(source, "utf8");
    const replay = replayAt(source, Buffer.byteLength(text.slice(0, text.indexOf("Hi again.")), "utf8"))!;
    expect(replay.resumed.bytesVerified).toBeGreaterThan(0);
    expect(replay.resumed.turns.map((turn) => [turn.number, turn.response, turn.timestamp])).toEqual([
      [1, "Hi again.", new Date(2026, 3, 1, 10, 0, 5).getTime()],
    ]);
  });

  test("an appended turn decodes only the new bytes and keeps the numbering of a full parse", () => {
    const text = readFileSync(projectA, "utf8");
    const secondHeader = text.indexOf("# aider chat started at 2026-03-02");
    const cut = Buffer.byteLength(text.slice(0, text.indexOf("#### /exit")), "utf8");
    const replay = replayAt(projectA, cut)!;
    expect(replay.resumed.bytesRead).toBe(replay.appendedBytes);
    expect(replay.resumed.bytesVerified).toBe(cut - Buffer.byteLength(text.slice(0, secondHeader), "utf8"));
    expect(replay.resumed.fromTurn).toBe(2);
    expect(replay.resumed.turns.map((turn) => [turn.number, turn.prompt])).toEqual([[2, "/exit"]]);
    expect(replay.resumed.session.turnCount).toBe(2);
  });

  test("a reply appended to the last turn returns that turn again, with its number", () => {
    const text = readFileSync(projectA, "utf8");
    const dir = mkdtempSync(join(tmpdir(), "recall-aider-append-"));
    temps.push(dir);
    const source = join(dir, ".aider.chat.history.md");
    const firstSession = text.slice(0, text.indexOf("# aider chat started at 2026-03-02"));
    writeFileSync(source, firstSession);
    const replay = replayAt(
      source,
      Buffer.byteLength(firstSession.slice(0, firstSession.indexOf("Use `/undo`")), "utf8"),
    )!;
    expect(replay.first.turns.at(-1)).toMatchObject({ number: 6, response: "" });
    expect(replay.resumed.fromTurn).toBe(6);
    expect(replay.resumed.turns.map((turn) => [turn.number, turn.prompt, turn.response])).toEqual([
      [6, "/help how do I undo?", "Use `/undo` to undo the last aider commit."],
      [7, "!git status", ""],
      [8, "/drop", ""],
    ]);
  });

  test("a session that is no longer the file's last is parsed fully (its block is read once, no state)", () => {
    const text = readFileSync(projectA, "utf8");
    const replay = replayAt(projectA, Buffer.byteLength(text.slice(0, text.indexOf("#### /drop")), "utf8"))!;
    expect(replay.resumed.fromTurn).toBe(1);
    expect(replay.resumed.resume).toBeUndefined();
    expect(replay.resumed.turns).toEqual(replay.full.turns);
  });

  test("an unchanged file resumes with no turns and reads no new bytes", () => {
    const unit = unitsOf(projectA).at(-1)!;
    const first = aiderParser.parse(unit);
    const again = aiderParser.parse(unit, { resume: first.resume });
    expect(again.turns).toEqual([]);
    expect(again.fromTurn).toBe(first.session.turnCount + 1);
    expect(again.bytesRead).toBe(0);
    expect(again.session).toEqual(first.session);
  });

  test("a change inside the parsed part, a state of another option or another session parses fully", () => {
    const dir = mkdtempSync(join(tmpdir(), "recall-aider-edit-"));
    temps.push(dir);
    const file = join(dir, ".aider.chat.history.md");
    writeFileSync(file, readFileSync(projectA));
    const unit = unitsOf(file).at(-1)!;
    const first = aiderParser.parse(unit);
    writeFileSync(
      file,
      readFileSync(file, "utf8").replace("It returns a constant string.", "It returns a constant STRING."),
    );
    const edited = aiderParser.parse(unitsOf(file).at(-1)!, { resume: first.resume });
    expect(edited.fromTurn).toBe(1);
    expect(edited.turns[0]!.response).toStartWith("It returns a constant STRING.");
    expect(aiderParser.parse(unit, { resume: first.resume, withOutputs: true }).fromTurn).toBe(1);
    const older = unitsOf(file)[0]!;
    expect(aiderParser.parse(older, { resume: first.resume }).fromTurn).toBe(1);
    expect(aiderParser.parse(older).resume).toBeUndefined();
  });
});

describe("aider resume of the text before the first header and of the real shapes (issue 26)", () => {
  const cutStart = join(fixtures, "cut-start/.aider.chat.history.md");
  const text = readFileSync(cutStart, "utf8");
  const headerAt = Buffer.byteLength(text.slice(0, text.indexOf("# aider chat started at")), "utf8");

  /** A history that holds no header at all (cut mid-session), with the fixture's .aider.input.history beside it. */
  function headerless(): string {
    const dir = mkdtempSync(join(tmpdir(), "recall-aider-headerless-"));
    temps.push(dir);
    writeFileSync(join(dir, ".aider.input.history"), readFileSync(join(cutStart, "..", ".aider.input.history")));
    writeFileSync(join(dir, ".aider.chat.history.md"), readFileSync(cutStart).subarray(0, headerAt));
    return join(dir, ".aider.chat.history.md");
  }

  test("a history without any header resumes at every line boundary and mid-line like a full parse", () => {
    const source = headerless();
    expectResumeMatchesFull(source, lineBoundaries(readFileSync(source)));
    // Cut inside a line: the state ends before it, so the resumed parse reads that line again.
    const midLine = replayAt(source, Buffer.byteLength(text.slice(0, text.indexOf("print the total")), "utf8"))!;
    expect(midLine.merged).toEqual(midLine.full.turns);
    expect(midLine.resumed.session).toEqual(midLine.full.session);
    const replay = replayAt(source, Buffer.byteLength(text.slice(0, text.indexOf("Use a format string:")), "utf8"))!;
    expect(replay.resumed.bytesVerified).toBeGreaterThan(0);
    expect(replay.resumed.fromTurn).toBe(2);
    expect(replay.resumed.session.turnCount).toBe(2);
  });

  test("the text before the first header keeps its id, its turns and its count when a session is appended after it", () => {
    const source = headerless();
    const [before] = unitsOf(source);
    const first = aiderParser.parse(before!);
    appendFileSync(source, readFileSync(cutStart).subarray(headerAt));
    const units = unitsOf(source);
    expect(units.map((unit) => unit.sessionId)).toEqual([before!.sessionId, units[1]!.sessionId]);
    expect(units[0]!.changeKey).toBe(before!.changeKey);
    const resumed = aiderParser.parse(units[0]!, { resume: first.resume });
    const full = aiderParser.parse(units[0]!);
    expect(resumed.turns).toEqual(first.turns);
    expect(resumed.session).toEqual(full.session);
    expect(full.session.turnCount).toBe(2);
    expect(resumed.resume).toBeUndefined();
  });

  for (const name of ["cut-start", "windows-architect", "confirm-all"]) {
    test(`resuming ${name} at every line boundary (a prompt cut in two included) gives the full parse`, () => {
      const source = join(fixtures, name, ".aider.chat.history.md");
      expectResumeMatchesFull(source, lineBoundaries(readFileSync(source)));
    });
  }
});

describe.skipIf(corpusFiles.length === 0)("aider resume on the real corpus (needs ../shared/corpus/aider)", () => {
  for (const source of corpusFiles) {
    test(`resuming ${basename(join(source, ".."))} at every 9th line boundary gives the full parse`, () => {
      const cuts = lineBoundaries(readFileSync(source)).filter((_, index) => index % 9 === 0);
      expectResumeMatchesFull(source, cuts);
    }, 30_000);
  }
});
