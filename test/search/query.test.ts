import { describe, expect, test } from "bun:test";
import { parseLexicalQuery, tokenize } from "../../src/search/index.ts";
import { embeddableQueryText, sanitizeQueryText, stopWords, stripPossessive } from "../../src/search/ranking/query.ts";

describe("parseLexicalQuery", () => {
  test("identifiers become phrases of their parts, so they match exactly where the parts stand together", () => {
    expect(parseLexicalQuery("ERR_MODULE_NOT_FOUND").terms).toEqual(['"err module not found"']);
    expect(parseLexicalQuery("src/path/file.ts").terms).toEqual(['"src path file ts"']);
    expect(parseLexicalQuery("--no-verify").terms).toEqual(['"no verify"']);
    expect(parseLexicalQuery("kebab-case-name snake_case_name").terms).toEqual([
      '"kebab case name"',
      '"snake case name"',
    ]);
    expect(parseLexicalQuery("9f76d25d-1f33-4fbb-bff8-d3a7c5cfe15d").terms).toEqual([
      '"9f76d25d 1f33 4fbb bff8 d3a7c5cfe15d"',
    ]);
  });

  test("FTS5 operators and syntax in user text are plain words inside quotes", () => {
    const query = parseLexicalQuery('NEAR(docker OR network) AND "bridge" NOT col:value* ^start');
    // `NEAR(docker` is one chunk → a phrase; `AND`/`OR` are stop words here and `NOT` a plain word, not operators.
    expect(query.terms).toEqual(['"bridge"', '"near docker"', '"col value"', '"network"', '"not"', '"start"']);
    expect(query.allTerms).toBe('"bridge" "near docker" "col value" "network" "not" "start"');
    for (const term of query.terms) expect(term).toMatch(/^"[\p{L}\p{N} ]+"\*?$/u);
  });

  test("a natural-language question drops its stop words and offers an any-term fallback", () => {
    const query = parseLexicalQuery("how did we fix the failing login test?");
    expect(query.terms).toEqual(['"fix"', '"failing"', '"login"', '"test"']);
    expect(query.anyTerm).toBe('"fix" OR "failing" OR "login" OR "test"');
  });

  test("a query of only stop words keeps them rather than searching for nothing", () => {
    expect(parseLexicalQuery("what is this").terms).toEqual(['"what"', '"is"', '"this"']);
  });

  test("id-like words also match as prefixes", () => {
    expect(parseLexicalQuery("7acd37a").terms).toEqual(['"7acd37a"*']);
    expect(parseLexicalQuery("docker").terms).toEqual(['"docker"']);
  });

  test("unbalanced quotes, emoji, control characters and lone surrogates never produce invalid terms", () => {
    for (const text of ['"unbalanced', "🐳 docker 👨‍👩‍👧", "a\u0000b\u0007c", "x\ud800y", "((((", '""', "*"]) {
      const query = parseLexicalQuery(text);
      for (const term of query.terms) expect(term).toMatch(/^"[\p{L}\p{N} ]+"\*?$/u);
    }
    expect(parseLexicalQuery("🐳 ((( *** ").terms).toEqual([]);
  });

  test("10 KB of text is capped to a bounded number of terms", () => {
    const words = Array.from({ length: 2000 }, (_, i) => `word${i}x`).join(" ");
    expect(parseLexicalQuery(words).terms.length).toBeLessThanOrEqual(32);
  });

  test("tokenize lower-cases and splits like the unicode61 tokenizer", () => {
    expect(tokenize("Fix the CSS-grid, v2.0!")).toEqual(["fix", "the", "css", "grid", "v2", "0"]);
  });
});

