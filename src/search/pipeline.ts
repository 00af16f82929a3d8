/**
 * The one search pipeline (issue 39), over any store (store.ts: the local index, the team archive):
 *   1. parse the user text (query.ts); a query with nothing visible (empty, spaces, only invisible format
 *      characters, or bytes that were not UTF-8) is a usage error;
 *   2. over-fetch candidates from each leg that runs: max(4 × (offset + limit), 100) (keyword: the store's
 *      `keywordHits`, or what was active in the named dates for a query of nothing but a date; vector: the injected
 *      `VectorLeg`, absent when no vectors or model are available; when embedding the query fails because the
 *      endpoint stopped answering, the search runs keyword-only with a notice);
 *   3. fuse, keyed by session (level 1) or turn document (level 2): hybrid by evidence tiers (fusion.ts
 *      `fuseByEvidence`: keyword candidates with a confident match first, the rest by RSF with the model's calibrated
 *      vector weight), one leg alone by its own order;
 *   4. down-rank sub-agent sessions (× 0.85) when they are included; rank by the dates the query names ("in July
 *      2022", "last week": time-query.ts reads them, time-boost.ts multiplies scores outside them by 0.3);
 *   5. judge the page `offset … offset + limit` (confidence.ts), from the first result on (confidentPrefix).
 * The caller hydrates the page from its store's rows. Never prints; notices are returned.
 */
import { EmbedError, UsageError } from "../errors.ts";
import type { SearchFilters } from "./listing/filters.ts";
import { parseLimit, parseOffset } from "./listing/paging.ts";
import {
  calibrationFor,
  defaultCalibrations,
  type Calibrations,
  type ResolvedCalibration,
} from "./ranking/calibration.ts";
import { judgeResults, type ResultConfidence, type TermRarity } from "./ranking/confidence.ts";
import { dateOnlyCandidates } from "./ranking/date-candidates.ts";
import { fuseByEvidence, fuseRelativeScores, type FusedHit } from "./ranking/fusion.ts";
import type { LexicalHit, SearchLevel } from "./ranking/lexical.ts";
import { parseLexicalQuery, requireQueryText, type LexicalQuery } from "./ranking/query.ts";
import { queryShape } from "./ranking/query-shape.ts";
import { boostByDates, dateTermsOf, type UnderstoodDate } from "./dates/time-boost.ts";
import { parseTimeQuery } from "./dates/time-query.ts";
import type { CandidateStore } from "./store.ts";

/** Which legs run: both (default), or one. */
export type SearchMode = "hybrid" | "keyword" | "vector";

/** A candidate of the vector leg; same shape as a keyword hit, `score` = cosine similarity (−1…1). */
export type VectorHit = LexicalHit;

/**
 * The vector leg, provided by the caller when vectors and a model are available.
 * `search` must apply the filters before its top-k cut and return at most `candidates` hits,
 * one per session at level 1 (its best chunk) or one per turn document at level 2.
 */
export interface VectorLeg {
  /** The embedding model's name (its fingerprint's `name`), which picks the vector leg's confidence calibration. */
  readonly model?: string;
  search(query: string, level: SearchLevel, filters: SearchFilters, candidates: number): Promise<VectorHit[]>;
}

/** Sub-agent sessions keep this share of their score when included (down-ranked, not hidden). */
export const subagentScoreFactor = 0.85;

/**
 * A fused candidate with the document that represents it and each leg's raw evidence: `keywordRaw` (LexicalHit.raw,
 * −bm25 based) when the keyword leg found it, `cosine` (−1…1) when the vector leg did.
 */
export type RankedHit = FusedHit<number> & {
  hit: LexicalHit;
  keywordRaw: number | undefined;
  cosine: number | undefined;
  /** The factor the query's dates gave its score (time-boost.ts `dateFactors`); undefined when no date applied. */
  dateFactor?: number;
};

