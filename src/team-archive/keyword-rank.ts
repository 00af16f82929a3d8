/**
 * The team archive's keyword ranking (issue 30, schema.ts version 4): FTS5's BM25 over the posting lists the pushers
 * wrote with FTS5's own tokens, computed here in the client, so that the archive ranks documents as local search does.
 * A search reads the batches the role sees (row-level security) and the posting lists of its terms' tokens, as bytes
 * (posting-lists.ts, gathered by keyword-postings.ts), in one snapshot; scores every matching document in typed
 * arrays, one set per batch; and looks up only a window of the best positions as documents (with the filters
 * evaluated there).
 *
 * FTS5's bm25() (sqlite ext/fts5/fts5_aux.c, fts5Bm25Function), per document D and query phrase q:
 *   score(D) = Σ_q idf(q) · f(q, D) · (k1 + 1) / (f(q, D) + k1 · (1 − b + b · |D| / avgdl)),  k1 = 1.2, b = 0.75
 *   idf(q) = ln((N − n(q) + 0.5) / (n(q) + 0.5)), floored at 1e-6; f(q, D) = Σ over q's instances of the column's
 *   weight; |D| = the document's tokens in all columns; N = documents; avgdl = tokens / N; n(q) = documents matching q.
 * Here N and the tokens are summed over the batches the role sees, n(q) is counted from the posting lists (without
 * the positions a deletion removed), and ties are broken by document id (the archive keeps local document order).
 * What a query term matches (a word, an identifier prefix, a phrase) is keyword-postings.ts's.
 */
import type { SearchFilters } from "../search/listing/filters.ts";
import type { SearchLevel } from "../search/ranking/lexical.ts";
import { b, bestIndexes, inverseDocumentFrequency, k1 } from "../search/ranking/bm25-kernel.ts";
import { type LexicalQuery, termWords } from "../search/ranking/query.ts";
import { keywordTokens } from "../index/tokens/keyword-tokens.ts";
import type { ArchiveConnection } from "./connection.ts";
import {
  type ArchiveTerm,
  type BatchPlaces,
  exactPhraseCandidates,
  readTermPostings,
  sqlParameters,
  type TermPostings,
} from "./keyword-postings.ts";
import { archiveFilterSql } from "./sessions.ts";

/** What the ranking needs of the whole archive the role sees, read once per search. */
export interface ArchiveStatistics {
  /** Documents (N). */
  documents: number;
  /** Tokens per document (avgdl). */
  averageLength: number;
  /** Documents matching each query term (n(q)), by term index. */
  matches: number[];
  /** Each query term's idf, by term index (FTS5's formula, see the file comment). */
  idf: number[];
}

/** One batch's documents as this search scored them, by position in the batch (arrays of `positions` entries). */
interface ScoredBatch {
  batch: string;
  /** BM25 (higher is better); 0 where no term matched. */
  score: Float64Array;
  /** Bit i set when the document matches query term i. */
  matched: Uint32Array;
  /** Query terms matched. */
  terms: Uint8Array;
  /** Bit i set when the document holds every word of term i (a phrase's words need not be consecutive). */
  held: Uint32Array;
}

/** The documents that match at least one term: parallel arrays, one entry per document. */
interface MatchingDocuments {
  /** Index in ArchiveKeywordQuery.scored. */
  batch: Int32Array;
  position: Int32Array;
  score: Float64Array;
  /** Query terms matched. */
  terms: Uint8Array;
}

/** A query prepared for the archive: its terms, the statistics, and every matching document scored. */
export interface ArchiveKeywordQuery {
  terms: ArchiveTerm[];
  /** Phrases approximated (more than {@link exactPhraseCandidates} candidate documents): their terms. */
  approximated: ArchiveTerm[];
  statistics: ArchiveStatistics;
  /** The scored batches (those holding at least one of the query's tokens). */
  scored: ScoredBatch[];
  /** Every matching document of the scored batches, in one list. */
  matching: MatchingDocuments;
  /** Windows already ranked, by level, filters and size (both tiers come from one lookup). */
  windows: Map<string, Promise<TieredWindows>>;
}

