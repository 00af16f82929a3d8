import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { compactionSummary } from "../../src/parsers/codex/abstract.ts";
import { codexParser } from "../../src/parsers/codex.ts";
import type { ParseOptions, SourceUnit } from "../../src/parsers/types.ts";
import { expectResumeMatchesFullParse, type Replay, replayGrowth } from "./replay.ts";

const folder = resolve(import.meta.dir, "../fixtures/codex/compacted");
const rollout = join(folder, readdirSync(folder).find((name) => name.endsWith(".jsonl")) as string);
const firstSummary = "## Goal\nPaginate GET /orders with an opaque cursor.";
const secondSummary = "## Goal\nKeep GET /orders fast.";

/** Parse `source` cut at `cut` in a temp folder, append the rest and resume (replay.ts). */
function replayAt(source: string, cut: number, options: ParseOptions): Replay {
  const makeFolder = () => {
    const root = mkdtempSync(join(tmpdir(), "recall-codex-abstract-"));
    return { root, folder: root };
  };
  return replayGrowth({ parser: codexParser, makeFolder, unitOf }, source, cut, options);
}

function unitOf(path: string): SourceUnit {
  const units = codexParser.listUnits(codexParser.scan([path]).containers);
  if (units.length !== 1) throw new Error(`expected one unit for ${path}`);
  return units[0] as SourceUnit;
}

describe("Codex abstract: the summaries of `compacted` records (issue 41)", () => {
  const result = codexParser.parse(unitOf(rollout));

  test("each local compaction's summary without Codex's prefix, newest first; the remote one (no text) adds nothing", () => {
    expect(result.session.abstract?.map((part) => [part.source, part.at])).toEqual([
      ["compaction", Date.parse("2026-03-03T08:06:20.050Z")],
      ["compaction", Date.parse("2026-03-03T08:02:58.050Z")],
    ]);
    expect(result.session.abstract?.[0]?.text.startsWith(secondSummary)).toBe(true);
    expect(result.session.abstract?.[1]?.text).toBe(
      `${firstSummary}\n\n## Done\n- \`cursor\` and \`limit\` query parameters in src/routes/orders.ts\n\n## Next\n- Tests for the last page and for a bad cursor`,
    );
  });

  test("no summary is in a turn, and the turns are the three prompts with their answers", () => {
    expect(result.turns.map((turn) => [turn.prompt, turn.response])).toEqual([
      [
        "Add cursor pagination to GET /orders",
        "I added `cursor` and `limit` query parameters to GET /orders in src/routes/orders.ts.",
      ],
      ["Now add the tests for the last page and a bad cursor", "Both tests pass."],
      ["Add an index on orders.created_at", "Added the index in migrations/0004_orders_created_at.sql."],
    ]);
    expect(JSON.stringify(result.turns)).not.toContain("Another language model");
    expect(JSON.stringify(result.turns)).not.toContain("## Goal");
  });

  test("a resumed parse after an append returns the whole abstract: the summary before the cut too", () => {
    const bytes = readFileSync(rollout);
    const cut = bytes.indexOf("Now add the tests") - 1;
    const cutAtLine = bytes.lastIndexOf(10, cut) + 1;
    const replay = replayAt(rollout, cutAtLine, {});
    expect(replay.first.session.abstract?.map((part) => part.text.slice(0, firstSummary.length))).toEqual([
      firstSummary,
    ]);
    expect(replay.resumed.bytesRead).toBeLessThan(bytes.length - cutAtLine + 1);
    expect(replay.resumed.session.abstract).toEqual(result.session.abstract);
    expectResumeMatchesFullParse(replayAt, rollout); // at every line: the session, abstract included, is the full one
  });

  test("the prefix is cut only when Codex wrote it; an empty or missing message is no summary", () => {
    expect(compactionSummary({ message: "  plain summary  " })).toBe("plain summary");
    expect(compactionSummary({ message: "" })).toBeNull();
    expect(compactionSummary({ replacement_history: [] })).toBeNull();
  });
});
