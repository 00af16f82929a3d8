import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { keywordTokens } from "../../../src/index/tokens/keyword-tokens.ts";
import { porterStem } from "../../../src/index/tokens/porter.ts";
import { corpusDir, hasCorpus } from "../../helpers/corpus.ts";
import { fts5Tokens } from "../../helpers/fts5-tokens.ts";

/** Files under `dir`, recursively (symbolic links left out), sorted. */
const filesUnder = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();

/** Texts whose tokens differ from FTS5's, with the first difference, for the failure message. */
function differences(texts: readonly string[]): string[] {
  const expected = fts5Tokens(texts);
  const out: string[] = [];
  for (const [i, text] of texts.entries()) {
    const tokens = keywordTokens(text);
    const at = tokens.findIndex((token, j) => token !== expected[i]![j]);
    if (at >= 0 || tokens.length !== expected[i]!.length)
      out.push(`text ${i}: ours ${JSON.stringify(tokens[at])}, FTS5 ${JSON.stringify(expected[i]![at])}`);
  }
  return out;
}

/** Text files cut into pieces of at most 256 KB (one FTS5 row each). */
function pieces(paths: readonly string[]): string[] {
  const out: string[] = [];
  for (const path of paths) {
    if (statSync(path).size > 64 * 1024 * 1024) continue;
    const text = readFileSync(path, "utf8");
    for (let at = 0; at < text.length; at += 256 * 1024) out.push(text.slice(at, at + 256 * 1024));
  }
  return out;
}

// Stems chosen to reach every condition of every step: m = 0, 1, 2, a y after a consonant or first, *o endings with
// w/x/y, double consonants (l, s, z and others), non-ASCII letters (every byte a consonant), and lengths near 3 and 64.
const stems = [
  "",
  "a",
  "b",
  "y",
  "by",
  "sy",
  "tr",
  "try",
  "hop",
  "hope",
  "fil",
  "fail",
  "feed",
  "agre",
  "con",
  "gener",
  "rel",
  "control",
  "roll",
  "fizz",
  "hiss",
  "bow",
  "box",
  "toy",
  "ab",
  "oa",
  "ea",
  "trouble",
  "ration",
  "sens",
  "adjust",
  "ж",
  "aж",
  "жa",
  "₂",
  "a₂",
  "x₂₂",
  "ﬁ",
  "naïv",
  "x".repeat(55),
  "y".repeat(58),
  "ab".repeat(28),
];
const suffixes = [
  "",
  "s",
  "es",
  "ies",
  "sses",
  "ss",
  "ed",
  "eed",
  "ing",
  "y",
  "e",
  "l",
  "ll",
  "at",
  "bl",
  "iz",
  "ational",
  "tional",
  "enci",
  "anci",
  "izer",
  "logi",
  "bli",
  "alli",
  "entli",
  "eli",
  "ousli",
  "ization",
  "ation",
  "ator",
  "alism",
  "iveness",
  "fulness",
  "ousness",
  "aliti",
  "iviti",
  "biliti",
  "ical",
  "ness",
  "icate",
  "iciti",
  "ful",
  "ative",
  "alize",
  "al",
  "ance",
  "ence",
  "er",
  "ic",
  "able",
  "ible",
  "ant",
  "ement",
  "ment",
  "ent",
  "ion",
  "sion",
  "tion",
  "ou",
  "ism",
  "ate",
  "iti",
  "ous",
  "ive",
  "ize",
];

describe("the porter step: FTS5's porter tokenizer, stem for stem", () => {
  test("every stem with every suffix and every pair of suffixes stems as FTS5 stems it", () => {
    const words = new Set<string>();
    for (const stem of stems)
      for (const first of suffixes) {
        words.add(stem + first);
        for (const second of suffixes) words.add(stem + first + second);
      }
    const list = [...words].filter(Boolean);
    expect(list.length).toBeGreaterThan(100_000);
    // one word per row (a token each), 4,096 rows at a time
    const failures: string[] = [];
    for (let at = 0; at < list.length; at += 4096) failures.push(...differences(list.slice(at, at + 4096)));
    expect(failures.slice(0, 5)).toEqual([]);
  }, 120_000);

  test("a few classic stems (Porter 1980) and FTS5's bounds", () => {
    expect(
      [
        "caresses",
        "ponies",
        "caress",
        "cats",
        "feed",
        "agreed",
        "plastered",
        "motoring",
        "sing",
        "hopping",
        "filing",
      ].map((w) => porterStem(w, true)),
    ).toEqual(["caress", "poni", "caress", "cat", "feed", "agre", "plaster", "motor", "sing", "hop", "file"]);
    expect(porterStem("is", true)).toBe("is"); // under 3 bytes
    expect(porterStem(`${"x".repeat(62)}ing`, true)).toBe(`${"x".repeat(62)}ing`); // 65 bytes
  });

  test("the test fixtures' every file tokenizes as FTS5 tokenizes it", () => {
    const texts = pieces(filesUnder(join(import.meta.dir, "../../fixtures")));
    expect(texts.length).toBeGreaterThan(50);
    expect(differences(texts).slice(0, 5)).toEqual([]);
  }, 120_000);

  test.skipIf(!hasCorpus)(
    "the real corpus's every file tokenizes as FTS5 tokenizes it (needs ../shared/corpus)",
    () => {
      const texts = pieces(filesUnder(corpusDir));
      expect(texts.length).toBeGreaterThan(100);
      expect(differences(texts).slice(0, 5)).toEqual([]);
    },
    120_000,
  );
});
