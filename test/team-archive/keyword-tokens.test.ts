import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { keywordTokenizer } from "../../src/index/schema.ts";
import { KeywordTokenizer, phraseFrequency } from "../../src/team-archive/keyword-tokens.ts";

// The archive's tokens must be FTS5's own (issue 30): each text below is stored in a real FTS5 table with the index's
// tokenizer, as a whole column (not unit by unit), and its tokens are read back through fts5vocab.
const texts = [
  "Fixed ERR_MODULE_NOT_FOUND in src/server/index.ts — running `bun test --watch` again",
  "Café naïve résumé ÉCOLE Straße İstanbul ﬁle",
  "the docker bridge network drops packets; set MTU=1450 and restart dockerd.service",
  "commit 7acd37a5f9 on branch feature/login-flow (PR #42), 3.14159 ≈ π",
  "日本語のテキスト and 中文 mixed with English words, emoji 🐳 and tabs\there\u00a0nbsp\u2003em-space",
  "snake_case camelCaseIdentifier kebab-case-word SCREAMING_CASE __dunder__ a.b.c",
  "relational, relationships, generalization, hopefully, conditional — Porter's harder endings",
  "",
  "   leading and trailing spaces   \n\n newlines\r\nand CRLF",
];

/** Each text's tokens per column, as FTS5 stored them (by offset). */
function fts5Tokens(columns: Array<[string, string, string]>): string[][][] {
  const db = new Database(":memory:");
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(heading, body, extra, tokenize = '${keywordTokenizer}')`);
  db.exec("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)");
  const insert = db.query("INSERT INTO t(rowid, heading, body, extra) VALUES (?, ?, ?, ?)");
  for (const [i, [heading, body, extra]] of columns.entries()) insert.run(i + 1, heading, body, extra);
  const out = columns.map(() => [[], [], []] as string[][]);
  const index = { heading: 0, body: 1, extra: 2 } as const;
  for (const row of db
    .query<{ term: string; doc: number; col: keyof typeof index }, []>(
      "SELECT term, doc, col FROM v ORDER BY doc, col, offset",
    )
    .all())
    out[row.doc - 1]![index[row.col]]!.push(row.term);
  db.close();
  return out;
}

describe("KeywordTokenizer: FTS5's tokens, outside the index (issue 30)", () => {
  const tokenizer = new KeywordTokenizer();
  afterAll(() => tokenizer.close());
  const columns = texts.map((text, i): [string, string, string] => [text, texts[(i + 1) % texts.length]!, `x ${text}`]);
  const expected = fts5Tokens(columns);

  test("every column's tokens equal FTS5's, in order, learnt in one batch", () => {
    tokenizer.learn(columns.flat());
    for (const [i, [heading, body, extra]] of columns.entries())
      expect([tokenizer.tokens(heading), tokenizer.tokens(body), tokenizer.tokens(extra)]).toEqual(expected[i]!);
    expect(tokenizer.tokens(texts[0]!)).toContain("run"); // Porter: running → run
    expect(tokenizer.tokens(texts[1]!)).toContain("cafe"); // diacritics removed
  });

  test("a unit never learnt is learnt on the spot, with the same tokens", () => {
    const fresh = new KeywordTokenizer();
    try {
      for (const [i, [heading]] of columns.entries()) expect(fresh.tokens(heading)).toEqual(expected[i]![0]!);
    } finally {
      fresh.close();
    }
  });

  test("documentTerms: length is every column's tokens, frequencies weigh the heading 2 and the others 1", () => {
    const terms = tokenizer.documentTerms({
      heading: "docker docker",
      body: "docker network",
      extra: "network",
      abstract: "",
    });
    expect(terms.length).toBe(5);
    expect(Object.fromEntries(terms.frequencies)).toEqual({ docker: 5, network: 2 });
  });

  test("documentTerms counts the abstract column (issue 41) with its weight, as FTS5's bm25 does", () => {
    const terms = tokenizer.documentTerms({
      heading: "docker",
      body: "",
      extra: "",
      abstract: "Compaction: the docker bridge network was migrated",
    });
    expect(terms.length).toBe(8);
    expect(Object.fromEntries(terms.frequencies)).toMatchObject({ docker: 2 + 1, bridg: 1, compact: 1 });
  });

  test("phraseFrequency counts consecutive tokens within one column, weighted by the column", () => {
    const columnsOf = {
      heading: "bridge network, bridge network",
      body: "bridge. network",
      extra: "bridge\nnetwork",
      abstract: "a bridge network",
    };
    // heading: 2 instances × 2; body: punctuation between does not break a phrase in FTS5 (1); extra: 1; abstract: 1
    expect(phraseFrequency(tokenizer, columnsOf, ["bridg", "network"])).toBe(7);
    expect(
      phraseFrequency(tokenizer, { heading: "network bridge", body: "", extra: "", abstract: "" }, [
        "bridg",
        "network",
      ]),
    ).toBe(0);
  });
});