describe("invisible characters in queries (issue 9)", () => {
  const invisibles = [
    "\u200b",
    "\ufeff",
    "\u00ad",
    "\u200e",
    "\u200f",
    "\u202e",
    "\u2060",
    "\u2066",
    "\u180e",
    "\u{e0041}",
    "\u200c",
    "\u200d",
  ];

  test("a query of only zero-width spaces, BOMs, bidi marks or other format characters has nothing to embed or match", () => {
    for (const text of [...invisibles, invisibles.join(""), "\u200b \u200b\t\ufeff", "\u200b".repeat(5000)]) {
      expect(embeddableQueryText(text)).toBeNull();
      expect(parseLexicalQuery(text).terms).toEqual([]);
    }
  });

  test("invisible characters inside words are removed, so a pasted word still matches", () => {
    expect(sanitizeQueryText("dock\u200ber net\u00adwork\ufeff")).toBe("docker network");
    expect(parseLexicalQuery("dock\u200ber").terms).toEqual(['"docker"']);
    expect(embeddableQueryText("  \u200bdocker\u200b   network  ")).toBe("docker network");
  });

  test("visible text keeps its meaning: emoji, punctuation, non-Latin scripts and ZWNJ inside Persian words", () => {
    expect(embeddableQueryText("🐳")).toBe("🐳");
    expect(embeddableQueryText("((( ***")).toBe("((( ***");
    expect(embeddableQueryText("می\u200cخواهم")).toBe("می\u200cخواهم");
    expect(embeddableQueryText("데이터베이스 연결")).toBe("데이터베이스 연결");
  });
});

describe("stop words and possessives found by the LoCoMo benchmark (issue 13)", () => {
  test("content words a question hinges on are kept: find, found, show, tell, remember, recall, session(s), please, ever", () => {
    expect(parseLexicalQuery("Which show did Deborah go to?").terms).toEqual(['"show"', '"deborah"', '"go"']);
    expect(parseLexicalQuery("what did we find when the file was not found").terms).toEqual([
      '"find"',
      '"file"',
      '"not"',
      '"found"',
    ]);
    expect(parseLexicalQuery("tell me what you remember or recall of the sessions, please").terms).toEqual([
      '"tell"',
      '"remember"',
      '"recall"',
      '"sessions"',
      '"please"',
    ]);
    expect(parseLexicalQuery("has she ever been to the session").terms).toEqual(['"ever"', '"session"']);
    for (const word of [
      "find",
      "found",
      "show",
      "tell",
      "remember",
      "recall",
      "session",
      "sessions",
      "please",
      "ever",
    ]) {
      expect(stopWords.has(word)).toBe(false);
    }
  });

  test("particles and negations are kept: up, out, down, off, over, own, not, no", () => {
    expect(parseLexicalQuery("how did we sign up and time out").terms).toEqual(['"sign"', '"up"', '"time"', '"out"']);
    expect(parseLexicalQuery("is the server down or off").terms).toEqual(['"server"', '"down"', '"off"']);
    expect(parseLexicalQuery("did she start her own business over the summer").terms).toEqual([
      '"start"',
      '"own"',
      '"business"',
      '"over"',
      '"summer"',
    ]);
    expect(parseLexicalQuery("why does no test run, not one").terms).toEqual([
      '"no"',
      '"test"',
      '"run"',
      '"not"',
      '"one"',
    ]);
  });

  test("true function words are still dropped", () => {
    expect(parseLexicalQuery("what did the one of them do with it").terms).toEqual(['"one"']);
    for (const word of ["the", "a", "of", "did", "what", "with", "it", "is"]) expect(stopWords.has(word)).toBe(true);
  });

  test('a possessive searches for the name alone: Caroline\'s → caroline, not the phrase "caroline s"', () => {
    expect(parseLexicalQuery("What is Caroline's relationship status?").terms).toEqual([
      '"caroline"',
      '"relationship"',
      '"status"',
    ]);
    expect(parseLexicalQuery("Melanie’s kids").terms).toEqual(['"melanie"', '"kids"']);
    expect(parseLexicalQuery("James's dog, the friends' trip").terms).toEqual([
      '"james"',
      '"dog"',
      '"friends"',
      '"trip"',
    ]);
    expect(parseLexicalQuery("Caroline's").highlightWords).toEqual(["caroline"]);
  });

  test("stripPossessive removes only an ending 's or s', before trailing punctuation", () => {
    expect(stripPossessive("Caroline's")).toBe("Caroline");
    expect(stripPossessive("Caroline's?")).toBe("Caroline?");
    expect(stripPossessive("friends'")).toBe("friends");
    expect(stripPossessive("rock'n'roll")).toBe("rock'n'roll");
    expect(stripPossessive("'s")).toBe("'s");
    expect(stripPossessive("it's")).toBe("it");
  });

  test("user-quoted text and identifiers keep their words and apostrophes as written", () => {
    expect(parseLexicalQuery('"Caroline\'s show"').terms).toEqual(['"caroline s show"']);
    expect(parseLexicalQuery("ERR_MODULE_NOT_FOUND").terms).toEqual(['"err module not found"']);
  });
});
