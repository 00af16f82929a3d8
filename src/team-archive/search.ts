/**
 * Search in the team archive (issue 30): levels 1 and 2 with the local search's ranking code on PostgreSQL's
 * candidates. The keyword leg ranks documents by ts_rank over their generated tsvector (weights A heading 1.0, B body
 * 0.5, C extra 0.5: FTS5's 2:1:1; normalization 1 divides by 1 + log(document length), BM25's length damping), cuts a
 * window of the best documents, and hands it to lexical.ts's own grouping: level 1 scores a session by its best turns
 * plus a share of its session document (groupBySession), level 2 adds a share of the better neighbouring turn
 * (smoothNeighbours); all-terms hits rank above any-term hits (tierAllThenAny), as in local search. With a vector leg
 * (vectors.ts: pgvector over the pushed chunk vectors of this machine's model) the two legs are fused as local search
 * fuses them: RSF with the model's calibrated weight scaled by the query's semantic share (fusion.ts, calibration.ts).
 * Row-level security decides which rows the role sees: a query never names a team.
 */
import { UsageError } from "../errors.ts";
import type { VectorLeg } from "../search/api.ts";
import { calibrationFor } from "../search/calibration.ts";
import { confidentAt, keywordConfidence, vectorConfidence } from "../search/confidence.ts";
import { fuseRelativeScores } from "../search/fusion.ts";
import { queryShape } from "../search/query-shape.ts";
import type { SearchFilters } from "../search/filters.ts";
import {
  groupBySession,
  type LexicalHit,
  type SearchLevel,
  smoothNeighbours,
  tierAllThenAny,
  turnHits,
} from "../search/lexical.ts";
import { makePreview, type Preview } from "../search/preview.ts";
import { parseLexicalQuery, termWords, type LexicalQuery } from "../search/query.ts";
import type { ArchiveConnection } from "./connection.ts";
import { archiveFilterSql, type ArchiveSessionSummary, loadArchiveSessions } from "./sessions.ts";

