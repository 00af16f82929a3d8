import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { closeCursorDatabases, cursorParser } from "../../src/parsers/cursor.ts";
import { corpusDir } from "../helpers/corpus.ts";

/** The real Cursor ~0.4x workspace db (Nov 2024) of ../shared/corpus/cursor (SOURCES.md: slevin48/cursor-history). */
const cursorCorpusFolder = join(corpusDir, "cursor", "slevin48__cursor-history");
const hasCursorCorpus = existsSync(join(cursorCorpusFolder, "state.vscdb"));

afterAll(closeCursorDatabases);

describe.skipIf(!hasCursorCorpus)("cursor real corpus (needs ../shared/corpus/cursor)", () => {
  test("every chat tab and composer of the real workspace db parses with prompts, titles and times, nothing skipped", () => {
    const unavailable: string[] = [];
    const warnings: string[] = [];
    const units = cursorParser.listUnits(cursorParser.scan([cursorCorpusFolder]).containers, {
      onUnavailable: (path, reason) => unavailable.push(`${path}: ${reason}`),
      onWarning: (message) => warnings.push(message),
    });
    expect(unavailable).toEqual([]);
    expect(warnings).toEqual([]);
    const kinds = new Set(units.map((unit) => unit.locator?.kind));
    expect(kinds).toEqual(new Set(["tab", "workspace-composer"]));
    expect(new Set(units.map((unit) => unit.sessionId)).size).toBe(units.length);
    for (const unit of units) {
      const result = cursorParser.parse(unit);
      expect(result.skipped.count).toBe(0);
      expect(result.session.turnCount).toBeGreaterThan(0);
      expect(result.session.startedAt).toBeGreaterThan(Date.parse("2024-11-01T00:00:00Z"));
      expect(result.session.endedAt).toBeGreaterThanOrEqual(result.session.startedAt);
      for (const turn of result.turns) {
        expect(turn.prompt.trim().length).toBeGreaterThan(0);
        for (const call of turn.toolCalls) expect(call.filePath ?? call.input).toBeTruthy();
      }
      if (unit.locator?.kind === "tab") expect(result.session.title).toBeTruthy();
    }
  });

  test("reading the real database leaves no -wal or -shm file beside it", () => {
    const before = readdirSync(cursorCorpusFolder).sort();
    for (const unit of cursorParser.listUnits(cursorParser.scan([cursorCorpusFolder]).containers))
      cursorParser.parse(unit, { withOutputs: true });
    closeCursorDatabases();
    expect(readdirSync(cursorCorpusFolder).sort()).toEqual(before);
  });
});
