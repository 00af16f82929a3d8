import { describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { keywordTokenizer } from "../../../src/index/schema.ts";
import { type DocumentColumns, type DocumentTerms, documentTerms } from "../../../src/index/postings/document-terms.ts";

// A document's BM25 inputs must be FTS5's own (issue 30): each document below is stored in a real FTS5 table with the
// index's tokenizer and column weights, and its length and term frequencies are read back through fts5vocab.
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

/** Each document's BM25 inputs as FTS5 holds them: tokens in all columns, and each term's column-weighted count. */
function fts5DocumentTerms(documents: DocumentColumns[]): DocumentTerms[] {
  const db = new Database(":memory:");
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(heading, body, extra, abstract, tokenize = '${keywordTokenizer}')`);
  db.exec("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)");
  const insert = db.query("INSERT INTO t(rowid, heading, body, extra, abstract) VALUES (?, ?, ?, ?, ?)");
  for (const [i, d] of documents.entries()) insert.run(i + 1, d.heading, d.body, d.extra, d.abstract);
  const out = documents.map((): DocumentTerms => ({ length: 0, frequencies: new Map() }));
  const weight = { heading: 2, body: 1, extra: 1, abstract: 1 } as const;
  for (const row of db
    .query<{ term: string; doc: number; col: keyof typeof weight }, []>("SELECT term, doc, col FROM v")
    .all()) {
    const terms = out[row.doc - 1]!;
    terms.length++;
    terms.frequencies.set(row.term, (terms.frequencies.get(row.term) ?? 0) + weight[row.col]);
  }
  db.close();
  return out;
}

describe("documentTerms: FTS5's BM25 inputs, outside the index (issue 30)", () => {
  test("every document's length and term frequencies equal FTS5's", () => {
    const documents = texts.map(
      (text, i): DocumentColumns => ({
        heading: text,
        body: texts[(i + 1) % texts.length]!,
        extra: `x ${text}`,
        abstract: i % 2 === 0 ? texts[(i + 2) % texts.length]! : "",
      }),
    );
    const expected = fts5DocumentTerms(documents);
    for (const [i, d] of documents.entries()) {
      const terms = documentTerms(d);
      expect({ length: terms.length, frequencies: Object.fromEntries(terms.frequencies) }).toEqual({
        length: expected[i]!.length,
        frequencies: Object.fromEntries(expected[i]!.frequencies),
      });
    }
    expect(documentTerms(documents[0]!).frequencies.get("run")).toBe(2 + 1); // Porter: running → run, heading 2
    expect(documentTerms(documents[1]!).frequencies.get("cafe")).toBe(2 + 1); // diacritics removed
  });

  test("documentTerms: length is every column's tokens, frequencies weigh the heading 2 and the others 1", () => {
    const terms = documentTerms({
      heading: "docker docker",
      body: "docker network",
      extra: "network",
      abstract: "",
    });
    expect(terms.length).toBe(5);
    expect(Object.fromEntries(terms.frequencies)).toEqual({ docker: 5, network: 2 });
  });

  test("documentTerms counts the abstract column (issue 41) with its weight, as FTS5's bm25 does", () => {
    const terms = documentTerms({
      heading: "docker",
      body: "",
      extra: "",
      abstract: "Compaction: the docker bridge network was migrated",
    });
    expect(terms.length).toBe(8);
    expect(Object.fromEntries(terms.frequencies)).toMatchObject({ docker: 2 + 1, bridg: 1, compact: 1 });
  });
});
