/**
 * The best k documents of a keyword MATCH from the index's own posting lists (index/postings/keyword-postings.ts,
 * issue 42), with FTS5's bm25() scores bit for bit, instead of bm25()'s 0.5–0.7 µs a row. The loops over the postings
 * run in WebAssembly (bm25-kernel.ts): in JavaScript they cost 5–10 ns a posting once the JIT had warmed up, but ~100 ns
 * in a one-shot process, which never warms it.
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
 * bm25()'s order, and a count of the phrases found (every phrase: only documents found in all of them); a word's lists
 * in several segments are scored one after the other, unmerged (a document is live in one of them at most); then the k
 * best by the k-th score, the root of a min-heap of the best k met (bm25-kernel.wat). Ties keep the lower id, as
 * FTS5's ORDER BY rank does here (tested). Measured against MaxScore (Turtle & Flood, IPM 1995) document at a time
 * over the same decoded lists: with bounds from a list's largest f and smallest |D| it pruned nothing on a common-word
 * query at 20k sessions and cost 75 ns a posting, against 5–10 for these loops in JavaScript (see the issue 42 closing
 * note); pruning pays once blocks can be skipped without decoding them.
 */
import type { Database } from "bun:sqlite";
import {
  readTermSegments,
  type StaleDocuments,
  staleDocuments,
  totalsInStep,
} from "../../index/postings/keyword-postings.ts";
import { keywordTokens } from "../../index/tokens/keyword-tokens.ts";
import type { RankedDocument } from "./match-window.ts";
import {
  bestScored,
  kernelCompiled,
  type PhraseDocuments,
  phrasesMatched,
  type SegmentPostings,
  type ScoredDocuments,
  scorePhrases,
} from "./bm25-kernel.ts";
import { descendingOrder } from "./score-order.ts";
import type { PhraseMatch, PhraseRanking } from "./phrase-rankings.ts";
import { termWords } from "./query.ts";

/**
 * The documents one search has scored, by its phrases ({@link scoringKey}), for its other passes: its all-terms and
 * any-term passes, and a window grown for the filters, score the same phrases. Made per search, or kept by a long-lived
 * reader's connection for its next searches while nothing is committed ({@link keepScorings}).
 */
export type PhraseListCache = Map<string, ScoredDocuments>;

/** An empty {@link PhraseListCache}, for one search. */
export const newPhraseListCache = (): PhraseListCache => new Map();

/** The {@link PhraseListCache} key of a scoring of these phrases, in this order: their JSON. */
const scoringKey = (phrases: readonly string[]): string => JSON.stringify(phrases);

/** The phrases a {@link scoringKey} was made of, in order. */
const phrasesOfKey = (key: string): string[] => JSON.parse(key) as string[];

/**
 * What a long-lived reader's connection keeps between searches ({@link keepScorings}): the scorings, and each word's
 * posting lists as read (with their stale documents, and their bytes, which the kept ones are bounded by), all of the
 * index state they were read in.
 */
interface KeptScorings {
  state: string;
  cache: PhraseListCache;
  words: Map<string, { list: PhraseDocuments; bytes: number }>;
  wordBytes: number;
}
const keptScorings = new WeakMap<Database, KeptScorings>();

/**
 * Most scorings a connection keeps between searches, the newest: the search that reuses one comes right after the one
 * that made it (a page's turn column after its list, the picker's preview after the list it typed), and each holds its
 * phrases' posting lists (a few hundred KB for a common word at 20,000 sessions, ~1.5 MB at 100,000).
 */
export const keptScoringsLimit = 4;

/**
 * Most bytes of posting lists a connection keeps between searches, the newest words' (8 MiB): a person refining a query
 * keeps its words (the picker searches `docker n`, `docker ne`, … `docker network` as they are typed), and reading a
 * common word's list again cost 1.2–2.9 ms at 20,000 sessions (174 KB, one segment, from a 16 MiB page cache).
 */
export const keptWordBytesLimit = 8 * 1024 * 1024;

/**
 * Keep the scorings and the words' posting lists of every search on `db` for the next ones while nothing is committed
 * to the index (issue 42): the web view ranks a page's sessions and then the selected session's turns for the same
 * query, the picker its list and then the preview's turns; the turns of one session are then picked out of the scoring
 * the sessions were ranked by (lexical.ts `rankOneSession`) instead of FTS5 counting each term's documents again for
 * bm25() (web view pages at 20,000 sessions: p50 26.4 → 18.7 and 22.8 → 16.2 ms, two alternating rounds of `bench
 * ui`, 2-core Xeon, 2026-11-30); and a query typed on reads only its new words' lists. For long-lived readers (`recall
 * ui`, `recall mcp`, `recall pick`); idempotent.
 * @returns a function that stops keeping them
 */
