/**
 * Absolute confidence (issue 13): whether a result really answers the query, on a 0–1 scale that means the
 * same for every query, unlike the fused score (min-max normalized per query, so the top result always
 * scores about 1, for "zzqx florbnak" as for a perfect hit).
 *
 * Evidence per result, from each leg's raw scores:
 *   keyword: the IDF-weighted share of the query's terms that the result's best document holds,
 *            coverage = Σ idf(matched terms) / Σ idf(all terms), idf = ln(1 + (N − df + 0.5) / (df + 0.5))
 *            (the BM25 idf of Robertson & Zaragoza 2009, as FTS5 computes it; N = documents, df = documents
 *            holding the term). A query word found nowhere in the index weighs most, so "docker bridge MTU"
 *            over a history that never mentions MTU is not confident although three of four words match;
 *   vector:  the raw cosine similarity of the result's best chunk.
 * Each is mapped to a probability by a logistic curve p = 1 / (1 + e^−(slope·x + intercept)) (Platt scaling,
 * Platt 1999) whose constants are data, fitted by `bun scripts/calibrate-confidence.ts` on labelled queries
 * (test/corpus/queries.json: positives and negatives written from the real corpus) and kept in calibration.json, the
 * vector leg's per model (calibration.ts). A result's confidence is the larger of its legs'; it is `confident` at 0.5
 * or more. The vector leg counts only as far as the query is natural language (query-shape.ts: its semantic share
 * scales the vector probability, so a cosine never makes an identifier query confident), and only for a model whose
 * cosine was found to separate hits from misses (GloVe mean vectors give negatives' best cosines of 0.77–1.00, as
 * high as hits'; a model without calibration adds none).
 *
 * Date words (issue 38, item 3): the words of a date the query names ("last week", "in april") count by the result's
 * date, never by its text: held when the date was applied (time-boost.ts) and the result falls inside it, and left out
 * of the coverage when the date matched nothing. So "what did we do last week" over a history with nothing from then
 * is no confident match (a session that merely says "last week" scored 0.98), and "postgres schema in april" keeps its
 * best result confident when April matched nothing.
 */
import type { Database } from "bun:sqlite";
import { unsegmentedLetter, unsegmentedRuns } from "../../index/write/cjk.ts";
import { readDocumentCount } from "../../index/store/scope-counts.ts";
import { calibrationFor, defaultCalibrations, type Calibrations, type LogisticCurve } from "./calibration.ts";
import { matchedTerms } from "./lexical.ts";
import { termWords, type LexicalQuery } from "./query.ts";

/** Confidence at or above which a result (and an answer whose first result is one) counts as confident. */
export const confidentAt = 0.5;

/** Document frequencies are counted up to this many documents (a term in more is common: idf near its floor). */
const documentFrequencyCap = 5000;

/** One query term with its rarity. */
export interface TermRarity {
  /** The term as in `LexicalQuery.terms` (an FTS5 fragment). */
  term: string;
  /** Documents holding it, counted up to {@link documentFrequencyCap}. */
  documents: number;
  /** BM25 idf, ≥ 0 (see the module doc). */
  idf: number;
  /** Documents of the store it was counted in (N of the idf): `--everywhere` takes the larger store's rarities. */
  total: number;
}

/** The evidence and verdict of one result. */
export interface ResultConfidence {
  /** 0–1 probability-like confidence (see the module doc). */
  confidence: number;
  /** `confidence >= confidentAt`. */
  confident: boolean;
  /**
   * Query terms the result's best document holds, as plain words (an identifier as its words joined by spaces); a date
   * term when the result falls inside an applied date.
   */
  matchedTerms: string[];
  /** Query terms counted in the coverage that the best document lacks, as plain words, rarest first (date terms excluded). */
  missingTerms: string[];
  /** Whether a date of the query was applied and the result falls outside it (then its date terms are not held). */
  outsideDates: boolean;
  /** IDF-weighted share of the query's terms the best document holds, 0–1 (0 when the keyword leg did not find it). */
  coverage: number;
  /** The keyword leg's raw score (−bm25 based, see LexicalHit.raw), when it found the result. */
  keywordRaw: number | undefined;
  /** The vector leg's raw cosine similarity, when it found the result. */
  cosine: number | undefined;
}

/** What {@link judgeResults} needs of a ranked result. */
export interface ConfidenceInput {
  documentId: number;
  keywordRaw: number | undefined;
  cosine: number | undefined;
  /** The factor the query's dates gave it (RankedHit.dateFactor): 1 inside an applied date; undefined when none applied. */
  dateFactor?: number;
}

