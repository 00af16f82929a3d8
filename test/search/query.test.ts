import { describe, expect, test } from "bun:test";
import { parseLexicalQuery, tokenize } from "../../src/search/index.ts";

describe("parseLexicalQuery", () => {
  test("identifiers become phrases of their parts, so they match exactly where the parts stand together", () => {
    expect(parseLexicalQuery("ERR_MODULE_NOT_FOUND").terms).toEqual(['"err module not found"']);
    expect(parseLexicalQuery("src/path/file.ts").terms).toEqual(['"src path file ts"']);
    expect(parseLexicalQuery("--no-verify").terms).toEqual(['"no verify"']);
    expect(parseLexicalQuery("kebab-case-name snake_case_name").terms).toEqual(['"kebab case name"', '"snake case name"']);
    expect(parseLexicalQuery("9f76d25d-1f33-4fbb-bff8-d3a7c5cfe15d").terms).toEqual(['"9f76d25d 1f33 4fbb bff8 d3a7c5cfe15d"']);
  });

  test("FTS5 operators and syntax in user text are plain words inside quotes", () => {
    const query = parseLexicalQuery('NEAR(docker OR network) AND "bridge" NOT col:value* ^start');
    // `NEAR(docker` is one chunk → a phrase; `AND`/`OR`/`NOT` are stop words here, not operators.
    expect(query.terms).toEqual(['"bridge"', '"near docker"', '"col value"', '"network"', '"start"']);
    expect(query.allTerms).toBe('"bridge" "near docker" "col value" "network" "start"');
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
