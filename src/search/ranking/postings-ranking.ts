/**
 * The best k documents of a keyword MATCH from the index's own posting lists (index/postings/keyword-postings.ts,
 * issue 42), with FTS5's bm25() scores bit for bit, at 5–10 ns a posting once the JIT has warmed up (~100 ns in a
 * one-shot process) instead of bm25()'s 0.5–0.7 µs a row.
 *
 * FTS5's bm25() (sqlite ext/fts5/fts5_aux.c, fts5Bm25Function) is a sum over the query's phrases in phrase order,
 *   score(D) = Σ_i idf(i) · ((f(i, D) · (k1 + 1)) / (f(i, D) + k1 · (1 − b + b · |D| / avgdl))),  k1 = 1.2, b = 0.75,
 *   idf(i) = ln((N − n(i) + 0.5) / (n(i) + 0.5)), 1e-6 when not above 0; rank = −score,
 * and a phrase absent from D adds exactly 0. A one-word phrase's part is computed here from its posting list (f, |D|)
 * with N and avgdl from FTS5's own totals, in the same operation order as the C code, so the doubles are the same; a
 * phrase of several words or a prefix is ranked by FTS5 alone (its ranks are that phrase's parts, see
 * phrase-rankings.ts).
 *
 * Term-at-a-time evaluation with one accumulator per document (Moffat & Zobel, "Self-indexing inverted files for fast
 * text retrieval", ACM TOIS 14(4), 1996), the lists taken in phrase order so that each accumulator adds the parts in
 * bm25()'s order, and a count of the phrases found (every phrase: only documents found in all of them); then the k best
 * by a selection of the k-th score (Hoare). Ties keep the lower id, as FTS5's ORDER BY rank does here (tested).
 * Measured against MaxScore (Turtle & Flood, IPM 1995) document at a time over the same decoded lists: with bounds from
 * a list's largest f and smallest |D| it pruned nothing on a common-word query at 20k sessions and cost 75 ns a posting,
 * against 5–10 here (see the issue 42 closing note); pruning pays once blocks can be skipped without decoding them.
 */
import type { Database } from "bun:sqlite";
import {
  DamagedPostingsError,
  readTermPostings,
  type StaleDocuments,
  staleDocuments,
  totalsInStep,
} from "../../index/postings/keyword-postings.ts";
import { keywordTokens } from "../../index/tokens/keyword-tokens.ts";
import type { RankedDocument } from "./match-window.ts";
import type { PhraseMatch, PhraseRanking } from "./phrase-rankings.ts";
import { termWords } from "./query.ts";

/** bm25's k1 and b, as FTS5 fixes them (fts5_aux.c). */
const k1 = 1.2;
const b = 0.75;

/**
 * One phrase's documents, ids ascending, with what gives each one's part of the score: a one-word phrase's posting
 * list (frequencies, lengths, idf), or FTS5's ranks of a phrase it ranked (the parts are the negated ranks).
 */
type PhraseList =
  | { ids: Int32Array; frequencies: Float64Array; lengths: Int32Array; idf: number }
  | { ids: Float64Array; ranks: Float64Array };