/** The dates of a query, as {@link judgeResults} weighs them. */
export interface DateEvidence {
  /** Query terms that are words of a named date (time-boost.ts `dateTermsOf`). */
  terms: ReadonlySet<string>;
  /** Whether a named date was applied: some candidate falls in or near it (time-boost.ts `boostByDates`). */
  applied: boolean;
}

const logistic = (curve: LogisticCurve, x: number): number => 1 / (1 + Math.exp(-(curve.slope * x + curve.intercept)));

/**
 * Rarity of each query term in the index: one capped count per term (terms in an unsegmented script are
 * counted in the trigram side index, as substrings).
 * @param known document counts the search already has for some terms (postings-ranking.ts `phraseDocumentCounts`:
 *        the same numbers as FTS5's); the other terms are counted here
 */
export function termRarities(
  db: Database,
  query: LexicalQuery,
  known: ReadonlyMap<string, number> = new Map(),
): TermRarity[] {
  const total = readDocumentCount(db);
  // prepared only for a term the search has no count of: usually none, since the keyword leg scored them all
  const countInFts = (term: string) =>
    db
      .query<{ n: number }, [string, number]>(
        "SELECT count(*) AS n FROM (SELECT 1 FROM documents_fts WHERE documents_fts MATCH ? LIMIT ?)",
      )
      .get(term, documentFrequencyCap)?.n ?? 0;
  return query.terms.map((term) => {
    const documents = unsegmentedLetter.test(term) ? countUnsegmented(db, term) : (known.get(term) ?? countInFts(term));
    return termRarity(term, documents, total);
  });
}

/**
 * The rarity of `term`, held by `documents` of `total` documents: the count capped at {@link documentFrequencyCap},
 * and the BM25 idf of the module doc.
 */
export function termRarity(term: string, documents: number, total: number): TermRarity {
  const counted = Math.min(documents, documentFrequencyCap);
  return {
    term,
    documents: counted,
    idf: Math.log(1 + (Math.max(total, counted) - counted + 0.5) / (counted + 0.5)),
    total,
  };
}

/** The IDF-weighted share of the query's terms (`rarities`, one per term) that a document holds (`held`), 0–1. */
export function keywordCoverage(rarities: readonly TermRarity[], held: ReadonlySet<string>): number {
  const totalIdf = rarities.reduce((sum, rarity) => sum + rarity.idf, 0);
  if (totalIdf <= 0) return 0;
  return rarities.reduce((sum, rarity) => sum + (held.has(rarity.term) ? rarity.idf : 0), 0) / totalIdf;
}

function countUnsegmented(db: Database, term: string): number {
  const runs = unsegmentedRuns(termWords(term));
  if (runs.length === 0) return 0;
  return (
    db
      .query<{ n: number }, Array<string | number>>(
        `SELECT count(*) AS n FROM (SELECT 1 FROM documents_cjk WHERE ${runs.map(() => "text LIKE ?").join(" AND ")} LIMIT ?)`,
      )
      .get(...runs.map((run) => `%${run}%`), documentFrequencyCap)?.n ?? 0
  );
}

/** Which terms in an unsegmented script each document holds (substring test in the side index). */
function matchedUnsegmented(
  db: Database,
  terms: readonly string[],
  documentIds: readonly number[],
): Map<number, string[]> {
  const matched = new Map<number, string[]>(documentIds.map((id) => [id, []]));
  const statement = db.query<{ hit: number }, Array<string | number>>(
    "SELECT 1 AS hit FROM documents_cjk WHERE rowid = ? AND text LIKE ?",
  );
  for (const term of terms) {
    const runs = unsegmentedRuns(termWords(term));
    for (const id of documentIds) {
      if (runs.length > 0 && runs.every((run) => statement.get(id, `%${run}%`) !== null)) matched.get(id)!.push(term);
    }
  }
  return matched;
}

/**
 * Keyword confidence of a coverage value, through the calibrated keyword curve.
 * @param coverage IDF-weighted share of the query's terms held, 0–1
 */
export function keywordConfidence(coverage: number, calibrations: Calibrations = defaultCalibrations): number {
  return coverage > 0 ? logistic(calibrations.keyword, coverage) : 0;
}

/**
 * Vector confidence of a raw cosine for a model, or undefined when its calibration has no curve (calibration.ts).
 * @param model the embedding model's name as its fingerprint records it (e.g. `universal-sentence-encoder-lite`)
 */
