/**
 * A keyword MATCH as its phrases, and one phrase's ranking by FTS5: what the ranking from the index's own posting lists
 * (postings-ranking.ts) asks FTS5 for a phrase of several words or a prefix. FTS5's bm25() of a MATCH is a sum over its
 * phrases in phrase order, each phrase's part depending on that phrase alone (sqlite ext/fts5/fts5_aux.c,
 * fts5Bm25Function), so a phrase ranked alone gives its part of any MATCH's score: its negated rank.
 */

/**
 * Every document matching one phrase: ids ascending (doubles: a rowid may pass 2^31), and each one's bm25() rank
 * (lower is better).
 */
export interface PhraseRanking {
  ids: Float64Array;
  ranks: Float64Array;
}

/** A MATCH given as its phrases (each an FTS5 fragment, `"docker"` or `"src path"*`) and how they combine. */
export interface PhraseMatch {
  phrases: readonly string[];
  /** true: every phrase must match (the all-terms MATCH); false: any phrase (the any-term MATCH). */
  every: boolean;
}

/** Two rankings of adjacent id ranges (`lower`'s ids all below `upper`'s) as one. */
export function concatRankings(lower: PhraseRanking, upper: PhraseRanking): PhraseRanking {
  const ids = new Float64Array(lower.ids.length + upper.ids.length);
  const ranks = new Float64Array(ids.length);
  ids.set(lower.ids);
  ids.set(upper.ids, lower.ids.length);
  ranks.set(lower.ranks);
  ranks.set(upper.ranks, lower.ranks.length);
  return { ids, ranks };
}