export function keepScorings(db: Database): () => void {
  if (!keptScorings.has(db))
    keptScorings.set(db, { state: indexState(db), cache: newPhraseListCache(), words: new Map(), wordBytes: 0 });
  return () => {
    keptScorings.delete(db);
  };
}

/**
 * The scorings a search on `db` starts from: those the connection kept ({@link keepScorings}) while the index is in the
 * state they were made in (none committed since, by this connection or another), the newest {@link keptScoringsLimit}
 * − 1 of them (room for the one it makes); else an empty cache of its own.
 */
export function searchScorings(db: Database): PhraseListCache {
  const kept = currentKept(db);
  if (!kept) return newPhraseListCache();
  for (const key of kept.cache.keys()) {
    if (kept.cache.size < keptScoringsLimit) break;
    kept.cache.delete(key); // the oldest first (a Map keeps insertion order)
  }
  return kept.cache;
}

/** What `db` keeps ({@link keepScorings}), emptied first when a transaction was committed since it was kept. */
function currentKept(db: Database): KeptScorings | undefined {
  const kept = keptScorings.get(db);
  if (!kept) return undefined;
  const state = indexState(db);
  if (state !== kept.state) {
    kept.cache.clear();
    kept.words.clear();
    kept.wordBytes = 0;
    kept.state = state;
  }
  return kept;
}

/** Keep a word's posting lists as read, the oldest words dropped beyond {@link keptWordBytesLimit}. */
function keepWordList(kept: KeptScorings, word: string, list: { segments: readonly SegmentPostings[] }): void {
  let bytes = 0;
  for (const segment of list.segments) bytes += segment.postings.byteLength + (segment.stale?.byteLength ?? 0);
  if (bytes > keptWordBytesLimit) return;
  kept.words.set(word, { list, bytes });
  kept.wordBytes += bytes;
  for (const [oldest, entry] of kept.words) {
    if (kept.wordBytes <= keptWordBytesLimit) break;
    kept.words.delete(oldest); // a Map keeps insertion order
    kept.wordBytes -= entry.bytes;
  }
}

/**
 * What changes whenever a transaction is committed to the index file: `total_changes()` counts this connection's rows
 * changed, `PRAGMA data_version` moves when another connection committed (SQLite documents both).
 */
function indexState(db: Database): string {
  const row = db
    .query<{ changes: number; version: number }, []>(
      "SELECT total_changes() AS changes, (SELECT data_version FROM pragma_data_version) AS version",
    )
    .get()!;
  return `${row.changes}:${row.version}`;
}

/**
 * Every document `allowed` marks that holds any of `phrases`, best first as {@link rankFromPostings} ranks them
 * (FTS5's bm25() ranks bit for bit, ties by ascending id), from the scoring of exactly these phrases in `cache`: one
 * session's turns out of the scoring its search's list was ranked by, without reading a posting list again.
 * @returns undefined when `cache` holds no scoring of these phrases (or its lists turned out damaged): ask FTS5
 */
export function rankScoredWithin(
  cache: PhraseListCache,
  phrases: readonly string[],
  allowed: Uint8Array,
): RankedDocument[] | undefined {
  const scored = cache.get(scoringKey(phrases));
  return scored && best(scored, 1, -1, allowed);
}

/**
 * How many live documents each phrase the cache's scorings hold matches (FTS5's count of a MATCH of that phrase alone,
 * which the lists equal whenever they were used), by phrase: a search's term rarities (confidence.ts) take them from
 * here instead of counting each term in FTS5 again (~1.3 ms for three common words at 20k sessions, cold).
 */
export function phraseDocumentCounts(cache: PhraseListCache): Map<string, number> {
  const counts = new Map<string, number>();
  for (const [key, scored] of cache) {
    const phrases = phrasesOfKey(key);
    phrases.forEach((phrase, i) => {
      counts.set(phrase, scored.matches[i]!);
    });
  }
  return counts;
}

/**
 * Which of `ids` hold every one of `phrases`, by this search's scoring of exactly those phrases (the kernel counts the
 * phrases each document matches): the documents of a keyword answer's all-terms tier need no MATCH per term to say
 * which terms they hold (confidence.ts). Undefined when the cache holds no scoring of these phrases or its counts are
 * gone (another scoring came in between): the caller asks FTS5.
 */
export function documentsHoldingEvery(
  cache: PhraseListCache,
  phrases: readonly string[],
  ids: readonly number[],
): Set<number> | undefined {
  const scored = cache.get(scoringKey(phrases));
  const matched = scored && phrasesMatched(scored, ids);
  if (!matched) return undefined;
  return new Set(ids.filter((_, i) => matched[i] === phrases.length));
}

