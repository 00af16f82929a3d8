/**
 * Search in the team archive (issue 30): levels 1 and 2 through the one search pipeline (search/pipeline.ts, issue 39)
 * over the archive's store (archive-store.ts), so the archive ranks as local search does: the same keyword scores,
 * confident-keyword tier, fusion with the vector leg (vectors.ts: pgvector over the pushed chunk vectors of this
 * machine's model), sub-agent down-rank, date boost and confidence. The page is hydrated from the archive's rows, with
 * each session's origin (team, machine, who pushed it).
 */
import type { UnderstoodDate } from "../search/dates/time-boost.ts";
import type { ResultConfidence } from "../search/ranking/confidence.ts";
import type { SearchFilters } from "../search/listing/filters.ts";
import type { SearchLevel } from "../search/ranking/lexical.ts";
import { rankSearch, type JudgedHit, type SearchMode, type VectorLeg } from "../search/pipeline.ts";
import { makeDocumentPreview, makePreview, type Preview } from "../search/reading/preview.ts";
import { archiveStore } from "./archive-store.ts";
import type { ArchiveConnection } from "./connection.ts";
import { type ArchiveSessionSummary, loadArchiveSessions } from "./sessions.ts";

/**
 * A result's relevance and its verdict, as local results carry them (confidence.ts ResultConfidence): `score` (fused,
 * 0–1, relative to the other candidates), `confidence` and `confident`, the query terms the best document holds and
 * lacks, whether it falls outside a date the query named, and the keyword leg's raw evidence (undefined when only the
 * vector leg found it).
 */
export type ArchiveVerdict = { score: number } & Pick<
  ResultConfidence,
  "confidence" | "confident" | "matchedTerms" | "missingTerms" | "outsideDates" | "keywordRaw"
>;

/** A level-1 archive result: one session with its origin. */
export interface ArchiveSessionResult extends ArchiveSessionSummary, ArchiveVerdict {
  preview: Preview;
  bestTurn: number;
}

/** A level-2 archive result: one turn with its session and origin. */
export interface ArchiveTurnResult extends ArchiveSessionSummary, ArchiveVerdict {
  turn: number;
  timestamp: number;
  prompt: string;
  responseExcerpt: Preview;
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
  /** Requested mode (as local search); default hybrid with a vector leg, else keyword. */
  mode?: SearchMode;
  /** Vector weight of hybrid fusion, 0–1 (as local search); default the model's calibrated weight × semantic share. */
  alpha?: number;
  /** Reference instant for dates in the query (epoch ms); default now. */
  now?: number;
}

/** The answer of {@link searchArchive}. */
export interface ArchiveSearchResponse {
  query: string;
  level: SearchLevel;
  archive: string;
  /** Offset of the next page, when more results were ranked. */
  nextOffset: number | undefined;
  /** The mode that ran: "hybrid" when both legs ran (keyword and pgvector fused), "keyword", or "vector". */
  mode: SearchMode;
  results: ArchiveSessionResult[] | ArchiveTurnResult[];
  /** Lines to show the reader (e.g. the archive has no vectors of the model: keyword-only). */
  notices: string[];
  /** Dates the query named and whether the ranking used them (as local search). */
  dates: UnderstoodDate[];
  confident: boolean;
}

/**
 * Search the archive at level 1 (sessions) or 2 (turns): the local pipeline over the archive's store.
 * @param vectorLeg the archive's vector leg of this machine's model (vectors.ts), absent for keyword-only
 * @throws UsageError for a query with no visible characters (requireQueryText: empty, spaces, zero-width or invalid
 *         UTF-8 only, the local search's one error), an alpha outside 0–1, a limit outside 1–1000 or a negative offset;
 *         EmbedError EMBEDDINGS_MISSING for mode "vector" without a vector leg; ArchiveError from the connection
 */
export async function searchArchive(
  connection: ArchiveConnection,
  request: ArchiveSearchRequest,
  vectorLeg?: VectorLeg,
): Promise<ArchiveSearchResponse> {
  const ranked = await rankSearch(
    archiveStore(connection),
    {
      ...request,
      defaultLimit: request.level === "session" ? 10 : 20,
      mode: request.mode ?? (vectorLeg ? "hybrid" : "keyword"),
    },
    vectorLeg,
  );
  const words = ranked.query.highlightWords;
  const hits = ranked.page;
  const base = {
    query: request.query,
    level: request.level,
    archive: connection.url.display,
    mode: ranked.mode,
    // a caller that knows why the vector leg is missing replaces it (chooseArchiveVectorLeg)
    notices: [...ranked.notices, ...(vectorLeg ? [] : ["keyword-only search"])],
    nextOffset: ranked.nextOffset,
    dates: ranked.dates,
  };
  const sessions = await loadArchiveSessions(connection, [...new Set(hits.map((hit) => hit.hit.sessionRowid))]);
  const evidence = (hit: JudgedHit): ArchiveVerdict => ({
    score: hit.score,
    confidence: hit.verdict.confidence,
    confident: hit.verdict.confident,
    matchedTerms: hit.verdict.matchedTerms,
    missingTerms: hit.verdict.missingTerms,
    outsideDates: hit.verdict.outsideDates,
    keywordRaw: hit.verdict.keywordRaw,
  });
  if (request.level === "session") {
    const documents = new Map(
      (
        await connection.query<{ id: string; heading: string; body: string; extra: string }>(
          "SELECT id, heading, body, extra FROM recall.documents WHERE id = ANY($1::bigint[])",
          [[...new Set(hits.map((hit) => hit.hit.documentId))]],
        )
      ).map((row) => [Number(row.id), row]),
    );
    const results: ArchiveSessionResult[] = hits.flatMap((hit) => {
      const row = sessions.get(hit.hit.sessionRowid);
      if (!row) return [];
      const document = documents.get(hit.hit.documentId);
      return [
        {
          ...row,
          ...evidence(hit),
          // the local chooser (hydrate.ts): the prompt and reply when they hold a query word, tool lines only if not
          preview: document ? makeDocumentPreview(document, words) : makePreview("", words),
          bestTurn: hit.hit.turnNumber,
        },
      ];
    });
    return { ...base, results, confident: results[0]?.confident === true };
  }
  const turns = new Map(
    (
      await connection.query<{ session: string; number: number; timestamp: string; prompt: string; response: string }>(
        `SELECT t.session, t.number, t.timestamp, t.prompt, t.response FROM recall.turns t
         JOIN unnest($1::bigint[], $2::integer[]) AS w(session, number) ON t.session = w.session AND t.number = w.number`,
        [hits.map((hit) => hit.hit.sessionRowid), hits.map((hit) => hit.hit.turnNumber)],
      )
    ).map((row) => [`${row.session}:${row.number}`, row]),
  );
  const results: ArchiveTurnResult[] = hits.flatMap((hit) => {
    const row = sessions.get(hit.hit.sessionRowid);
    const turn = turns.get(`${hit.hit.sessionRowid}:${hit.hit.turnNumber}`);
    if (!row || !turn) return [];
    return [
      {
        ...row,
        turn: turn.number,
        timestamp: Number(turn.timestamp),
        prompt: turn.prompt,
        responseExcerpt: makePreview(turn.response, words, 400),
        ...evidence(hit),
      },
    ];
  });
  return { ...base, results, confident: results[0]?.confident === true };
}
