/**
 * The window of one keyword MATCH: the best documents by BM25 (FTS5's bm25() with the column weights of
 * index/postings/document-terms.ts), as (document id, rank) pairs, best (lowest rank) first. It is ranked from the
 * index's own posting lists (postings-ranking.ts: the same ranks, scored in WebAssembly) whenever they hold what FTS5
 * holds; FTS5 ranks it otherwise, and ranks a phrase of several words or a prefix. There bm25() scores every matching
 * row (FTS5 has no top-k pruning), 0.5–0.7 µs a row, 25–45 ms for 20k–70k matches at 20k sessions.
 *
 * A long-lived reader (`recall ui`, `recall mcp`, `recall pick`) may attach a worker thread to its connection
 * ({@link attachMatchWorkers}): what FTS5 ranks is then ranked in two halves of the document ids at once, the upper
 * half in the worker on its own read-only connection, the lower half here, and the two windows are merged. bm25()
 * takes its statistics (row count, average length, each term's document count) from the whole table whatever rowid
 * range is ranked, so each half's scores are those of the whole ranking and the merged window is the same as one window
 * of everything. Measured at 20k sessions (2 vCPUs): 28 → 18 ms for 21k matches, 35 → 24 ms for 40k; each half pays the
 * ~3 ms that counting a term's documents costs. One-shot commands rank in one pass (a worker takes longer to start than
 * it saves once).
 */
import type { Database } from "bun:sqlite";
import { availableParallelism } from "node:os";
import { bm25ColumnWeights } from "../../index/postings/document-terms.ts";
import { concatRankings, type PhraseMatch, type PhraseRanking } from "./phrase-rankings.ts";
import { type PhraseListCache, rankFromPostings } from "./postings-ranking.ts";

/** One ranked document: its id (documents.id = documents_fts.rowid) and its bm25() rank (lower is better). */
export interface RankedDocument {
  id: number;
  rank: number;
}

/** bm25()'s arguments: the column weights of index/postings/document-terms.ts {@link bm25ColumnWeights}. */
export const bm25Weights = bm25ColumnWeights.map((weight) => weight.toFixed(1)).join(", ");

/** SQL of one ranked range; parameters: MATCH expression, first id, last id, LIMIT (-1: all). */
const rankedRangeSql = `SELECT rowid AS id, bm25(documents_fts, ${bm25Weights}) AS rank FROM documents_fts
  WHERE documents_fts MATCH ? AND rowid BETWEEN ? AND ? ORDER BY rank LIMIT ?`;

/** SQL of the whole table ranked; parameters: MATCH expression, LIMIT (-1: all). */
const rankedAllSql = `SELECT rowid AS id, bm25(documents_fts, ${bm25Weights}) AS rank FROM documents_fts
  WHERE documents_fts MATCH ? ORDER BY rank LIMIT ?`;

/** SQL of one phrase's ranking over ids first…last in id order; parameters: the phrase, first id, last id. */
const phraseRangeSql = `SELECT rowid, bm25(documents_fts, ${bm25Weights}) FROM documents_fts
  WHERE documents_fts MATCH ? AND rowid BETWEEN ? AND ? ORDER BY rowid`;

/** Every document of one phrase among ids `first`…`last` (inclusive) with its rank, ids ascending, on this thread. */
export function rankPhraseRange(db: Database, phrase: string, first: number, last: number): PhraseRanking {
  const rows = db.query(phraseRangeSql).values(phrase, first, last) as Array<[number, number]>;
  const ids = new Float64Array(rows.length);
  const ranks = new Float64Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    ids[i] = rows[i]![0];
    ranks[i] = rows[i]![1];
  }
  return { ids, ranks };
}

/** Largest document id a range may end at (SQLite's largest rowid). */
const lastPossibleId = Number.MAX_SAFE_INTEGER;

/**
 * The best `limit` documents of `match` among ids `first`…`last` (inclusive), best first, on this thread.
 * @param limit -1 for every match in the range
 */
export function rankRange(db: Database, match: string, first: number, last: number, limit: number): RankedDocument[] {
  if (first <= 0 && last >= lastPossibleId)
    return db.query<RankedDocument, [string, number]>(rankedAllSql).all(match, limit); // no range test per row: ~10% faster
  return db.query<RankedDocument, [string, number, number, number]>(rankedRangeSql).all(match, first, last, limit);
}

