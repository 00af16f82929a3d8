/**
 * The local keyword index's tokens, computed outside it (issue 30): the team archive ranks by the same BM25 as local
 * search, so it needs the very tokens FTS5 stores (`porter unicode61 remove_diacritics 2`, index/schema.ts). Rather
 * than a second tokenizer and stemmer that would differ on some words, SQLite's own does the work: text is split at
 * whitespace into units (every whitespace character is a separator for unicode61, whose token characters are the
 * letter, number and private-use categories, so a unit never shares a token with its neighbours), and each unit not
 * seen before is tokenized once by an in-memory FTS5 table with the index's tokenizer and read back through fts5vocab
 * (`instance`: term, row, column, offset). A unit's tokens are then a map lookup: `src/a_b.ts` → `src a b ts`,
 * `Running` → `run`, `Café` → `cafe`.
 */
import { Database } from "bun:sqlite";
import { keywordTokenizer } from "../index/schema.ts";
import { bm25ColumnWeights } from "../search/ranking/match-window.ts";

/**
 * The four searched columns of a document, as the local index's FTS5 table holds them (index/write/documents.ts
 * DocumentText): heading, body, extra, and abstract (a session document's summary and abstract, issue 41; "" for a turn
 * document). Their order is {@link bm25ColumnWeights}'s.
 */
export interface DocumentColumns {
  heading: string;
  body: string;
  extra: string;
  abstract: string;
}

/** A document's columns in {@link bm25ColumnWeights}' order. */
const columnTexts = (d: DocumentColumns): string[] => [d.heading, d.body, d.extra, d.abstract];

/** The BM25 inputs of one document: its length and each term's column-weighted frequency. */
export interface DocumentTerms {
  /** Tokens in all four columns (FTS5's xColumnSize(-1): bm25's D). */
  length: number;
  /** Term → Σ over its occurrences of the column's weight (heading 2, body, extra and abstract 1): bm25's f(q, D). */
  frequencies: Map<string, number>;
}

/** Units remembered at most; the cache is cleared past it (a unit's tokens cost one FTS5 row to learn again). */
const maxCachedUnits = 1_000_000;

const whitespace = /\s+/;

/**
 * FTS5-identical tokens of text, with a cache of units. One instance per push or search; `close()` frees its
 * in-memory database.
 */
export class KeywordTokenizer {
  private readonly db = new Database(":memory:");
  private readonly units = new Map<string, readonly string[]>();

  constructor() {
    this.db.exec(`CREATE VIRTUAL TABLE units USING fts5(unit, tokenize = '${keywordTokenizer}')`);
    this.db.exec("CREATE VIRTUAL TABLE unit_tokens USING fts5vocab(units, instance)");
  }

  /**
   * Learn the tokens of every unit of `texts` not cached yet, in one FTS5 pass (call it with a whole batch before
   * {@link tokens}: a unit never learnt is learnt alone, which is correct but slower).
   */
  learn(texts: Iterable<string>): void {
    const unknown = new Set<string>();
    for (const text of texts)
      for (const unit of text.split(whitespace)) if (unit !== "" && !this.units.has(unit)) unknown.add(unit);
    this.learnUnits(unknown);
  }

  private learnUnits(unknown: ReadonlySet<string>): void {
    if (unknown.size === 0) return;
    if (this.units.size + unknown.size > maxCachedUnits) this.units.clear();
    const list = [...unknown];
    const insert = this.db.query("INSERT INTO units(rowid, unit) VALUES (?, ?)");
    this.db.transaction(() => {
      for (const [i, unit] of list.entries()) insert.run(i + 1, unit);
    })();
    const tokensOf: string[][] = list.map(() => []);
    for (const row of this.db
      .query<{ term: string; doc: number }, []>("SELECT term, doc FROM unit_tokens ORDER BY doc, offset")
      .all())
      tokensOf[row.doc - 1]!.push(row.term);
    this.db.exec("DELETE FROM units");
    for (const [i, unit] of list.entries()) this.units.set(unit, tokensOf[i]!);
  }

  /**
   * The BM25 inputs of each document: every column is split once, the units not cached yet are learnt in one FTS5
   * pass, and each unit's tokens are counted with its column's weight.
   */
  documentTermsOf(documents: readonly DocumentColumns[]): DocumentTerms[] {
    const split = documents.map((d) => columnTexts(d).map((text) => text.split(whitespace)));
    const unknown = new Set<string>();
    for (const columns of split)
      for (const units of columns) for (const unit of units) if (!this.units.has(unit)) unknown.add(unit);
    this.learnUnits(unknown);
    return split.map((columns) => {
      const frequencies = new Map<string, number>();
      let length = 0;
      for (const [column, units] of columns.entries()) {
        const weight = bm25ColumnWeights[column]!;
        for (const unit of units)
          for (const token of this.units.get(unit) ?? []) {
            frequencies.set(token, (frequencies.get(token) ?? 0) + weight);
            length++;
          }
      }
      return { length, frequencies };
    });
  }

  /** The tokens of `text` in order, as FTS5 stores them. */
  tokens(text: string): string[] {
    const out: string[] = [];
    for (const unit of text.split(whitespace)) {
      if (unit === "") continue;
      let tokens = this.units.get(unit);
      if (tokens === undefined) {
        this.learn([unit]);
        tokens = this.units.get(unit) ?? [];
      }
      for (const token of tokens) out.push(token);
    }
    return out;
  }

  /** The BM25 inputs of one document. */
  documentTerms(columns: DocumentColumns): DocumentTerms {
    return this.documentTermsOf([columns])[0]!;
  }

  /** Free the in-memory database. */
  close(): void {
    this.db.close();
  }
}

/**
 * How often the token sequence `phrase` occurs in a document, each occurrence weighted by its column's weight, as
 * FTS5 counts a phrase's instances for bm25 (consecutive tokens of one column).
 */
export function phraseFrequency(
  tokenizer: KeywordTokenizer,
  columns: DocumentColumns,
  phrase: readonly string[],
): number {
  let frequency = 0;
  for (const [column, text] of columnTexts(columns).entries()) {
    const tokens = tokenizer.tokens(text);
    for (let i = 0; i + phrase.length <= tokens.length; i++) {
      let j = 0;
      while (j < phrase.length && tokens[i + j] === phrase[j]) j++;
      if (j === phrase.length) frequency += bm25ColumnWeights[column]!;
    }
  }
  return frequency;
}
