/**
 * Term-at-a-time BM25 for long-lived readers (`recall pick`, `recall ui`, `recall mcp`): FTS5's bm25() of a MATCH is a
 * sum over its phrases, each phrase's part depending on that phrase alone (sqlite ext/fts5/fts5_aux.c,
 * fts5Bm25Function: score = Σ_i idf(i) · f(i, D) · (k1 + 1) / (f(i, D) + k1 · (1 − b + b · |D| / avgdl)), summed in
 * phrase order, a phrase absent from D adding exactly 0; idf(i) counts the documents matching phrase i alone). So the
 * rank of a document under `"a" "b"` (every phrase) or `"a" OR "b"` (any phrase) is, bit for bit, the sum in phrase
 * order of its ranks under `"a"` and under `"b"`: IEEE negation is exact, so Σ(−s_i) = −Σ s_i.
 * A reader keeps each phrase's ranking of every matching document (ids ascending, ranks) until the index changes
 * (`PRAGMA data_version`, as version-cache.ts), so a query that shares a phrase with an earlier one, as each key typed in
 * the picker shares the words before it, ranks only its new phrases; the all-terms and the any-term pass of one query,
 * and a window grown for the filters, rank nothing again. This is posting-list caching, the long-lived engine's
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

/** True when {@link attachPhraseRankings} is in effect on `db`. */
export function hasPhraseRankings(db: Database): boolean {
  return caches.has(db);
}

/**
 * The best `limit` documents of `match` (-1: all), best first (ties by ascending id), from the phrases' rankings kept
 * on `db`, ranking the phrases it does not hold with `rankPhrase` (all of them at once) and keeping them.
 * @throws what `rankPhrase` throws (an FTS5 syntax error, a damaged index)
 */
export async function rankedFromPhrases(
  db: Database,
  match: PhraseMatch,
  limit: number,
  rankPhrase: (phrase: string) => Promise<PhraseRanking>,
): Promise<RankedDocument[]> {
  const cache = caches.get(db) ?? { version: Number.NaN, rankings: new Map(), documents: 0 };
  const version = db.query<{ data_version: number }, []>("PRAGMA data_version").get()?.data_version ?? -1;
  if (cache.version !== version) {
    cache.version = version;
    cache.rankings.clear();
    cache.documents = 0;
  }
  const rankings = await Promise.all(
    match.phrases.map(async (phrase) => {
      const known = cache.rankings.get(phrase);
      if (known) {
        cache.rankings.delete(phrase); // most recently used last
        cache.rankings.set(phrase, known);
        return known;
      }
      const ranking = await rankPhrase(phrase);
      if (cache.version === version && caches.get(db) === cache) keep(cache, phrase, ranking);
      return ranking;
    }),
  );
  return combineRankings(rankings, match.every, limit);
}

/** Keep `ranking`, dropping the least recently used rankings beyond {@link maxCachedDocuments}. */
function keep(cache: RankingCache, phrase: string, ranking: PhraseRanking): void {
  if (ranking.ids.length > maxCachedDocuments || cache.rankings.has(phrase)) return;
  cache.rankings.set(phrase, ranking);
  cache.documents += ranking.ids.length;
  for (const [oldest, dropped] of cache.rankings) {
    if (cache.documents <= maxCachedDocuments) break;
    cache.rankings.delete(oldest);
    cache.documents -= dropped.ids.length;
  }
}