/**
 * The first message to a match worker: the index file to open read-only, and its page cache as `PRAGMA cache_size`
 * states it (a negative number of KiB, or a positive number of pages): the attached connection's.
 */
export interface MatchWorkerOpen {
  open: string;
  cacheSize: number;
}
/** A request to a match worker and its answer (the worker's message protocol). */
export interface MatchWorkerRequest {
  id: number;
  match: string;
  first: number;
  last: number;
  limit: number;
  /** Answer with the phrase ranking of `match` (every document, ids ascending; `limit` unused) instead. */
  byId?: boolean;
}
/** The worker's answer: the ranked range, or the error's message; `{ ready: true }` once its connection is open. */
export type MatchWorkerAnswer =
  | { id: number; documents: RankedDocument[] }
  | { id: number; ranking: PhraseRanking }
  | { id: number; error: string }
  | { ready: true };

/**
 * One worker thread with its own read-only connection to the index file, answering {@link MatchWorkerRequest}s in
 * order. Not started until asked; a worker that fails to start, answers with an error or dies is not used again
 * (ranking stays on the calling thread).
 */
export class MatchWorker {
  private worker: Worker | undefined;
  private failed = false;
  private isReady = false;
  private nextId = 1;
  private readonly waiting = new Map<
    number,
    { resolve(answer: RankedDocument[] | PhraseRanking): void; reject(e: Error): void }
  >();

  /**
   * @param path the index file (the attached connection's `filename`)
   * @param cacheSize the attached connection's `PRAGMA cache_size`
   */
  constructor(
    private readonly path: string,
    private readonly cacheSize: number,
  ) {}

  /** False once the worker failed or was closed. */
  get usable(): boolean {
    return !this.failed;
  }

  /** True once the worker's connection is open and it has not failed: a request is answered without a start-up wait. */
  get ready(): boolean {
    return this.isReady && !this.failed;
  }

  /** Start the worker thread (idempotent); the first request waits for its connection to open. */
  start(): void {
    if (this.worker || this.failed) return;
    try {
      // In a compiled binary the worker is a second entry point, addressed relative to the common root of the entry
      // points (src/); from source it sits next to this file (as index/write/parse-pipeline.ts does).
      const compiled = import.meta.path.startsWith("/$bunfs/");
      const worker = new Worker(
        compiled ? "./search/ranking/match-worker.ts" : new URL("./match-worker.ts", import.meta.url).href,
      );
      worker.postMessage({ open: this.path, cacheSize: this.cacheSize } satisfies MatchWorkerOpen);
      worker.onmessage = (event: MessageEvent<MatchWorkerAnswer>) => {
        const answer = event.data;
        if ("ready" in answer) {
          this.isReady = true;
          return;
        }
        const waiter = this.waiting.get(answer.id);
        if (!waiter) return;
        this.waiting.delete(answer.id);
        if ("error" in answer) {
          waiter.reject(new Error(answer.error));
          this.fail(new Error(answer.error)); // retired: its callers rank on their own thread from now on
        } else waiter.resolve("ranking" in answer ? answer.ranking : answer.documents);
      };
      worker.onerror = (event) => this.fail(new Error(event.message || "the match worker stopped"));
      worker.unref();
      this.worker = worker;
    } catch {
      this.failed = true;
    }
  }

  /** Rank ids `first`…`last` of `match` in the worker. @throws Error when the worker failed or fails meanwhile */
  rank(match: string, first: number, last: number, limit: number): Promise<RankedDocument[]> {
    return this.ask({ match, first, last, limit }) as Promise<RankedDocument[]>;
  }

  /** The phrase ranking of ids `first`…`last`, from the worker. @throws Error when the worker failed or fails meanwhile */
  rankPhrase(phrase: string, first: number, last: number): Promise<PhraseRanking> {
    return this.ask({ match: phrase, first, last, limit: -1, byId: true }) as Promise<PhraseRanking>;
  }

