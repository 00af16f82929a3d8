/**
 * A document's BM25 inputs, computed outside FTS5 with FTS5's own tokens (`porter unicode61 remove_diacritics 2`,
 * index/schema.ts, which index/tokens/keyword-tokens.ts computes token for token): its length and each term's
 * column-weighted frequency, as bm25() counts them (sqlite ext/fts5/fts5_aux.c, fts5Bm25Function). The local index's
 * own posting lists (keyword-postings.ts) and the team archive's are built from them.
 */
import { countDocumentTerms } from "./term-counter.ts";

/**
 * bm25() column weights, in the order of `documents_fts`'s columns: heading 2 (the prompt, or the session title), body
 * 1, extra 1 (tool inputs and files), abstract 1 (a session's summary and the abstract its agent wrote, issue 41: 1 and
 * 2 measured, see that closing note). Integers, so a term's weighted frequency is an integer.
 */
export const bm25ColumnWeights: readonly number[] = [2, 1, 1, 1];

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
export const columnTexts = (d: DocumentColumns): string[] => [d.heading, d.body, d.extra, d.abstract];

/** The BM25 inputs of one document: its length and each term's column-weighted frequency. */
export interface DocumentTerms {
  /** Tokens in all four columns (FTS5's xColumnSize(-1): bm25's D). */
  length: number;
  /** Term → Σ over its occurrences of the column's weight (heading 2, body, extra and abstract 1): bm25's f(q, D). */
  frequencies: Map<string, number>;
}

/** The BM25 inputs of one document: each column's tokens counted with its column's weight (term-counter.ts). */
export function documentTerms(columns: DocumentColumns): DocumentTerms {
  const { length, terms, frequencies } = countDocumentTerms(columnTexts(columns), bm25ColumnWeights);
  return { length, frequencies: new Map(terms.map((term, index) => [term, frequencies[index]!])) };
}

/**
 * {@link DocumentTerms} in a form that is cheap to send between threads and to hold by the thousand (a parse worker
 * computes it, the writer thread queues it: index/postings/keyword-postings.ts): the terms joined by "\n" (a
 * separator, so never inside a token), and their frequencies in the same order.
 */
export interface PackedDocumentTerms {
  /** Tokens in all four columns (bm25's D). */
  length: number;
  /** The distinct terms, joined by "\n"; "" when there are none. */
  terms: string;
  /** Each term's column-weighted frequency, in the order of `terms`. */
  frequencies: Uint32Array;
}

/**
 * A document's BM25 inputs, packed (see {@link PackedDocumentTerms}): each column's tokens counted with its column's
 * weight (term-counter.ts), terms in the order of their first occurrence.
 */
export function packedDocumentTerms(columns: DocumentColumns): PackedDocumentTerms {
  const { length, terms, frequencies } = countDocumentTerms(columnTexts(columns), bm25ColumnWeights);
  return { length, terms: terms.join("\n"), frequencies };
}
