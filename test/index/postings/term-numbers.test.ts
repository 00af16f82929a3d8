import { describe, expect, test } from "bun:test";
import { TermNumbers } from "../../../src/index/postings/term-numbers.ts";
import { randomStream } from "../../helpers/ranking-corpus.ts";

/** Each term's number as a map of strings gives it: the order of its first occurrence. The reference. */
function referenceNumbers(documents: readonly string[]): { numbers: number[]; terms: string[] } {
  const byTerm = new Map<string, number>();
  const numbers: number[] = [];
  for (const joined of documents) {
    if (joined === "") continue;
    for (const term of joined.split("\n")) {
      if (!byTerm.has(term)) byTerm.set(term, byTerm.size);
      numbers.push(byTerm.get(term)!);
    }
  }
  return { numbers, terms: [...byTerm.keys()] };
}

function numbered(documents: readonly string[]): { numbers: number[]; terms: string[] } {
  const termNumbers = new TermNumbers();
  const numbers: number[] = [];
  for (const joined of documents) termNumbers.forEachNumber(joined, (number) => numbers.push(number));
  return { numbers, terms: termNumbers.terms };
}

describe("TermNumbers: a segment's terms numbered in place, as a map of strings numbers them", () => {
  test("random documents of short, long, non-ASCII and astral terms, past several doublings of the table", () => {
    const random = randomStream(7);
    const alphabet = ["a", "b", "z", "0", "9", "é", "ß", "日", "🐳", "\ud800"];
    const term = () => {
      const length = 1 + Math.floor(random() ** 3 * 40);
      let text = "";
      for (let i = 0; i < length; i++) text += alphabet[Math.floor(random() ** 2 * alphabet.length)]!;
      return text;
    };
    const vocabulary = Array.from({ length: 20_000 }, term);
    const documents = Array.from({ length: 2_000 }, () => {
      const terms = new Set<string>();
      const count = Math.floor(random() * 30);
      for (let i = 0; i < count; i++) terms.add(vocabulary[Math.floor(random() * vocabulary.length)]!);
      return [...terms].join("\n");
    });
    const expected = referenceNumbers(documents);
    expect(expected.terms.length).toBeGreaterThan(4096); // the table (4,096 slots at first) doubled
    expect(numbered(documents)).toEqual(expected);
  });

  test("an empty document holds no term; terms that differ in one unit or in length are different terms", () => {
    expect(numbered(["", "ab\nab\nabc", "", "abd\nab\na"])).toEqual({
      numbers: [0, 0, 1, 2, 0, 3],
      terms: ["ab", "abc", "abd", "a"],
    });
  });
});
