/**
 * Scores that read as unsorted (issue 38, item 4): results are ranked by relevance, and the number printed on each is
 * its confidence, which can rise down the list (`[0.76] [0.77] [0.19] [0.31]`). The text answer says so under its
 * header exactly when the printed numbers rise; searched on the shipped example history.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { paletteFor } from "../../src/render/format.ts";
import { rankOrderNote, renderSearchText } from "../../src/render/search.ts";
import { type SearchResponse, type SessionResult, searchIndex } from "../../src/search/index.ts";

const repo = resolve(import.meta.dir, "../..");
const home = mkdtempSync(join(tmpdir(), "recall-rank-order-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("what the order of results follows (issue 38, item 4)", () => {
  test("the note appears under the header when a printed confidence rises down the list, and only then", async () => {
    await runIndex({
      recallHome: home,
      roots: { "claude-code": [join(repo, "examples/claude-code")], opencode: [join(repo, "examples/opencode")] },
    });
    const db = openIndex(databasePath(home), { readonly: true });
    try {
      const found = await searchIndex(db, { query: "fix the build", level: "session", filters: {}, mode: "keyword" });
      expect(found.results.length).toBeGreaterThanOrEqual(3);
      const palette = await paletteFor(1, { NO_COLOR: "1" });
      // As ranked here, the confidences fall: no note.
      const falling = found.results.map((result) => result.confidence);
      expect(falling).toEqual([...falling].sort((a, b) => b - a));
      expect(renderSearchText(found, palette)).not.toContain("Ranked by relevance");
      // The third result's confidence above the second's, as a paraphrase's better evidence can make it.
      const results = found.results as SessionResult[];
      const [first, second, third, ...rest] = results;
      const rising: SearchResponse = {
        ...found,
        results: [first!, second!, { ...third!, confidence: second!.confidence + 0.01 }, ...rest],
      };
      for (const format of ["full", "index"] as const) {
        const lines = renderSearchText(rising, palette, { format }).split("\n");
        expect(lines.slice(0, 4)).toContain(rankOrderNote(rising.results)!);
      }
    } finally {
      db.close();
    }
  });

  test("equal printed numbers are not a rise", () => {
    expect(rankOrderNote([{ confidence: 0.771 }, { confidence: 0.774 }, { confidence: 0.2 }])).toBeUndefined();
    expect(rankOrderNote([{ confidence: 0.76 }, { confidence: 0.77 }])).toContain("need not fall with the rank");
    expect(rankOrderNote([])).toBeUndefined();
  });
});