/** A ranked candidate of the page, with its confidence verdict (confidence.ts). */
export type JudgedHit = RankedHit & { verdict: ResultConfidence };

/** What {@link rankSearch} ranks. */
export interface RankRequest {
  query: string;
  level: SearchLevel;
  filters: SearchFilters;
  /** Results wanted, 1–1000 (paging.ts); default `defaultLimit`. */
  limit?: number;
  /** The store's page size when `limit` is not given (local search: 5 sessions or 10 turns). */
  defaultLimit: number;
  /** Results to skip first; default 0. */
  offset?: number;
  /** Requested mode; default hybrid. */
  mode?: SearchMode;
  /** Vector weight of hybrid fusion, 0–1; default the model's calibrated weight × the query's semantic share. */
  alpha?: number;
  /** Reference instant for dates in the query such as "last week" (epoch ms); default now. */
  now?: number;
  /**
   * The calibration to rank and judge with (fusion weight, confidence curves); default the committed one
   * (calibration.json). Local search passes the user's own tuning when there is one (tuning.ts).
   */
  calibrations?: Calibrations;
}

/** The ranked page and how it was ranked. */
export interface RankedPage {
  /** The parsed query (its `highlightWords` are what previews highlight). */
  query: LexicalQuery;
  /** The mode that ran. */
  mode: SearchMode;
  /** One-line notices for stderr, e.g. why the search fell back to keyword-only. */
  notices: string[];
  /** The page, best first, each judged. */
  page: JudgedHit[];
  offset: number;
  /** Offset of the next page, or undefined when no further candidate ranked. */
  nextOffset: number | undefined;
  /** The vector leg's weight in the fusion that ran: 0 keyword-only, 1 vector-only, else the hybrid weight used. */
  vectorWeight: number;
  /**
   * How far the query is natural language (0 identifiers or one word … 1 a sentence; query-shape.ts): it scaled the
   * model's weight into `vectorWeight` (unless `alpha` was given) and the cosine's share of confidence.
   */
  semanticShare: number;
  /** The vector leg's calibration, when a vector leg ran; undefined for keyword-only. */
  calibration: ResolvedCalibration | undefined;
  /** Dates the query named and whether the ranking used them, in query order; [] when none. */
  dates: UnderstoodDate[];
  /**
   * Whether the answer holds a confident match: its first result is one ({@link confidentPrefix}: then the confident
   * results are the top of the ranking). False for an empty answer. When false, front ends say "no confident match"
   * above the results, which are all marked weak (issue 26: one rule for the header, the marks and the JSON).
   */
  confident: boolean;
  /** Every ranked candidate's session, best first (for facets). */
  rankedSessions: number[];
}

/**
 * Rank a search over a store (module doc).
 * @throws UsageError for a query with no visible characters (requireQueryText), an alpha outside 0–1, a limit outside
 *         1–1000 or a negative offset (paging.ts wording); EmbedError EMBEDDINGS_MISSING (exit 1) for mode "vector"
 *         without a vector leg; whatever the store throws
 */