/** A level-1 archive result: one session with its origin. */
export interface ArchiveSessionResult extends ArchiveSessionSummary {
  /** Fused score, 0–1, relative to the other candidates. */
  score: number;
  /** 0–1 (keyword calibration of the IDF-weighted share of the query terms the best document holds). */
  confidence: number;
  confident: boolean;
  matchedTerms: string[];
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

/**
 * One query term as a tsquery expression over `$n` parameters: a phrase of its words (`phraseto_tsquery`: stemmed,
 * in order) or, for an identifier prefix (`"7acd37a"*`), a prefix match of its last word. ASCII punctuation becomes a
 * space, as in the documents' tsvector.
 */
function termQuery(term: string, parameter: number): string {
  const prefix = term.endsWith("*");
  return prefix
    ? `to_tsquery('recall.text', regexp_replace(trim(regexp_replace($${parameter}, '[[:punct:][:space:]]+', ' ', 'g')), ' ', ' <-> ', 'g') || ':*')`
    : `phraseto_tsquery('recall.text', regexp_replace($${parameter}, '[[:punct:]]+', ' ', 'g'))`;
}

/** A tsquery expression of every term, joined by && (all terms) or || (any term), and its parameters. */
function tsquery(query: LexicalQuery, join: "&&" | "||", first: number): { sql: string; params: string[] } {
  const words = query.terms.map(termWords);
  return {
    sql: `(${query.terms.map((term, i) => termQuery(term, first + i)).join(` ${join} `)})`,
    params: words,
  };
}

interface WindowRow {
  document_id: string;
  session_rowid: string;
  turn_number: number;
  level: string;
  rank: number;
}

/**
 * One ranked window: the best documents for the tsquery, through the filters, best first (rank = −ts_rank, lower is
 * better, as lexical.ts's rows). The window grows 4x while it holds fewer than `candidates` keys and more matched.
 */
async function rankWindow(
  connection: ArchiveConnection,
  query: LexicalQuery,
  join: "&&" | "||",
  level: SearchLevel,
  filters: SearchFilters,
  candidates: number,
  exclude: Set<number>,
  spreadCounts: boolean,
): Promise<LexicalHit[]> {
  const terms = tsquery(query, join, 1);
  const byTurnTime = level === "turn" && (filters.since !== undefined || filters.until !== undefined);
  const filter = archiveFilterSql(filters, terms.params.length + 2, byTurnTime ? "t.timestamp" : undefined);
  const turnJoin = byTurnTime ? "LEFT JOIN recall.turns t ON t.session = d.session AND t.number = d.turn_number" : "";
  // The window comes from recall.match_documents (schema.ts version 2: the GIN index, the caller's teams only); the
  // filters are evaluated per row here, so a window that the filters emptied is told apart from an exhausted match.
  const sql = `WITH q AS (SELECT ${terms.sql} AS query),
      w AS MATERIALIZED (SELECT m.id, m.rank FROM q, recall.match_documents(q.query, ${level === "turn"}, $${terms.params.length + 1}) AS m)
    SELECT d.id AS document_id, d.session AS session_rowid, d.turn_number, d.level, -w.rank AS rank,
      coalesce(${filter.sql}, false) AS passes
    FROM w JOIN recall.documents d ON d.id = w.id JOIN recall.sessions s ON s.id = d.session ${turnJoin}
    ORDER BY w.rank DESC, d.id`;
  for (let window = Math.max(candidates + exclude.size, 1) * windowPerCandidate; ; window *= 4) {
    const ranked = await connection.query<WindowRow & { passes: boolean }>(sql, [
      ...terms.params,
      window,
      ...filter.params,
    ]);
    const rows = ranked
      .filter((row) => row.passes)
      .map((row) => ({
        ...row,
        document_id: Number(row.document_id),
        session_rowid: Number(row.session_rowid),
        rank: Number(row.rank),
      }));
    const hits = level === "session" ? groupBySession(rows, exclude, spreadCounts) : turnHits(rows, exclude);
    if (hits.length >= candidates || ranked.length < window)
      return hits.sort((a, b) => b.score - a.score).slice(0, candidates);
  }
}

/** All-terms hits first (0.5–1), any-term hits below them (0–0.49), as lexical.ts's rankTerms. */
async function rankArchive(
  connection: ArchiveConnection,
  query: LexicalQuery,
  level: SearchLevel,
  filters: SearchFilters,
  candidates: number,
): Promise<LexicalHit[]> {
  const single = query.terms.length === 1;
  const all = await rankWindow(connection, query, "&&", level, filters, candidates, new Set(), single);
  const ranked = await tierAllThenAny(level, all, single, candidates, (seen, wanted) =>
    rankWindow(connection, query, "||", level, filters, wanted, seen, true),
  );
  return level === "turn" ? smoothNeighbours(ranked, candidates) : ranked;
}

/**
 * Search the archive at level 1 (sessions) or 2 (turns), keyword-only.
 * @throws UsageError for an empty query; ArchiveError from the connection
 */
export async function searchArchive(
  connection: ArchiveConnection,
  request: ArchiveSearchRequest,
  vectorLeg?: VectorLeg,
): Promise<ArchiveSearchResponse> {
  const text = request.query.trim();
  if (text.length === 0)
    throw new UsageError("the search query is empty", 'pass some words, e.g. recall search --archive "docker network"');
  const limit = request.limit ?? (request.level === "session" ? 10 : 20);
  const query = parseLexicalQuery(text);
  const base = {
    query: request.query,
    level: request.level,
    archive: connection.url.display,
    mode: vectorLeg ? ("hybrid" as const) : ("keyword" as const),
    notices: vectorLeg ? [] : ["keyword-only search: the archive holds no vectors of this model"],
  };
  if (query.terms.length === 0 && !vectorLeg) return { ...base, results: [], confident: false, nextOffset: undefined };
  const offset = request.offset ?? 0;
  const candidates = Math.max(4 * (offset + limit), 100);
  const keywordHits =
    query.terms.length > 0 ? await rankArchive(connection, query, request.level, request.filters, candidates) : [];
  const vectorHits = vectorLeg ? await vectorLeg.search(text, request.level, request.filters, candidates) : [];
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
  const judged = await judge(connection, query, documentIds);
  let above = true; // confident results are the top of the ranking (api.ts confidentPrefix)
  const verdicts = hits.map((hit) => {
    const verdict = judged.get(hit.documentId) ?? { confidence: 0, matchedTerms: [] };
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
      const previewSource = document
        ? [document.heading, document.body, document.extra].filter(Boolean).join(" — ")
        : "";
      return [
        {
          ...row,
          score: hit.score,
          ...verdicts[index]!,
          preview: makePreview(previewSource, query.highlightWords),
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
 * role sees, each count capped at 10,000 documents), through the local keyword calibration (confidence.ts).
 */
async function judge(
  connection: ArchiveConnection,
  query: LexicalQuery,
  documentIds: readonly number[],
): Promise<Map<number, { confidence: number; matchedTerms: string[] }>> {
  if (documentIds.length === 0) return new Map();
  // N of the IDF: the planner's row estimate of all documents (a count of the caller's teams' rows read 629k rows,
  // 250–316 ms, at 100k sessions); the rarity it feeds is a calibration input, not a ranking.
  const [total] = await connection.query<{ n: number }>(
    "SELECT greatest(reltuples, 0)::bigint AS n FROM pg_class WHERE oid = 'recall.documents'::regclass",
  );
  const documents = Math.max(Number(total?.n ?? 0), documentIds.length);
  const held = new Map<number, string[]>(documentIds.map((id) => [id, []]));
  let totalIdf = 0;
  const idfOf = new Map<string, number>();
  for (const [i, term] of query.terms.entries()) {
    const [count] = await connection.query<{ n: number }>(
      `SELECT recall.count_matches(${termQuery(term, 1)}, 10000) AS n`,
      [termWords(term)],
    );
    const n = Number(count?.n ?? 0);
    const idf = Math.log(1 + (Math.max(documents, n) - n + 0.5) / (n + 0.5));
    idfOf.set(term, idf);
    totalIdf += idf;
    for (const row of await connection.query<{ id: string }>(
      `SELECT d.id FROM recall.documents d WHERE d.id = ANY($2::bigint[]) AND d.search @@ ${termQuery(term, 1)}`,
      [termWords(term), documentIds],
    ))
      held.get(Number(row.id))?.push(query.terms[i]!);
  }
  return new Map(
    [...held].map(([id, terms]) => {
      const coverage = totalIdf > 0 ? terms.reduce((sum, term) => sum + (idfOf.get(term) ?? 0), 0) / totalIdf : 0;
      return [id, { confidence: keywordConfidence(coverage), matchedTerms: terms.map(termWords) }];
    }),
  );
}