/**
 * The best `limit` documents of `match` (its phrases, all or any) by FTS5's bm25(), best first (ascending rank, ties by
 * ascending id), from the posting lists; phrases of several words and prefixes are ranked by `rankPhrase` (FTS5).
 * @param limit -1 for every match
 * @param cache what this search scored before; what is scored now is added
 * @param allowed only the documents it marks are ranked (document-mask.ts); all when absent
 * @returns undefined when the posting lists do not hold what FTS5 holds (their totals differ, or a list is damaged):
 *          the caller ranks in FTS5
 */
export async function rankFromPostings(
  db: Database,
  match: PhraseMatch,
  limit: number,
  rankPhrase: (phrase: string) => PhraseRanking | Promise<PhraseRanking>,
  cache: PhraseListCache = newPhraseListCache(),
  allowed?: Uint8Array,
): Promise<RankedDocument[] | undefined> {
  if (limit === 0) return [];
  const key = scoringKey(match.phrases);
  const cached = cache.get(key);
  if (cached) return best(cached, match.every ? match.phrases.length : 1, limit, allowed);
  const words = match.phrases.map((phrase) => {
    const tokens = phrase.endsWith("*") ? [] : keywordTokens(termWords(phrase));
    return tokens.length === 1 ? tokens[0]! : undefined; // a phrase of several words or a prefix: FTS5 ranks it
  });
  const read = readWordLists(db, words);
  if (!read) return undefined;
  if (read.documents === 0) return [];
  const lists: PhraseDocuments[] = [];
  for (const [i, phrase] of match.phrases.entries()) lists.push(read.lists[i] ?? (await rankPhrase(phrase)));
  await kernelCompiled();
  const scored = scorePhrases(lists, read.documents, read.averageLength);
  if (!scored) return undefined;
  cache.set(key, scored);
  return best(scored, match.every ? match.phrases.length : 1, limit, allowed);
}

/**
 * The one-word phrases' posting lists as stored (undefined where `words` has none) with N and avgdl, read in one read
 * transaction, so that totals and lists come from one state of the index while an index run commits beside it. On a
 * connection that keeps them ({@link keepScorings}), a word read by an earlier search in the same state is not read
 * again (the state is checked inside the transaction, so kept and new lists are of one state).
 * @returns undefined when the lists do not hold what FTS5 holds (their totals differ)
 */
function readWordLists(
  db: Database,
  words: ReadonlyArray<string | undefined>,
): { documents: number; averageLength: number; lists: Array<PhraseDocuments | undefined> } | undefined {
  return db.transaction(() => {
    const fts = totalsInStep(db);
    if (!fts) return undefined;
    if (fts.documents === 0) return { documents: 0, averageLength: 0, lists: [] };
    const kept = currentKept(db);
    let stale: Map<number, Int32Array> | undefined;
    const lists = words.map((word): PhraseDocuments | undefined => {
      if (word === undefined) return undefined;
      const known = kept?.words.get(word);
      if (known) return known.list;
      stale ??= sortedStale(staleDocuments(db));
      const segments = readTermSegments(db, word).map(({ segment, count, last, postings }) => {
        const dead = stale!.get(segment);
        return dead ? { count, last, postings, stale: dead } : { count, last, postings };
      });
      if (kept) keepWordList(kept, word, { segments });
      return { segments };
    });
    return { documents: fts.documents, averageLength: fts.tokens / fts.documents, lists };
  })();
}

/** Each segment's stale documents as ascending ids, as bm25-kernel.ts reads them. */
function sortedStale(stale: StaleDocuments): Map<number, Int32Array> {
  return new Map([...stale].map(([segment, ids]) => [segment, Int32Array.from(ids).sort()]));
}

/**
 * The best `limit` (-1: all) of the scored documents that match at least `wanted` phrases (and that `allowed` marks,
 * when given), best first: descending score (ascending rank), ties by ascending id; undefined when they had to be
 * scored again and their lists were damaged.
 */
function best(
  scored: ScoredDocuments,
  wanted: number,
  limit: number,
  allowed: Uint8Array | undefined,
): RankedDocument[] | undefined {
  const found = bestScored(scored, wanted, limit, allowed);
  if (!found) return undefined;
  // ids ascending, so the scores' order by position breaks ties by ascending id (score-order.ts)
  const order = descendingOrder(found.scores);
  const count = limit < 0 ? order.length : Math.min(limit, order.length);
  const out = new Array<RankedDocument>(count);
  for (let i = 0; i < count; i++) {
    const at = order[i]!;
    out[i] = { id: found.ids[at]!, rank: -found.scores[at]! };
  }
  return out;
}