export async function rankSearch(
  store: CandidateStore,
  request: RankRequest,
  vectorLeg?: VectorLeg,
): Promise<RankedPage> {
  const text = request.query.trim();
  const embeddable = requireQueryText(text);
  const calibrations = request.calibrations ?? defaultCalibrations;
  const calibration = calibrationFor(vectorLeg?.model, calibrations);
  const { semanticShare } = queryShape(text);
  const alpha = request.alpha ?? calibration.vectorWeight * semanticShare;
  if (!(alpha >= 0 && alpha <= 1)) throw new UsageError(`alpha must be between 0 and 1, got ${request.alpha}`);
  const limit = parseLimit(request.limit, request.defaultLimit);
  const offset = parseOffset(request.offset);
  const candidates = Math.max(4 * (offset + limit), 100);
  const notices: string[] = [];
  let mode: SearchMode = request.mode ?? "hybrid";
  if (mode !== "keyword" && !vectorLeg) {
    if (mode === "vector")
      throw new EmbedError("EMBEDDINGS_MISSING", "vector search needs embeddings, and none are available", {
        hint: "run `recall index` with a model (see `recall model pull`)",
      });
    notices.push("keyword-only search: no embeddings are available yet (run `recall index` with a model to add them)");
    mode = "keyword";
  }
  const query = parseLexicalQuery(text);
  let vectorHits: VectorHit[] = [];
  if (mode !== "keyword" && vectorLeg) {
    try {
      vectorHits = await vectorLeg.search(embeddable, request.level, request.filters, candidates);
    } catch (error) {
      // An endpoint that answered when the search began and then failed (a restart, an overloaded server): the words
      // still answer. Vector-only has nothing to fall back to.
      if (!(error instanceof EmbedError) || error.code !== "ENDPOINT_UNREACHABLE" || mode === "vector") throw error;
      notices.push(`keyword-only search: ${error.message}`);
      mode = "keyword";
    }
  }
  const { expressions } = await parseTimeQuery(text, request.now);
  const dateTerms = dateTermsOf(query, expressions);
  const wantsKeyword = mode !== "vector" && query.terms.length > 0;
  const textHits = wantsKeyword ? await store.keywordHits(query, request.level, request.filters, candidates) : [];
  // A query of nothing but a date ("what did we do last week") asks for what happened then, not for text saying so.
  const dateOnly = wantsKeyword && query.terms.every((term) => dateTerms.has(term));
  const fromDates = dateOnly
    ? await dateOnlyCandidates(expressions, candidates, (range) =>
        store.activeIn(range, request.level, request.filters, candidates),
      )
    : [];
  const keywordHits = fromDates.length > 0 ? fromDates : textHits;
  const vectorWeight = mode === "keyword" ? 0 : mode === "vector" ? 1 : alpha;
  const rarities = query.terms.length > 0 ? await store.termRarities(query) : []; // counted once, judged twice
  const confidentKeyword =
    mode === "hybrid"
      ? await confidentKeywordHits(store, query, keywordHits, rarities, calibrations)
      : new Set<LexicalHit>();
  const fused = fuseHits(keywordHits, vectorHits, request.level, vectorWeight, confidentKeyword);
  const downRanked = await downRankSubagents(store, fused, request.filters);
  const spans =
    expressions.length > 0 && downRanked.length > 0
      ? await store.activitySpans(
          downRanked.map((hit) => hit.hit),
          request.level,
        )
      : new Map();
  const { ranked, dates } = boostByDates(downRanked, request.level, expressions, spans);
  // Judged from the first result on, so a page after the first keeps the rule (confidentPrefix).
  const judged = ranked.slice(0, offset + limit);
  const held = await store.termsHeld(query, [...new Set(judged.map((hit) => hit.hit.documentId))]);
  const verdicts = confidentPrefix(
    judgeResults(
      query,
      judged.map((hit) => ({
        documentId: hit.hit.documentId,
        keywordRaw: hit.keywordRaw,
        cosine: hit.cosine,
        dateFactor: hit.dateFactor,
      })),
      held,
      rarities,
      vectorLeg?.model,
      { calibrations, semanticShare, dates: { terms: dateTerms, applied: dates.some((date) => date.applied) } },
    ),
  );
  const page = judged.slice(offset).map((hit, index) => ({ ...hit, verdict: verdicts[offset + index]! }));
  return {
    query,
    mode,
    notices,
    page,
    offset,
    nextOffset: ranked.length > offset + limit ? offset + limit : undefined,
    vectorWeight,
    semanticShare,
    calibration: mode === "keyword" ? undefined : calibration,
    dates,
    confident: verdicts[0]?.confident === true && page.length > 0,
    rankedSessions: [...new Set(ranked.map((hit) => hit.hit.sessionRowid))],
  };
}