/** FTS5's idf for a phrase matching `matches` of `documents` documents. */
function inverseDocumentFrequency(documents: number, matches: number): number {
  const idf = Math.log((documents - matches + 0.5) / (matches + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

/**
 * The documents one search has scored, by its phrases (JSON of the list), for its other passes: its all-terms and
 * any-term passes, and a window grown for the filters, score the same phrases. Made per search: nothing is written in
 * between.
 */
export type PhraseListCache = Map<string, ScoredDocuments>;

/** An empty {@link PhraseListCache}, for one search. */
export const newPhraseListCache = (): PhraseListCache => new Map();

/**
 * The best `limit` documents of `match` (its phrases, all or any) by FTS5's bm25(), best first (ascending rank, ties by
 * ascending id), from the posting lists; phrases of several words and prefixes are ranked by `rankPhrase` (FTS5).
 * @param limit -1 for every match
 * @param cache what this search scored before; what is scored now is added
 * @returns undefined when the posting lists do not hold what FTS5 holds (their totals differ, or a list is damaged):
 *          the caller ranks in FTS5
 */
export async function rankFromPostings(
  db: Database,
  match: PhraseMatch,
  limit: number,
  rankPhrase: (phrase: string) => PhraseRanking | Promise<PhraseRanking>,
  cache: PhraseListCache = newPhraseListCache(),
): Promise<RankedDocument[] | undefined> {
  if (limit === 0) return [];
  const key = JSON.stringify(match.phrases);
  const cached = cache.get(key);
  if (cached) return best(cached, match.every ? match.phrases.length : 1, limit);
  const words = match.phrases.map((phrase) => {
    const tokens = phrase.endsWith("*") ? [] : keywordTokens(termWords(phrase));
    return tokens.length === 1 ? tokens[0]! : undefined; // a phrase of several words or a prefix: FTS5 ranks it
  });
  const read = readWordLists(db, words);
  if (!read) return undefined;
  if (read.documents === 0) return [];
  const lists: PhraseList[] = [];
  for (const [i, phrase] of match.phrases.entries()) lists.push(read.lists[i] ?? (await rankPhrase(phrase)));
  const accumulated = accumulate(lists, read.averageLength);
  cache.set(key, accumulated);
  return best(accumulated, match.every ? match.phrases.length : 1, limit);
}

/**
 * The one-word phrases' lists (undefined where `words` has none) with N and avgdl, read in one read transaction, so
 * that totals and lists come from one state of the index while an index run commits beside it.
 * @returns undefined when the lists do not hold what FTS5 holds (their totals differ, or a list is damaged)
 */
function readWordLists(
  db: Database,
  words: ReadonlyArray<string | undefined>,
): { documents: number; averageLength: number; lists: Array<PhraseList | undefined> } | undefined {
  return db.transaction(() => {
    const fts = totalsInStep(db);
    if (!fts) return undefined;
    if (fts.documents === 0) return { documents: 0, averageLength: 0, lists: [] };
    let stale: StaleDocuments | undefined;
    try {
      const lists = words.map((word): PhraseList | undefined => {
        if (word === undefined) return undefined;
        stale ??= staleDocuments(db);
        const postings = readTermPostings(db, word, stale);
        const idf = inverseDocumentFrequency(fts.documents, postings.positions.length);
        return { ids: postings.positions, frequencies: postings.frequencies, lengths: postings.lengths, idf };
      });
      return { documents: fts.documents, averageLength: fts.tokens / fts.documents, lists };
    } catch (error) {
      if (error instanceof DamagedPostingsError) return undefined;
      throw error;
    }
  })();
}

/** The documents matching at least one phrase, with their scores and the phrases they match (parallel arrays). */
export interface ScoredDocuments {
  ids: Float64Array;
  scores: Float64Array;
  phrases: Uint8Array;
}

/**
 * Every matching document's score, accumulated list by list in phrase order (see the file comment), and the number of
 * lists that hold it. Plain loops over typed arrays: a one-shot search runs them before the JIT has
 * warmed up, where a galloping intersection's calls cost 2–3 times more.
 */
function accumulate(lists: readonly PhraseList[], averageLength: number): ScoredDocuments {
  let largest = 0;
  let postings = 0;
  for (const list of lists) {
    postings += list.ids.length;
    if (list.ids.length > 0) largest = Math.max(largest, list.ids[list.ids.length - 1]!);
  }
  const accumulators = new Float64Array(largest + 1);
  const counts = new Uint8Array(largest + 1); // phrases found (at most 32 phrases: query.ts maxQueryTerms)
  const found = new Float64Array(postings);
  let foundCount = 0;
  // A one-word phrase's part, fts5Bm25Function's term `idf * ((f * (k1 + 1.0)) / (f + k1 * (1 - b + b * D / avgdl)))`
  // with its operations in the C code's order, so the double is the same; inline, as a call per posting is not
  // inlined before the JIT warms up, and a one-shot search never warms it.
  const k1PlusOne = k1 + 1.0;
  const oneMinusB = 1 - b;
  for (const list of lists) {
    const { ids } = list;
    if ("idf" in list) {
      const { frequencies, lengths, idf } = list;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        const count = counts[id]!;
        if (count === 0) found[foundCount++] = id;
        counts[id] = count + 1;
        const f = frequencies[i]!;
        accumulators[id]! += idf * ((f * k1PlusOne) / (f + k1 * (oneMinusB + (b * lengths[i]!) / averageLength)));
      }
    } else {
      const { ranks } = list;
      for (let i = 0; i < ids.length; i++) {
        const id = ids[i]!;
        const count = counts[id]!;
        if (count === 0) found[foundCount++] = id;
        counts[id] = count + 1;
        accumulators[id]! += -ranks[i]!;
      }
    }
  }
  const ids = found.subarray(0, foundCount);
  const scores = new Float64Array(foundCount);
  const phrases = new Uint8Array(foundCount);
  for (let i = 0; i < foundCount; i++) {
    const id = ids[i]!;
    scores[i] = accumulators[id]!;
    phrases[i] = counts[id]!;
  }
  return { ids, scores, phrases };
}

/**
 * The best `limit` (-1: all) of the scored documents that match at least `wanted` phrases, best first: descending score
 * (ascending rank), ties by ascending id.
 */
function best({ ids, scores, phrases }: ScoredDocuments, wanted: number, limit: number): RankedDocument[] {
  const out = bestIndexes(scores, phrases, wanted, limit).map((i) => ({ id: ids[i]!, rank: -scores[i]! }));
  out.sort((x, y) => x.rank - y.rank || x.id - y.id);
  return limit < 0 ? out : out.slice(0, limit);
}

/**
 * Where the best `window` scores are among the entries matching at least `wanted` terms (`matched[i] >= wanted`), with
 * every entry tied with the window's last score (the caller breaks ties), in input order: a selection of the k-th
 * score, not a sort. Local search ranks its documents with it, and the team archive its positions.
 * @param window -1 for every entry that matches enough terms
 * @returns indexes into `scores`
 */
export function bestIndexes(scores: Float64Array, matched: Uint8Array, wanted: number, window: number): number[] {
  let accepted = 0;
  for (let i = 0; i < matched.length; i++) if (matched[i]! >= wanted) accepted++;
  let threshold = Number.NEGATIVE_INFINITY;
  if (window >= 0 && accepted > window) {
    const acceptedScores = new Float64Array(accepted);
    for (let i = 0, k = 0; i < matched.length; i++) if (matched[i]! >= wanted) acceptedScores[k++] = scores[i]!;
    threshold = kthLargest(acceptedScores, window);
  }
  const out: number[] = [];
  for (let i = 0; i < matched.length; i++) if (matched[i]! >= wanted && scores[i]! >= threshold) out.push(i);
  return out;
}

/**
 * The `k`-th largest of `values` (1-based; `values` is reordered): Hoare's selection (FIND, CACM 4(7), 1961), expected
 * linear time.
 */
function kthLargest(values: Float64Array, k: number): number {
  let low = 0;
  let high = values.length - 1;
  const target = k - 1;
  while (low < high) {
    const pivot = values[(low + high) >>> 1]!;
    let i = low;
    let j = high;
    while (i <= j) {
      while (values[i]! > pivot) i++;
      while (values[j]! < pivot) j--;
      if (i <= j) {
        const swap = values[i]!;
        values[i] = values[j]!;
        values[j] = swap;
        i++;
        j--;
      }
    }
    if (target <= j) high = j;
    else if (target >= i) low = i;
    else break;
  }
  return values[target]!;
}
