/**
 * What SQLite's FTS5 itself makes of texts (the reference the TypeScript tokenizer is tested against): each text is one
 * row of an in-memory FTS5 table with the given tokenizer, read back through fts5vocab `instance` in offset order.
 */
import { Database } from "bun:sqlite";
import { keywordTokenizer } from "../../src/index/schema.ts";

/**
 * The tokens FTS5 stores for each text, in order.
 * @param tokenizer an FTS5 `tokenize` argument; the keyword index's by default
 */
export function fts5Tokens(texts: readonly string[], tokenizer: string = keywordTokenizer): string[][] {
  const db = new Database(":memory:");
  try {
    db.exec(`CREATE VIRTUAL TABLE t USING fts5(text, tokenize = '${tokenizer}')`);
    db.exec("CREATE VIRTUAL TABLE v USING fts5vocab(t, instance)");
    const insert = db.query("INSERT INTO t(rowid, text) VALUES (?, ?)");
    db.transaction(() => {
      for (const [i, text] of texts.entries()) insert.run(i + 1, text);
    })();
    const out = texts.map((): string[] => []);
    for (const [doc, term] of db.query("SELECT doc, term FROM v ORDER BY doc, offset").values() as Array<
      [number, string]
    >)
      out[doc - 1]!.push(term);
    return out;
  } finally {
    db.close();
  }
}
