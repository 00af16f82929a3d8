import { describe, expect, test } from "bun:test";
import {
  appendFileSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import { codexParser } from "../../src/parsers/codex.ts";
import type { ParseOptions, SourceUnit } from "../../src/parsers/types.ts";
import { expectResumeMatchesFullParse, lineBoundaries, replayGrowth, type Replay } from "./replay.ts";

const fixtures = resolve(import.meta.dir, "../fixtures/codex");
const corpusCodex = resolve(import.meta.dir, "../../../shared/corpus/codex");

/** Every `*.jsonl` rollout below `dir` (not the side files). */
function rolloutsBelow(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  const walk = (path: string) => {
    for (const name of readdirSync(path).sort()) {
      const child = join(path, name);
      if (statSync(child).isDirectory()) walk(child);
      else if (name.endsWith(".jsonl") && name !== "history.jsonl" && name !== "session_index.jsonl") found.push(child);
    }
  };
  walk(dir);
  return found;
}

/** The unit of one file as listUnits names it (outside a Codex home: no index title). */
function unitOf(path: string): SourceUnit {
  const units = codexParser.listUnits(codexParser.scan([path]).containers);
  if (units.length !== 1) throw new Error(`expected one unit for ${path}`);
  return units[0] as SourceUnit;
}

/** Copy `source` cut at `cut` into a temp folder (same name), parse, append the rest, resume, and parse fully (replay.ts). */
function replayAt(source: string, cut: number, options: ParseOptions = {}): Replay {
  const makeFolder = () => {
    const root = mkdtempSync(join(tmpdir(), "recall-codex-replay-"));
    return { root, folder: root };
  };
  return replayGrowth({ parser: codexParser, makeFolder, unitOf }, source, cut, options);
}

describe("codex incremental resume", () => {
  for (const source of rolloutsBelow(fixtures).filter((path) => !path.endsWith("other-tool.jsonl"))) {
    test(`resuming ${basename(source)} at every line boundary and mid-line gives the full parse`, () => {
      expectResumeMatchesFullParse(replayAt, source);
    });
  }

  test("an appended turn decodes only the new bytes and keeps the numbering of a full parse", () => {
    const source = rolloutsBelow(join(fixtures, "home/sessions/2026/03/01"))[0] as string;
    const bytes = readFileSync(source);
    const cut = lineBoundaries(bytes)[35] as number; // inside task 2, after its first prompt
    const replay = replayAt(source, cut);
    expect(replay.resumed.bytesRead).toBe(replay.appendedBytes);
    expect(replay.resumed.bytesVerified).toBe(cut);
    expect(replay.resumed.fromTurn).toBe(2);
    expect(replay.resumed.turns.map((turn) => [turn.number, turn.prompt])).toEqual([
      [2, "Now add tests\n\nuse bun:test please"],
      [3, "! bun test"],
    ]);
  });

  test("a finished last turn that did not change is not returned again", () => {
    const dir = mkdtempSync(join(tmpdir(), "recall-codex-unchanged-"));
    try {
      const source = rolloutsBelow(join(fixtures, "home/sessions/2026/03/03"))[1] as string; // spawn: one finished turn
      const file = join(dir, basename(source));
      writeFileSync(file, readFileSync(source));
      const first = codexParser.parse(unitOf(file));
      appendFileSync(
        file,
        `${JSON.stringify({ timestamp: "2026-03-03T10:01:00.000Z", type: "event_msg", payload: { type: "token_count", info: null } })}\n`,
      );
      const resumed = codexParser.parse(unitOf(file), { resume: first.resume });
      expect(resumed.turns).toEqual([]);
      expect(resumed.fromTurn).toBe(2);
      expect(resumed.session.turnCount).toBe(1);
      expect(resumed.session.endedAt).toBe(Date.parse("2026-03-03T10:01:00.000Z"));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("an edit inside the parsed prefix is seen and the file is parsed fully", () => {
    const dir = mkdtempSync(join(tmpdir(), "recall-codex-edit-"));
    try {
      const source = rolloutsBelow(join(fixtures, "home/sessions/2026/03/01"))[0] as string;
      const file = join(dir, basename(source));
      const text = readFileSync(source, "utf8");
      writeFileSync(file, text);
      const first = codexParser.parse(unitOf(file));
      writeFileSync(file, `${text.replaceAll("Now add tests", "Now add specs")}`);
      const again = codexParser.parse(unitOf(file), { resume: first.resume });
      expect(again.fromTurn).toBe(1);
      expect(again.bytesRead).toBe(Buffer.byteLength(text));
      expect(again.turns[1]?.prompt).toBe("Now add specs\n\nuse bun:test please");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a prompt written as a response item, then its user_message event, stays one turn that takes the event's time (issue 26)", () => {
    const dir = mkdtempSync(join(tmpdir(), "recall-codex-mode-"));
    try {
      const file = join(dir, "rollout-2026-01-01T00-00-00-019c0000-1111-7000-8000-000000000001.jsonl");
      const line = (value: object) => `${JSON.stringify(value)}\n`;
      writeFileSync(
        file,
        line({
          timestamp: "2026-01-01T00:00:00Z",
          type: "session_meta",
          payload: { id: "019c0000-1111-7000-8000-000000000001", cwd: "/p" },
        }) +
          line({
            timestamp: "2026-01-01T00:00:01Z",
            type: "response_item",
            payload: { type: "message", role: "user", content: [{ type: "input_text", text: "typed  twice" }] },
          }),
      );
      const first = codexParser.parse(unitOf(file));
      expect(first.turns.map((turn) => turn.prompt)).toEqual(["typed  twice"]);
      appendFileSync(
        file,
        line({
          timestamp: "2026-01-01T00:00:01.001Z",
          type: "event_msg",
          payload: { type: "user_message", message: "typed twice" },
        }),
      );
      const resumed = codexParser.parse(unitOf(file), { resume: first.resume });
      expect(resumed.bytesVerified).toBeGreaterThan(0); // resumed, not re-read
      expect(resumed.fromTurn).toBe(1);
      expect(resumed.turns.map((turn) => [turn.prompt, turn.timestamp])).toEqual([
        ["typed twice", Date.parse("2026-01-01T00:00:01.001Z")],
      ]);
      expect(resumed.turns).toEqual(codexParser.parse(unitOf(file)).turns);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  for (const source of rolloutsBelow(fixtures).filter((path) => !path.endsWith("other-tool.jsonl"))) {
    test(`resuming ${basename(source)} at every line boundary reports the whole file's skipped records (issue 26)`, () => {
      const bytes = readFileSync(source);
      for (const cut of [...lineBoundaries(bytes), Math.floor(bytes.length / 2)]) {
        const replay = replayAt(source, cut);
        expect(replay.resumed.skipped.count).toBe(replay.full.skipped.count);
        expect(replay.resumed.skipped.reasons).toEqual(replay.full.skipped.reasons);
      }
    });
  }

  test("a resumed parse of a rollout with unplaced records decodes only the appended bytes and still counts them all (issue 26)", () => {
    const source = rolloutsBelow(join(fixtures, "issue-26/unplaced"))[0] as string;
    const bytes = readFileSync(source);
    const cut = lineBoundaries(bytes)[30] as number; // inside the only turn, after every unplaced record
    const replay = replayAt(source, cut);
    expect(replay.resumed.bytesRead).toBe(replay.appendedBytes);
    expect(replay.resumed.skipped.count).toBe(10);
  });

  describe.skipIf(!existsSync(corpusCodex))("on real rollouts (needs ../shared/corpus/codex)", () => {
    for (const source of rolloutsBelow(corpusCodex)) {
      test(`resuming ${basename(source)} at sampled line boundaries gives the full parse`, () => {
        const bytes = readFileSync(source);
        const cuts = lineBoundaries(bytes);
        const step = Math.max(1, Math.floor(cuts.length / 12));
        for (let i = 0; i < cuts.length; i += step) {
          const cut = cuts[i] as number;
          const replay = replayAt(source, cut, { withOutputs: true });
          expect(replay.merged).toEqual(replay.full.turns);
          expect(replay.resumed.session).toEqual(replay.full.session);
          // Until the first user_message event the prompt stream is undecided, and gaining it re-reads the file.
          if (bytes.subarray(0, cut).includes('"type":"user_message"'))
            expect(replay.resumed.bytesRead).toBe(replay.appendedBytes);
        }
      });
    }
  });
});