  private ask(request: Omit<MatchWorkerRequest, "id">): Promise<RankedDocument[] | PhraseRanking> {
    this.start();
    const worker = this.worker;
    if (!worker || this.failed) return Promise.reject(new Error("the match worker is not running"));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, ...request } satisfies MatchWorkerRequest);
    });
  }

  /** Stop the worker; pending requests fail (their callers rank on their own thread). */
  close(): void {
    this.fail(new Error("the match worker was closed"));
  }

  private fail(error: Error): void {
    this.failed = true;
    this.worker?.terminate();
    this.worker = undefined;
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
  }
}

const attached = new WeakMap<Database, MatchWorker>();

/**
 * With at least 2 cores on an index file, rank what FTS5 ranks for this long-lived reader in two halves at once (see
 * the file comment): the worker starts at once, in the background; searches rank in one pass until it is ready.
 * Idempotent.
 * @returns a function that stops the worker (call it before closing `db`)
 */
export function attachMatchWorkers(db: Database): () => void {
  const path = db.filename;
  if (attached.has(db) || availableParallelism() < 2 || !path || path === ":memory:") return () => {};
  const { cache_size } = db.query<{ cache_size: number }, []>("PRAGMA cache_size").get()!;
  const worker = new MatchWorker(path, cache_size);
  attached.set(db, worker);
  worker.start();
  return () => {
    attached.delete(db);
    worker.close();
  };
}

/** True when `db` has a worker attached that is ready and still in use (it has not failed or been stopped). */
export function hasMatchWorker(db: Database): boolean {
  return attached.get(db)?.ready === true;
}

/**
 * The best `limit` documents of `match`, best first: from the index's own posting lists when `phrases` spell `match`
 * out and the lists hold what FTS5 holds (postings-ranking.ts: the same ranks, ties by ascending id); else by FTS5, in
 * two halves at once when a worker is attached to `db`, else in one pass. Ties between equal ranks may come in another
 * order than one pass gives.
 * @param limit -1 for every match
 * @param phrases `match` as its phrases (`match` is their AND, or their OR)
 * @param lists what this search scored before (its other pass), reused and added to
 * @param allowed the documents a filtered search may return (document-mask.ts): the lists rank only those; FTS5 ranks
 *        every match whatever it says (the caller filters the window)
 */
export async function rankedWindow(
  db: Database,
  match: string,
  limit: number,
  phrases?: PhraseMatch,
  lists?: PhraseListCache,
  allowed?: Uint8Array,
): Promise<RankedDocument[]> {
  if (phrases) {
    const rankPhrase = (phrase: string) => rankPhraseEverywhere(db, phrase);
    const fromPostings = await rankFromPostings(db, phrases, limit, rankPhrase, lists, allowed);
    if (fromPostings) return fromPostings;
  }
  const worker = attached.get(db);
  // a worker still starting (20–40 ms) would hold this search back: one pass until it is ready
  if (!worker?.ready) return rankRange(db, match, 0, lastPossibleId, limit);
  const middle = middleId(db);
  const upper = worker.rank(match, middle + 1, lastPossibleId, limit).catch(() => undefined);
  const lower = rankRange(db, match, 0, middle, limit);
  // a worker that failed meanwhile: its half is ranked here
  const upperDocuments = (await upper) ?? rankRange(db, match, middle + 1, lastPossibleId, limit);
  const merged = [...lower, ...upperDocuments].sort((a, b) => a.rank - b.rank);
  return limit < 0 ? merged : merged.slice(0, limit);
}

/** The id that splits the documents in two halves for the worker. */
function middleId(db: Database): number {
  const lastId = db.query<{ last: number | null }, []>("SELECT max(id) AS last FROM documents").get()?.last ?? 0;
  return Math.floor(lastId / 2);
}

/** One phrase's ranking of every document: the upper half in the worker when one is ready, else in one pass here. */
async function rankPhraseEverywhere(db: Database, phrase: string): Promise<PhraseRanking> {
  const worker = attached.get(db);
  if (!worker?.ready) return rankPhraseRange(db, phrase, 0, lastPossibleId);
  const middle = middleId(db);
  const upper = worker.rankPhrase(phrase, middle + 1, lastPossibleId).catch(() => undefined);
  const lower = rankPhraseRange(db, phrase, 0, middle);
  return concatRankings(lower, (await upper) ?? rankPhraseRange(db, phrase, middle + 1, lastPossibleId));
}
