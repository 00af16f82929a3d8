/**
 * Term-at-a-time BM25 for long-lived readers (`recall pick`, `recall ui`, `recall mcp`): FTS5's bm25() of a MATCH is a
 * sum over its phrases, each phrase's part depending on that phrase alone (sqlite ext/fts5/fts5_aux.c,
 * fts5Bm25Function: score = Σ_i idf(i) · f(i, D) · (k1 + 1) / (f(i, D) + k1 · (1 − b + b · |D| / avgdl)), summed in
 * phrase order, a phrase absent from D adding exactly 0; idf(i) counts the documents matching phrase i alone). So the
 * rank of a document under `"a" "b"` (every phrase) or `"a" OR "b"` (any phrase) is, bit for bit, the sum in phrase
 * order of its ranks under `"a"` and under `"b"`: IEEE negation is exact, so Σ(−s_i) = −Σ s_i.
 * A reader keeps each phrase's ranking of every matching document (ids ascending, ranks) until the index changes
 * (`PRAGMA data_version`, as version-cache.ts), so a query that shares all but one phrase with earlier ones, as each
 * key typed in the picker shares the words before it, ranks only its new phrase; the all-terms and the any-term pass of
 * one query, and a window grown for the filters, rank nothing again. A query with more new phrases is left to FTS5
 * ({@link maxNewPhrases}). This is posting-list caching, the long-lived engine's
 * standard (Baeza-Yates et al., "The impact of caching on search engines", SIGIR 2007), applied to FTS5's own scores.
 * Ranks come from FTS5 itself: only their sums and the top-k selection are computed here.
 */
import type { Database } from "bun:sqlite";
import type { RankedDocument } from "./match-window.ts";

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

/**
 * The documents of `match` ranked from its phrases' rankings (in the match's phrase order), best first: ascending
 * rank, ties by ascending id; at most `limit` (-1: all). Documents missing a phrase are left out when `every`.
 */
export function combineRankings(rankings: readonly PhraseRanking[], every: boolean, limit: number): RankedDocument[] {
  if (rankings.length === 1) return bestFirst(rankings[0]!, limit);
  const at = rankings.map(() => 0);
  const room = every ? Math.min(...rankings.map((r) => r.ids.length)) : rankings.reduce((n, r) => n + r.ids.length, 0);
  const ids = new Float64Array(room);
  const ranks = new Float64Array(room);
  let count = 0;
  for (;;) {
    // the smallest id not yet taken among the rankings
    let id = Number.POSITIVE_INFINITY;
    for (const [i, ranking] of rankings.entries()) {
      const next = at[i]! < ranking.ids.length ? ranking.ids[at[i]!]! : Number.POSITIVE_INFINITY;
      if (next < id) id = next;
    }
    if (id === Number.POSITIVE_INFINITY) break;
    let rank = 0;
    let phrases = 0;
    for (const [i, ranking] of rankings.entries()) {
      if (ranking.ids[at[i]!] !== id) continue;
      // phrase order, as bm25() sums; the first term starts from its own value (0 + x is x, −0 aside)
      rank = phrases === 0 ? ranking.ranks[at[i]!]! : rank + ranking.ranks[at[i]!]!;
      phrases++;
      at[i]!++;
    }
    if (every && phrases < rankings.length) continue;
    ids[count] = id;
    ranks[count++] = rank;
  }
  return bestFirst({ ids: ids.subarray(0, count), ranks: ranks.subarray(0, count) }, limit);
}

/** A ranking's documents best first, at most `limit` (-1: all): a native sort of a copy of the ranks finds the cut. */
function bestFirst({ ids, ranks }: PhraseRanking, limit: number): RankedDocument[] {
  if (limit === 0) return [];
  const cut = limit > 0 && limit < ranks.length ? ranks.slice().sort()[limit - 1]! : Number.POSITIVE_INFINITY;
  const kept: number[] = [];
  for (let i = 0; i < ranks.length; i++) if (ranks[i]! <= cut) kept.push(i); // ties at the cut included
  kept.sort((a, b) => ranks[a]! - ranks[b]! || ids[a]! - ids[b]!);
  return (limit < 0 ? kept : kept.slice(0, limit)).map((i) => ({ id: ids[i]!, rank: ranks[i]! }));
}

/** Rankings kept by one connection, for one state of the index. */
interface RankingCache {
  version: number;
  rankings: Map<string, PhraseRanking>;
  /** Documents held in `rankings`, summed (each costs 16 bytes). */
  documents: number;
}

/** Documents a connection's cache holds at most (32 MB); the least recently used phrases go first. */
const maxCachedDocuments = 2_000_000;

const caches = new WeakMap<Database, RankingCache>();

/**
 * Keep phrase rankings on this connection from now on, and rank its MATCHes from them (the file comment). For
 * long-lived readers only. @returns a function that stops it and frees the rankings
 */
export function attachPhraseRankings(db: Database): () => void {
  if (!caches.has(db)) caches.set(db, { version: Number.NaN, rankings: new Map(), documents: 0 });
  return () => void caches.delete(db);
}

/**
 * Phrases a query may rank anew and still be ranked here. Ranking a phrase means scoring every document that holds it;
 * FTS5's all-terms MATCH scores only the documents that hold every phrase. So a query with several new phrases (an
 * agent's question through MCP) is cheaper in one FTS5 statement: at 20k sessions, MCP searches of new 3–5 word
 * queries took 109 ms here against 56 ms through FTS5. Typing in the picker adds one new word at a time.
 */
const maxNewPhrases = 1;

/**
 * The best `limit` documents of `match` (-1: all), best first (ties by ascending id), from the phrases' rankings kept
 * on `db`, ranking the one phrase it may not hold yet with `rankPhrase` and keeping it; undefined when more than
 * {@link maxNewPhrases} phrases are not kept (the caller ranks the MATCH in FTS5 then).
 * @throws what `rankPhrase` throws (an FTS5 syntax error, a damaged index)
 */
export async function rankedFromPhrases(
  db: Database,
  match: PhraseMatch,
  limit: number,
  rankPhrase: (phrase: string) => Promise<PhraseRanking>,
): Promise<RankedDocument[] | undefined> {
  const cache = caches.get(db);
  if (!cache) return undefined;
  const version = db.query<{ data_version: number }, []>("PRAGMA data_version").get()?.data_version ?? -1;
  if (cache.version !== version) {
    cache.version = version;
    cache.rankings.clear();
    cache.documents = 0;
  }
  if (match.phrases.filter((phrase) => !cache.rankings.has(phrase)).length > maxNewPhrases) return undefined;
  const rankings: PhraseRanking[] = [];
  for (const phrase of match.phrases) {
    const ranking = cache.rankings.get(phrase) ?? (await rankPhrase(phrase));
    if (cache.version === version && caches.get(db) === cache) keep(cache, phrase, ranking); // most recently used last
    rankings.push(ranking);
  }
  return combineRankings(rankings, match.every, limit);
}

/** Keep `ranking` as the most recently used, dropping the least recently used beyond {@link maxCachedDocuments}. */
function keep(cache: RankingCache, phrase: string, ranking: PhraseRanking): void {
  if (ranking.ids.length > maxCachedDocuments) return;
  const known = cache.rankings.get(phrase);
  if (known) {
    cache.rankings.delete(phrase);
    cache.documents -= known.ids.length;
  }
  cache.rankings.set(phrase, ranking);
  cache.documents += ranking.ids.length;
  for (const [oldest, dropped] of cache.rankings) {
    if (cache.documents <= maxCachedDocuments) break;
    cache.rankings.delete(oldest);
    cache.documents -= dropped.ids.length;
  }
}
