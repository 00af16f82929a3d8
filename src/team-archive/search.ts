/**
 * Search in the team archive (issue 30): levels 1 and 2 with the local search's ranking code on the archive's rows.
 * The keyword leg ranks documents by FTS5's BM25 over the posting lists pushed with FTS5's own tokens, read from
 * PostgreSQL and scored here (keyword-rank.ts: the same scores as local search, within a float's rounding), cuts a
 * window of the best documents, and hands it to lexical.ts's own grouping: level 1 scores a session by its best turns
 * plus a share of its session document (groupBySession), level 2 adds a share of the better neighbouring turn
 * (smoothNeighbours); all-terms hits rank above any-term hits (tierAllThenAny), as in local search. With a vector leg
 * (vectors.ts: pgvector over the pushed chunk vectors of this machine's model) the two legs are fused as local search
 * fuses them: RSF with the model's calibrated weight scaled by the query's semantic share (fusion.ts, calibration.ts).
 * Row-level security decides which rows the role sees: a query never names a team.
 */
import type { VectorLeg } from "../search/api.ts";
import { calibrationFor } from "../search/ranking/calibration.ts";
import {
  confidentAt,
  keywordConfidence,
  keywordCoverage,
  termRarity,
  vectorConfidence,
} from "../search/ranking/confidence.ts";
import { fuseRelativeScores } from "../search/ranking/fusion.ts";
import { queryShape } from "../search/ranking/query-shape.ts";
import type { SearchFilters } from "../search/listing/filters.ts";
import {
  groupBySession,
  type LexicalHit,
  type SearchLevel,
  smoothNeighbours,
  tierAllThenAny,
  turnHits,
} from "../search/ranking/lexical.ts";
import { makeDocumentPreview, makePreview, type Preview } from "../search/reading/preview.ts";
import { parseLexicalQuery, requireQueryText, termWords, type LexicalQuery } from "../search/ranking/query.ts";
import type { ArchiveConnection } from "./connection.ts";
import {
  type ArchiveKeywordQuery,
  inSnapshot,
  prepareArchiveQuery,
  rankArchiveWindows,
  termsHeldBy,
} from "./keyword-rank.ts";
import { KeywordTokenizer } from "./keyword-tokens.ts";
import { type ArchiveSessionSummary, loadArchiveSessions } from "./sessions.ts";

/** A level-1 archive result: one session with its origin. */
export interface ArchiveSessionResult extends ArchiveSessionSummary {
  /** Fused score, 0–1, relative to the other candidates. */
  score: number;
  /** 0–1 (keyword calibration of the IDF-weighted share of the query terms the best document holds). */
  confidence: number;
  confident: boolean;
  matchedTerms: string[];
  /** Query terms the best document lacks, rarest first (as confidence.ts ResultConfidence). */
  missingTerms: string[];
  preview: Preview;
  bestTurn: number;
}

/** A level-2 archive result: one turn with its session and origin. */
export interface ArchiveTurnResult extends ArchiveSessionSummary {
  turn: number;
  timestamp: number;
  prompt: string;
  responseExcerpt: Preview;
  score: number;
  confidence: number;
  confident: boolean;
  matchedTerms: string[];
  /** Query terms the best document lacks, rarest first (as confidence.ts ResultConfidence). */
  missingTerms: string[];
}

/** A search of the archive. */
export interface ArchiveSearchRequest {
  query: string;
  level: SearchLevel;
  filters: SearchFilters;
  /** Results wanted (default 10 at level 1, 20 at level 2). */
  limit?: number;
  /** Results to skip first (the next page; default 0). */
  offset?: number;
}

/** The answer of {@link searchArchive}. */
export interface ArchiveSearchResponse {
  query: string;
  level: SearchLevel;
  archive: string;
  /** Offset of the next page, when more results were ranked. */
  nextOffset: number | undefined;
  /** "hybrid" when a vector leg ran (keyword and pgvector fused), else "keyword". */
  mode: "keyword" | "hybrid";
  results: ArchiveSessionResult[] | ArchiveTurnResult[];
  /** Lines to show the reader (e.g. the archive has no vectors of the model: keyword-only). */
  notices: string[];
  confident: boolean;
}

/** Documents ranked per wanted candidate (as lexical.ts: sessions have several documents). */
const windowPerCandidate = 8;

/** The terms each ranked document holds (bits by term index), learnt from the keyword windows, for confidence. */
type KeywordEvidence = Map<number, number>;

/**
 * The hits of one tier (all terms or any term): a window of the best documents by BM25 (keyword-rank.ts), through
 * the filters, grouped by lexical.ts's own code; the window grows 4x while it holds fewer than `candidates` keys and
 * more matched.
 */
