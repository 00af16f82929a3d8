/**
 * The local keyword index's tokens, computed outside it (issue 30): the team archive ranks by the same BM25 as local
 * search, so it needs the very tokens FTS5 stores (`porter unicode61 remove_diacritics 2`, index/schema.ts), which
 * index/tokens/keyword-tokens.ts computes token for token. Here: a document's BM25 inputs and a phrase's frequency.
 */
import { keywordTokens } from "../index/tokens/keyword-tokens.ts";
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

/** The BM25 inputs of one document: each column's tokens counted with its column's weight. */
export function documentTerms(columns: DocumentColumns): DocumentTerms {
  const frequencies = new Map<string, number>();
  let length = 0;
  for (const [column, text] of columnTexts(columns).entries()) {
    const weight = bm25ColumnWeights[column]!;
    for (const token of keywordTokens(text)) {
      frequencies.set(token, (frequencies.get(token) ?? 0) + weight);
      length++;
    }
  }
  return { length, frequencies };
}

/**
 * How often the token sequence `phrase` occurs in a document, each occurrence weighted by its column's weight, as
 * FTS5 counts a phrase's instances for bm25 (consecutive tokens of one column).
 */
export function phraseFrequency(columns: DocumentColumns, phrase: readonly string[]): number {
  let frequency = 0;
  for (const [column, text] of columnTexts(columns).entries()) {
    const tokens = keywordTokens(text);
    for (let i = 0; i + phrase.length <= tokens.length; i++) {
      let j = 0;
      while (j < phrase.length && tokens[i + j] === phrase[j]) j++;
      if (j === phrase.length) frequency += bm25ColumnWeights[column]!;
    }
  }
  return frequency;
}
