import { describe, expect, test } from "bun:test";
import { makePreview } from "../../src/search/reading/preview.ts";

const highlighted = (preview: { text: string; highlights: Array<[number, number]> }) =>
  preview.highlights.map(([start, end]) => preview.text.slice(start, end));

describe("previews (issue 26)", () => {
  test("a CJK query word inside a longer run is found and highlighted, and the window is around it", () => {
    const text = `${"これは前置きの長い説明です。".repeat(30)} 我们发现调度器介入时 worker 会阻塞 ${"后面还有很多无关的内容。".repeat(30)}`;
    const preview = makePreview(text, ["调度器"]);
    expect(preview.text).toContain("调度器介入时");
    expect(highlighted(preview)).toEqual(["调度器"]);
  });

  test("a window after a spaced prefix still holds the CJK match (it used to jump to the next space past it)", () => {
    const text = `start ${"前".repeat(400)}调度器${"后".repeat(400)} end`;
    const preview = makePreview(text, ["调度器"]);
    expect(highlighted(preview)).toEqual(["调度器"]);
  });

  test("the preview is taken from what the user typed, not from a block the IDE injected, unless only the block matches", () => {
    const prompt =
      "<ide_opened_file>The user opened the file /home/dev/proj/src/login.ts in the IDE. This may or may not be related to the current task.</ide_opened_file>\nwhy is the login page slow";
    expect(makePreview(prompt, ["slow"]).text).toBe("why is the login page slow");
    expect(makePreview(prompt, []).text).toBe("why is the login page slow");
    expect(highlighted(makePreview(prompt, ["login.ts"]))).toContain("login");
  });
});

describe("preview matches found by one pattern equal those found word by word", () => {
  // The rule the pattern must keep: a word of letters and digits matches when its first 5 characters, lower-cased,
  // equal those of a query word (the whole word when shorter).
  const wordByWord = (text: string, queryWords: string[]) => {
    const keys = new Set(queryWords.filter((word) => word.length > 1).map((word) => word.toLowerCase().slice(0, 5)));
    return [...text.matchAll(/[\p{L}\p{N}]+/gu)]
      .filter((match) => keys.has(match[0].toLowerCase().slice(0, 5)))
      .map((match) => match[0]);
  };
  const cases: Array<[string, string[]]> = [
    ["React reacts REACTIVE reactor; preact is not react-dom's start", ["react"]],
    ["db dbx DB db2 the_db adb x.db", ["db"]],
    ["Migration migrating MIGRATED migrate2 immigration", ["migrations", "db"]],
    ["ΣΟΦΙΑ σοφία Σοφίας σοφός", ["σοφία"]],
    ["İstanbul istanbul ISTANBUL İSTANBUL", ["istanbul"]],
    ["İstanbul i̇stanbul", ["İstanbul"]],
    ["Kelvin \u212Aelvin KELVIN", ["kelvin"]],
    ["STRASSE straße Straßenbahn", ["straße"]],
    ["v2 V2 2024 20245 x2024", ["2024", "v2"]],
    ["𝒜𝒷𝒸𝒹𝑒𝒻 𝒜𝒷𝒸", ["𝒜𝒷𝒸𝒹𝑒𝒻"]],
    ["café CAFÉ cafe cafés", ["café"]],
    ["a (b) [c] $d ^e", ["(b)", "$d"]],
  ];
  for (const [text, words] of cases) {
    test(`${JSON.stringify(words)} in ${JSON.stringify(text)}`, () => {
      expect(highlighted(makePreview(text, words, 1000))).toEqual(wordByWord(text, words));
    });
  }
});
