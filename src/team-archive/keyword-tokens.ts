/**
 * A phrase's frequency in a document, computed outside the local index (issue 30): the team archive ranks by the same
 * BM25 as local search, so it counts a phrase's instances with the very tokens FTS5 stores (index/tokens/
 * keyword-tokens.ts). A document's length and word frequencies are index/postings/document-terms.ts's.
 */
import { bm25ColumnWeights, columnTexts, type DocumentColumns } from "../index/postings/document-terms.ts";
import { keywordTokens } from "../index/tokens/keyword-tokens.ts";

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