async function rankWindow(
  connection: ArchiveConnection,
  query: ArchiveKeywordQuery,
  tier: "all" | "any",
  level: SearchLevel,
  filters: SearchFilters,
  candidates: number,
  exclude: Set<number>,
  spreadCounts: boolean,
  evidence: KeywordEvidence,
): Promise<LexicalHit[]> {
  for (let window = Math.max(candidates + exclude.size, 1) * windowPerCandidate; ; window *= 4) {
    const ranked = (await rankArchiveWindows(connection, query, level, filters, window))[tier];
    for (const row of ranked) evidence.set(row.document_id, row.matched);
    const rows = ranked.filter((row) => row.passes);
    const hits = level === "session" ? groupBySession(rows, exclude, spreadCounts) : turnHits(rows, exclude);
    if (hits.length >= candidates || ranked.length < window)
      return hits.sort((a, b) => b.score - a.score).slice(0, candidates);
  }
}

/** All-terms hits first (0.5–1), any-term hits below them (0–0.49), as lexical.ts's rankTerms. */
async function rankArchive(
  connection: ArchiveConnection,
  query: ArchiveKeywordQuery,
  level: SearchLevel,
  filters: SearchFilters,
  candidates: number,
  evidence: KeywordEvidence,
): Promise<LexicalHit[]> {
  const single = query.terms.length === 1;
  const all = await rankWindow(connection, query, "all", level, filters, candidates, new Set(), single, evidence);
  const ranked = await tierAllThenAny(level, all, single, candidates, (seen, wanted) =>
    rankWindow(connection, query, "any", level, filters, wanted, seen, true, evidence),
  );
  return level === "turn" ? smoothNeighbours(ranked, candidates) : ranked;
}

/**
 * Search the archive at level 1 (sessions) or 2 (turns): its keyword ranking, fused with the vector leg when one is given
 * (as local search fuses, without the confident-keyword tier, date boost and sub-agent down-rank: issue 39).
 * @throws UsageError for a query with no visible characters (requireQueryText: empty, spaces, zero-width or invalid
 *         UTF-8 only, the local search's one error); ArchiveError from the connection
 */
