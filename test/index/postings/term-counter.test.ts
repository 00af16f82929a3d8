import { describe, expect, test } from "bun:test";
import { countDocumentTerms, termDictionarySize } from "../../../src/index/postings/term-counter.ts";
import { keywordTokens } from "../../../src/index/tokens/keyword-tokens.ts";
import { randomStream } from "../../helpers/ranking-corpus.ts";

// The counter must give keyword-tokens.ts's tokens (checked against FTS5 in test/index/tokens/ and, for whole
// documents, in document-terms.test.ts), whatever its dictionary holds from the documents before.

/** The terms and weighted counts of `texts`, in first-occurrence order, from keywordTokens: the reference. */
function reference(texts: readonly string[], weights: readonly number[]) {
  const counts = new Map<string, number>();
  let length = 0;
  texts.forEach((text, column) => {
    for (const token of keywordTokens(text)) {
      counts.set(token, (counts.get(token) ?? 0) + weights[column]!);
      length++;
    }
  });
  return { length, terms: [...counts.keys()], frequencies: [...counts.values()] };
}

function counted(texts: readonly string[], weights: readonly number[]) {
  const { length, terms, frequencies } = countDocumentTerms(texts, weights);
  return { length, terms, frequencies: [...frequencies] };
}

const pieces = [
  "Running",
  "RUNNING",
  "runs",
  "ERR_MODULE_NOT_FOUND",
  "src/server/index.ts",
  "Café",
  "naïve",
  "Straße",
  "İstanbul",
  "ﬁle",
  "日本語のテキスト",
  "🐳",
  "a\u0301b", // a diacritic inside a token
  "\u0301x", // a diacritic cannot start a token
  "foo—bar", // a non-ASCII separator inside an ASCII run
  "x".repeat(64),
  "Y".repeat(65),
  "z".repeat(40_000), // cut to FTS5's 32,768 bytes
  `é${"q".repeat(70)}`,
  "\ud800", // a lone surrogate separates
  "7acd37a5f9",
  "",
  " ",
  "\t\n",
  "relational",
  "generalization",
  "camelCaseIdentifier",
];

describe("countDocumentTerms: a document's keyword terms through the thread's dictionary", () => {
  test("random texts of ASCII, upper case, non-ASCII, long and cut tokens: the reference's terms and counts", () => {
    const random = randomStream(42);
    for (let document = 0; document < 300; document++) {
      const texts = Array.from({ length: 1 + Math.floor(random() * 4) }, () =>
        Array.from({ length: Math.floor(random() * 12) }, () => pieces[Math.floor(random() * pieces.length)]!).join(
          random() < 0.5 ? " " : random() < 0.5 ? "" : ".",
        ),
      );
      const weights = texts.map((_, column) => (column === 0 ? 2 : 1));
      expect(counted(texts, weights)).toEqual(reference(texts, weights));
    }
  });

  test("a document with more new tokens than the dictionary keeps, and the documents after it, count the same", () => {
    const many = Array.from({ length: 300_000 }, (_, i) => `t${i.toString(36)}`).join(" ");
    const weights = [2, 1];
    for (const texts of [
      [many, "Running the tests"],
      ["Running the tests", "t0 t1 t2 tzz"],
      [many.slice(0, 200_000), "é t5"],
    ]) {
      const expected = reference(texts, weights);
      const result = counted(texts, weights);
      expect(result.length).toBe(expected.length);
      expect(result.terms).toEqual(expected.terms);
      expect(result.frequencies).toEqual(expected.frequencies);
    }
    // bounded: the full table made the next document start over
    const size = termDictionarySize();
    expect(size.tableTokens + size.mapTokens).toBeLessThan(250_000);
  });

  test("weights: each occurrence counts its text's weight; no text, no terms", () => {
    expect(counted(["docker docker", "docker network", "network"], [2, 1, 1])).toEqual({
      length: 5,
      terms: ["docker", "network"],
      frequencies: [5, 2],
    });
    expect(counted([], [])).toEqual({ length: 0, terms: [], frequencies: [] });
    expect(counted(["", " — "], [2, 1])).toEqual({ length: 0, terms: [], frequencies: [] });
  });
});