/** The best documents of both tiers: matching every term (`all`), and matching any (`any`). */
export interface TieredWindows {
  all: RankedArchiveDocument[];
  any: RankedArchiveDocument[];
}

/** One ranked document of a window, best first. */
export interface RankedArchiveDocument {
  document_id: number;
  session_rowid: number;
  turn_number: number;
  level: string;
  /** −BM25 (lower is better), as lexical.ts's rows. */
  rank: number;
  /** Bit i set when the document matches query term i. */
  matched: number;
  /** Whether the document passes the filters (and, at level 2, is a turn document). */
  passes: boolean;
}

/**
 * Run `fn` in one REPEATABLE READ, READ ONLY transaction, so that every statement in it reads one snapshot: a
 * search's statistics, posting lists and window lookups then agree even while others push, forget or merge batches
 * (a merge moves documents to new places). Nothing is locked.
 * @throws ArchiveError from the connection, or what `fn` throws (the transaction is rolled back)
 */
export function inSnapshot<T>(connection: ArchiveConnection, fn: () => Promise<T>): Promise<T> {
  return connection.transaction(async () => {
    await connection.query("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
    return fn();
  });
}

/**
 * Prepare `query` for the archive: tokenize its terms with FTS5's tokenizer; read the visible batches and their
 * tokens' posting lists (run it and the window lookups {@link inSnapshot}); count the exact phrases' instances; and
 * score every matching document.
 * @param exactLimit phrases holding every token in more documents than this are approximated
 * @throws ArchiveError from the connection, or for a posting list whose bytes do not hold its documents
 */
export async function prepareArchiveQuery(
  connection: ArchiveConnection,
  query: LexicalQuery,
  exactLimit = exactPhraseCandidates,
): Promise<ArchiveKeywordQuery> {
  const terms = query.terms.map((term, index) => ({
    index,
    tokens: keywordTokens(termWords(term)),
    prefix: term.endsWith("*"),
  }));
  const { batches, places, approximated, termPostings, phraseHolders } = await readTermPostings(
    connection,
    terms,
    exactLimit,
  );
  const documents = batches.reduce((sum, batch) => sum + batch.documents, 0);
  const tokens = batches.reduce((sum, batch) => sum + batch.tokens, 0);
  const averageLength = documents > 0 ? tokens / documents : 1;
  const matches = termPostings.map((byBatch) =>
    [...byBatch.values()].reduce((sum, postings) => sum + postings.positions.length, 0),
  );
  const idf = matches.map((n) => inverseDocumentFrequency(documents, n));
  const statistics = { documents, averageLength, matches, idf };
  const scored = scoreBatches(places, termPostings, phraseHolders, statistics);
  return { terms, approximated, statistics, scored, matching: matchingDocuments(scored), windows: new Map() };
}

/**
 * Every matching document's BM25 (the file comment's formula), matched terms and held terms, per batch, in one pass
 * over the postings; an exactly counted phrase also marks as held the documents holding its words out of order.
 */
function scoreBatches(
  places: ReadonlyMap<string, BatchPlaces>,
  termPostings: ReadonlyArray<Map<string, TermPostings>>,
  phraseHolders: ReadonlyArray<Map<string, Int32Array> | undefined>,
  statistics: ArchiveStatistics,
): ScoredBatch[] {
  const scored = new Map<string, ScoredBatch>();
  const batchOf = (batch: string) => {
    let entry = scored.get(batch);
    if (!entry) {
      const size = places.get(batch)!.positions;
      entry = {
        batch,
        score: new Float64Array(size),
        matched: new Uint32Array(size),
        terms: new Uint8Array(size),
        held: new Uint32Array(size),
      };
      scored.set(batch, entry);
    }
    return entry;
  };
  const lengthScale = b / statistics.averageLength;
  for (const [index, byBatch] of termPostings.entries()) {
    const idf = statistics.idf[index]!;
    const bit = index < 32 ? 2 ** index : 0;
    for (const [batch, postings] of byBatch) {
      const { score, matched, terms, held } = batchOf(batch);
      const { positions, frequencies, lengths } = postings;
      for (let i = 0; i < positions.length; i++) {
        const position = positions[i]!;
        const f = frequencies[i]!;
        score[position]! += (idf * f * (k1 + 1)) / (f + k1 * (1 - b + lengthScale * lengths[i]!));
        matched[position]! |= bit;
        held[position]! |= bit;
        terms[position]!++;
      }
    }
  }
  for (const [index, byBatch] of phraseHolders.entries()) {
    if (!byBatch) continue;
    const bit = index < 32 ? 2 ** index : 0;
    for (const [batch, positions] of byBatch) {
      const { held } = batchOf(batch);
      for (let i = 0; i < positions.length; i++) held[positions[i]!]! |= bit;
    }
  }
  return [...scored.values()];
}

/**
 * The best `window` documents for the query by BM25 among those matching every term (`all`) and among those matching
 * any (`any`), best first (ties by document id), each with the filters evaluated (a window the filters emptied is
 * told apart from an exhausted match). The best positions come from the scores computed in
 * {@link prepareArchiveQuery}; both tiers' positions are looked up as documents in one statement, cached in the query.
 * @throws ArchiveError from the connection
 */
export function rankArchiveWindows(
  connection: ArchiveConnection,
  query: ArchiveKeywordQuery,
  level: SearchLevel,
  filters: SearchFilters,
  window: number,
  allowedTerms?: Uint8Array,
): Promise<TieredWindows> {
  const key = JSON.stringify([level, filters, window, allowedTerms !== undefined]);
  let ranked = query.windows.get(key);
  if (!ranked) {
    ranked = lookUpWindows(connection, query, level, filters, window, allowedTerms ?? query.matching.terms);
    query.windows.set(key, ranked);
  }
  return ranked;
}

/**
 * The term counts of the query's matching documents (`query.matching.terms`) with those of the documents whose
 * sessions do not pass `filters` zeroed: ranked through them, a window holds only documents that can pass (issue 42;
 * local search: search/ranking/document-mask.ts, whose date rule this follows: a session overlapping the dates keeps
 * its turns, and the windows still test each turn's own time). Reads the sessions that pass and their documents'
 * places.
 * @throws ArchiveError from the connection
 */
export async function allowedMatchTerms(
  connection: ArchiveConnection,
  query: Pick<ArchiveKeywordQuery, "scored" | "matching">,
  filters: SearchFilters,
): Promise<Uint8Array> {
  const filter = archiveFilterSql(filters, 1);
  const rows = await connection.query<{ batch: string; position: number }>(
    `SELECT d.batch, d.position FROM recall.sessions s JOIN recall.documents d ON d.session = s.id
     WHERE d.batch IS NOT NULL AND ${filter.sql}`,
    filter.params,
  );
  const allowed = new Map<string, Set<number>>();
  for (const row of rows) {
    let positions = allowed.get(row.batch);
    if (!positions) allowed.set(row.batch, (positions = new Set()));
    positions.add(row.position);
  }
  const { matching, scored } = query;
  const terms = new Uint8Array(matching.terms.length);
  for (let k = 0; k < terms.length; k++)
    if (allowed.get(scored[matching.batch[k]!]!.batch)?.has(matching.position[k]!)) terms[k] = matching.terms[k]!;
  return terms;
}

/** The scored batches' matching documents in one list (see {@link MatchingDocuments}). */
function matchingDocuments(scored: readonly ScoredBatch[]): MatchingDocuments {
  let total = 0;
  for (const batch of scored) for (let p = 0; p < batch.terms.length; p++) if (batch.terms[p]! > 0) total++;
  const out = {
    batch: new Int32Array(total),
    position: new Int32Array(total),
    score: new Float64Array(total),
    terms: new Uint8Array(total),
  };
  let k = 0;
  for (const [index, batch] of scored.entries())
    for (let p = 0; p < batch.terms.length; p++)
      if (batch.terms[p]! > 0) {
        out.batch[k] = index;
        out.position[k] = p;
        out.score[k] = batch.score[p]!;
        out.terms[k] = batch.terms[p]!;
        k++;
      }
  return out;
}

/** Both tiers' windows: their best positions looked up as documents, with the filters, sorted and cut. */
async function lookUpWindows(
  connection: ArchiveConnection,
  query: ArchiveKeywordQuery,
  level: SearchLevel,
  filters: SearchFilters,
  window: number,
  terms: Uint8Array,
): Promise<TieredWindows> {
  const single = query.terms.length === 1;
  const { matching } = query;
  // the best positions, with every one tied with the window's last (ties are broken by document id, known only after
  // the lookup): indexes in `matching`
  const all = single ? [] : Array.from(bestIndexes(matching.score, terms, query.terms.length, window));
  const any = Array.from(bestIndexes(matching.score, terms, 1, window));
  const candidates = [...new Set([...all, ...any])];
  if (candidates.length === 0) return { all: [], any: [] };
  const { values: params, add } = sqlParameters();
  const batchesParameter = add(candidates.map((i) => query.scored[matching.batch[i]!]!.batch));
  const positionsParameter = add(candidates.map((i) => matching.position[i]!));
  const byTurnTime = level === "turn" && (filters.since !== undefined || filters.until !== undefined);
  const filter = archiveFilterSql(filters, params.length + 1, byTurnTime ? "t.timestamp" : undefined);
  params.push(...filter.params);
  const turnJoin = byTurnTime ? "LEFT JOIN recall.turns t ON t.session = d.session AND t.number = d.turn_number" : "";
  const levelCondition = level === "turn" ? "d.level = 'turn' AND " : "";
  const rows = await connection.query<{
    batch: string;
    position: number;
    document_id: string;
    session_rowid: string;
    turn_number: number;
    level: string;
    passes: boolean;
  }>(
    `SELECT w.batch, w.position, d.id AS document_id, d.session AS session_rowid, d.turn_number, d.level,
       coalesce(${levelCondition}${filter.sql}, false) AS passes
     FROM unnest(${batchesParameter}::bigint[], ${positionsParameter}::integer[]) AS w(batch, position)
     JOIN recall.documents d ON d.batch = w.batch AND d.position = w.position
     JOIN recall.sessions s ON s.id = d.session ${turnJoin}`,
    params,
  );
  const indexOfBatch = new Map(query.scored.map((batch, index) => [batch.batch, index]));
  const documents = new Map<string, RankedArchiveDocument>();
  for (const row of rows) {
    const scored = query.scored[indexOfBatch.get(row.batch)!]!;
    documents.set(`${row.batch}:${row.position}`, {
      document_id: Number(row.document_id),
      session_rowid: Number(row.session_rowid),
      turn_number: row.turn_number,
      level: row.level,
      rank: -scored.score[row.position]!,
      matched: scored.matched[row.position]!,
      passes: row.passes,
    });
  }
  // a position whose document was deleted since the snapshot has no row: it is left out
  const ranked = (tier: readonly number[]) =>
    tier
      .flatMap((i) => documents.get(`${query.scored[matching.batch[i]!]!.batch}:${matching.position[i]}`) ?? [])
      .sort((x, y) => x.rank - y.rank || x.document_id - y.document_id)
      .slice(0, window);
  const anyRanked = ranked(any);
  return { all: single ? anyRanked : ranked(all), any: anyRanked };
}

/**
 * The query terms each of `documentIds` holds (bit i for term i), from the posting lists the query read: for a
 * document no keyword window ranked (one only the vector leg found). A phrase counts as held when every one of its
 * words is.
 * @throws ArchiveError from the connection
 */
export async function termsHeldBy(
  connection: ArchiveConnection,
  query: Pick<ArchiveKeywordQuery, "scored">,
  documentIds: readonly number[],
): Promise<Map<number, number>> {
  const held = new Map(documentIds.map((id) => [id, 0]));
  if (documentIds.length === 0) return held;
  const rows = await connection.query<{ id: string; batch: string | null; position: number | null }>(
    "SELECT id, batch, position FROM recall.documents WHERE id = ANY($1::bigint[])",
    [documentIds],
  );
  const scoredOf = new Map(query.scored.map((batch) => [batch.batch, batch]));
  for (const row of rows) {
    if (row.batch === null || row.position === null) continue;
    const bits = scoredOf.get(row.batch)?.held[row.position];
    if (bits !== undefined) held.set(Number(row.id), bits);
  }
  return held;
}