export function vectorConfidence(
  cosine: number,
  model: string,
  calibrations: Calibrations = defaultCalibrations,
): number | undefined {
  const curve = calibrationFor(model, calibrations).vector;
  return curve ? logistic(curve, cosine) : undefined;
}

/**
 * The query terms each document of the local index holds: one small MATCH per term over the documents (FTS5), and
 * a substring test in the side index for terms in an unsegmented script (index/write/cjk.ts).
 * @param holdingEvery which of the documents are known to hold every segmented term (the search's own scoring of them:
 *        postings-ranking.ts `documentsHoldingEvery`); those need no MATCH. Undefined, or an answer of undefined: none
 * @returns every document id mapped to its terms, as in `query.terms` ([] when it holds none)
 */
export function termsHeldInIndex(
  db: Database,
  query: LexicalQuery,
  documentIds: readonly number[],
  holdingEvery?: (segmented: readonly string[], ids: readonly number[]) => ReadonlySet<number> | undefined,
): Map<number, string[]> {
  const segmented = query.terms.filter((term) => !unsegmentedLetter.test(term));
  const unsegmented = query.terms.filter((term) => unsegmentedLetter.test(term));
  const known = segmented.length > 0 ? holdingEvery?.(segmented, documentIds) : undefined;
  const fts = matchedTerms(
    db,
    { ...query, terms: segmented },
    known ? documentIds.filter((id) => !known.has(id)) : documentIds,
  );
  for (const id of known ?? []) fts.set(id, [...segmented]);
  const side = unsegmented.length > 0 ? matchedUnsegmented(db, unsegmented, documentIds) : new Map<number, string[]>();
  return new Map(documentIds.map((id) => [id, [...(fts.get(id) ?? []), ...(side.get(id) ?? [])]]));
}

/** Options of {@link judgeResults}. */
export interface JudgeOptions {
  /** Default: the committed calibration (calibration.json). */
  calibrations?: Calibrations;
  /** How far the query is natural language, 0–1 (query-shape.ts): scales the vector probability; default 1. */
  semanticShare?: number;
  /** The query's date terms and whether a date was applied (module doc); default: none, every term counts by text. */
  dates?: DateEvidence;
}

/**
 * Judge results from their evidence (no I/O: the store gave the terms each document holds and the rarities).
 * @param held the query terms each result's document holds (CandidateStore.termsHeld, or {@link termsHeldInIndex})
 * @param rarities the query's term rarities, in `query.terms` order
 * @param model the vector leg's model name, when a vector leg ran
 * @returns one verdict per input, in order
 */
export function judgeResults(
  query: LexicalQuery,
  results: readonly ConfidenceInput[],
  held: ReadonlyMap<number, readonly string[]>,
  rarities: readonly TermRarity[],
  model: string | undefined,
  options: JudgeOptions = {},
): ResultConfidence[] {
  const calibrations = options.calibrations ?? defaultCalibrations;
  const dateTerms = options.dates?.terms ?? new Set<string>();
  const applied = options.dates?.applied === true;
  // A date that matched nothing is left out of the coverage; a query that is nothing but such a date has nothing left
  // to be confident about, by words or by meaning.
  const weighed = applied ? rarities : rarities.filter((rarity) => !dateTerms.has(rarity.term));
  const onlyUnmatchedDates = weighed.length === 0 && dateTerms.size > 0;
  const semanticShare = onlyUnmatchedDates ? 0 : (options.semanticShare ?? 1);
  const byRarity = [...weighed].sort((a, b) => b.idf - a.idf);
  return results.map((result) => {
    const inside = applied && result.dateFactor === 1;
    const holds = new Set((held.get(result.documentId) ?? []).filter((term) => !dateTerms.has(term)));
    if (inside) for (const term of dateTerms) holds.add(term);
    const coverage = keywordCoverage(weighed, holds);
    const keyword = keywordConfidence(coverage, calibrations);
    const vector =
      result.cosine !== undefined && model !== undefined
        ? (vectorConfidence(result.cosine, model, calibrations) ?? 0) * semanticShare
        : 0;
    const confidence = Math.max(keyword, vector);
    return {
      confidence,
      confident: confidence >= confidentAt,
      matchedTerms: query.terms.filter((term) => holds.has(term)).map(termWords),
      missingTerms: byRarity
        .filter((rarity) => !holds.has(rarity.term) && !dateTerms.has(rarity.term))
        .map((rarity) => termWords(rarity.term)),
      outsideDates: applied && !inside,
      coverage,
      keywordRaw: result.keywordRaw,
      cosine: result.cosine,
    };
  });
}