export async function searchArchive(
  connection: ArchiveConnection,
  request: ArchiveSearchRequest,
  vectorLeg?: VectorLeg,
): Promise<ArchiveSearchResponse> {
  const text = request.query.trim();
  const embeddable = requireQueryText(text);
  const limit = request.limit ?? (request.level === "session" ? 10 : 20);
  const query = parseLexicalQuery(text);
  const base = {
    query: request.query,
    level: request.level,
    archive: connection.url.display,
    mode: vectorLeg ? ("hybrid" as const) : ("keyword" as const),
    notices: vectorLeg ? [] : ["keyword-only search"], // a caller that knows why replaces it (chooseArchiveVectorLeg)
  };
  if (query.terms.length === 0 && !vectorLeg) return { ...base, results: [], confident: false, nextOffset: undefined };
  const offset = request.offset ?? 0;
  const candidates = Math.max(4 * (offset + limit), 100);
  const evidence: KeywordEvidence = new Map();
  const tokenizer = new KeywordTokenizer();
  let prepared: ArchiveKeywordQuery;
  let keywordHits: LexicalHit[];
  try {
    // one snapshot for the statistics, the posting lists and the windows' lookups (keyword-rank.ts inSnapshot)
    [prepared, keywordHits] = await inSnapshot(connection, async () => {
      const keywordQuery = await prepareArchiveQuery(connection, tokenizer, query);
      const hits =
        query.terms.length > 0
          ? await rankArchive(connection, keywordQuery, request.level, request.filters, candidates, evidence)
          : [];
      return [keywordQuery, hits] as const;
    });
  } finally {
    tokenizer.close();
  }
  const vectorHits = vectorLeg ? await vectorLeg.search(embeddable, request.level, request.filters, candidates) : [];
  // The local fusion (api.ts): RSF with the model's calibrated weight, scaled by how much the query reads as language.
  const { semanticShare } = queryShape(text);
  const alpha = vectorLeg ? calibrationFor(vectorLeg.model).vectorWeight * semanticShare : 0;
  const keyOf = (hit: LexicalHit) => (request.level === "session" ? hit.sessionRowid : hit.documentId);
  const best = new Map<number, LexicalHit>();
  for (const hit of [...vectorHits, ...keywordHits]) best.set(keyOf(hit), hit); // keyword's best document wins the preview
  const cosineOf = new Map(vectorHits.map((hit) => [keyOf(hit), hit.score]));
  const fused = fuseRelativeScores(
    keywordHits.map((hit) => ({ key: keyOf(hit), score: hit.score })),
    vectorHits.map((hit) => ({ key: keyOf(hit), score: hit.score })),
    alpha,
  );
  const nextOffset = fused.length > offset + limit ? offset + limit : undefined;
  const hits = fused
    .slice(offset, offset + limit)
    .map((entry) => ({ ...best.get(entry.key)!, score: entry.score, cosine: cosineOf.get(entry.key) }));
  const documentIds = [...new Set(hits.map((hit) => hit.documentId))];
  const sessionIds = [...new Set(hits.map((hit) => hit.sessionRowid))];
  const sessions = await loadArchiveSessions(connection, sessionIds);
  const documents = new Map(
    (
      await connection.query<{ id: string; heading: string; body: string; extra: string }>(
        "SELECT id, heading, body, extra FROM recall.documents WHERE id = ANY($1::bigint[])",
        [documentIds],
      )
    ).map((row) => [Number(row.id), row]),
  );
  const judged = await judge(connection, query, prepared, evidence, documentIds);
  let above = true; // confident results are the top of the ranking (api.ts confidentPrefix)
  const verdicts = hits.map((hit) => {
    const verdict = judged.get(hit.documentId) ?? { confidence: 0, matchedTerms: [], missingTerms: [] };
    const vector =
      hit.cosine !== undefined && vectorLeg?.model
        ? (vectorConfidence(hit.cosine, vectorLeg.model) ?? 0) * semanticShare
        : 0;
    const confidence = Math.max(verdict.confidence, vector); // as confidence.ts assessConfidence
    above = above && confidence >= confidentAt;
    return { ...verdict, confidence, confident: above };
  });
  if (request.level === "session") {
    const results: ArchiveSessionResult[] = hits.flatMap((hit, index) => {
      const row = sessions.get(hit.sessionRowid);
      if (!row) return [];
      const document = documents.get(hit.documentId);
      return [
        {
          ...row,
          score: hit.score,
          ...verdicts[index]!,
          // the local chooser (hydrate.ts): the prompt and reply when they hold a query word, tool lines only if not
          preview: document
            ? makeDocumentPreview(document, query.highlightWords)
            : makePreview("", query.highlightWords),
          bestTurn: hit.turnNumber,
        },
      ];
    });
    return { ...base, results, confident: results[0]?.confident === true, nextOffset };
  }
  const turns = new Map(
    (
      await connection.query<{ session: string; number: number; timestamp: string; prompt: string; response: string }>(
        `SELECT t.session, t.number, t.timestamp, t.prompt, t.response FROM recall.turns t
         JOIN unnest($1::bigint[], $2::integer[]) AS w(session, number) ON t.session = w.session AND t.number = w.number`,
        [hits.map((hit) => hit.sessionRowid), hits.map((hit) => hit.turnNumber)],
      )
    ).map((row) => [`${row.session}:${row.number}`, row]),
  );
  const results: ArchiveTurnResult[] = hits.flatMap((hit, index) => {
    const row = sessions.get(hit.sessionRowid);
    const turn = turns.get(`${hit.sessionRowid}:${hit.turnNumber}`);
    if (!row || !turn) return [];
    return [
      {
        ...row,
        turn: turn.number,
        timestamp: Number(turn.timestamp),
        prompt: turn.prompt,
        responseExcerpt: makePreview(turn.response, query.highlightWords, 400),
        score: hit.score,
        ...verdicts[index]!,
      },
    ];
  });
  return { ...base, results, confident: results[0]?.confident === true, nextOffset };
}

/**
 * Confidence of each document: the IDF-weighted share of the query's terms it holds (IDF from the archive rows the
 * role sees, counted and capped as locally: confidence.ts termRarity), through the local keyword calibration. The terms a
 * document holds come from the keyword windows; a document only the vector leg found is looked up in the posting
 * lists the search read.
 */
async function judge(
  connection: ArchiveConnection,
  query: LexicalQuery,
  prepared: ArchiveKeywordQuery,
  evidence: KeywordEvidence,
  documentIds: readonly number[],
): Promise<Map<number, { confidence: number; matchedTerms: string[]; missingTerms: string[] }>> {
  if (documentIds.length === 0 || query.terms.length === 0) return new Map();
  const unknown = documentIds.filter((id) => !evidence.has(id));
  for (const [id, bits] of await termsHeldBy(connection, prepared, unknown)) evidence.set(id, bits);
  const rarities = query.terms.map((term, i) =>
    termRarity(term, prepared.statistics.matches[i]!, prepared.statistics.documents),
  );
  const byRarity = [...rarities].sort((a, b) => b.idf - a.idf);
  return new Map(
    documentIds.map((id) => {
      const bits = evidence.get(id) ?? 0;
      const held = new Set(query.terms.filter((_, i) => (bits >> i) & 1));
      const coverage = keywordCoverage(rarities, held);
      const missingTerms = byRarity.filter((rarity) => !held.has(rarity.term)).map((rarity) => termWords(rarity.term));
      return [id, { confidence: keywordConfidence(coverage), matchedTerms: [...held].map(termWords), missingTerms }];
    }),
  );
}