/**
 * One rule for every front end (issue 26): a result is a confident match when its confidence is at or above the mark
 * and every result ranked above it is one too, so the confident results are the top of the ranking and an answer whose
 * first result is weak holds no confident match at all. Without it, "no confident match" stood above a result marked
 * confident; letting any result make the answer confident instead turned 2 of 16 labelled negatives confident, by a
 * lower result the keyword calibration misjudged. `confidence` itself is unchanged.
 */
export function confidentPrefix(verdicts: readonly ResultConfidence[]): ResultConfidence[] {
  let above = true;
  return verdicts.map((verdict) => {
    above = above && verdict.confident;
    return above === verdict.confident ? verdict : { ...verdict, confident: false };
  });
}

/**
 * The hybrid fusion's upper tier: the keyword candidates down to the lowest-scoring one whose best document is a
 * confident match (confidence.ts), so the tier keeps the keyword leg's own order. Tiering only the confident ones
 * lifted a confident candidate above better-scored keyword candidates that keyword-only search ranks first (LoCoMo
 * sample of 400 with the shared GloVe model, single-hop hit@1: 80.7% before this rule, 81.4% with it, 82.0% keyword-only;
 * with the weight-scaled tie-break of fusion.ts 82.6%).
 */
async function confidentKeywordHits(
  store: CandidateStore,
  query: LexicalQuery,
  keyword: LexicalHit[],
  rarities: readonly TermRarity[],
  calibrations: Calibrations,
): Promise<Set<LexicalHit>> {
  if (keyword.length === 0) return new Set();
  const held = await store.termsHeld(query, [...new Set(keyword.map((hit) => hit.documentId))]);
  const verdicts = judgeResults(
    query,
    keyword.map((hit) => ({ documentId: hit.documentId, keywordRaw: hit.raw, cosine: undefined })),
    held,
    rarities,
    undefined,
    { calibrations },
  );
  const lowest = Math.min(...keyword.filter((_, index) => verdicts[index]!.confident).map((hit) => hit.score));
  return new Set(keyword.filter((hit) => hit.score >= lowest));
}

function fuseHits(
  keyword: LexicalHit[],
  vector: VectorHit[],
  level: SearchLevel,
  vectorWeight: number,
  confidentKeyword: Set<LexicalHit>,
): RankedHit[] {
  const keyOf = (hit: LexicalHit) => (level === "session" ? hit.sessionRowid : hit.documentId);
  const best = new Map<number, LexicalHit>();
  for (const hit of [...vector, ...keyword]) best.set(keyOf(hit), hit); // keyword's best document wins the preview
  const keywordLeg = keyword.map((hit) => ({ key: keyOf(hit), score: hit.score }));
  const vectorLeg = vector.map((hit) => ({ key: keyOf(hit), score: hit.score }));
  const fused =
    vectorWeight > 0 && vectorWeight < 1
      ? fuseByEvidence(keywordLeg, vectorLeg, new Set([...confidentKeyword].map(keyOf)), vectorWeight)
      : fuseRelativeScores(keywordLeg, vectorLeg, vectorWeight);
  const keywordRaw = new Map(keyword.map((hit) => [keyOf(hit), hit.raw ?? hit.score]));
  const cosine = new Map(vector.map((hit) => [keyOf(hit), hit.score]));
  return fused.map((entry) => ({
    ...entry,
    hit: best.get(entry.key)!,
    keywordRaw: keywordRaw.get(entry.key),
    cosine: cosine.get(entry.key),
  }));
}

async function downRankSubagents(
  store: CandidateStore,
  hits: RankedHit[],
  filters: SearchFilters,
): Promise<RankedHit[]> {
  if (!filters.includeSubagents || hits.length === 0) return hits;
  const subagents = await store.subagentSessions([...new Set(hits.map((hit) => hit.hit.sessionRowid))]);
  return hits
    .map((hit) => (subagents.has(hit.hit.sessionRowid) ? { ...hit, score: hit.score * subagentScoreFactor } : hit))
    .sort((a, b) => b.score - a.score);
}
