/**
 * Search in the team archive (issue 30): levels 1 and 2 through the one search pipeline (search/pipeline.ts, issue 39)
 * over the archive's store (archive-store.ts), so the archive ranks as local search does: the same keyword scores,
 * confident-keyword tier, fusion with the vector leg (vectors.ts: pgvector over the pushed chunk vectors of this
 * machine's model), sub-agent down-rank, date boost and confidence. The answer is local search's (search/api.ts
 * SearchResponse): the same result types, each result `here: false` with its archived copy (who pushed it, from
 * where), so every front end renders it with its one renderer.
 */
import { responseOf, type SearchRequest, type SearchResponse, type SearchedScope } from "../search/api.ts";
import type { SearchFilters } from "../search/listing/filters.ts";
import type { SearchLevel } from "../search/ranking/lexical.ts";
import { rankSearch, type JudgedHit, type VectorLeg } from "../search/pipeline.ts";
import { makeDocumentPreview, makePreview } from "../search/reading/preview.ts";
import { scoresOf, type SessionResult, type TurnResult, turnSessionFields } from "../search/reading/hydrate.ts";
import { archiveStore } from "./archive-store.ts";
import type { ArchiveConnection } from "./connection.ts";
import { archiveFilterSql, type ArchiveSessionSummary, loadArchiveSessions } from "./sessions.ts";

/** Default page sizes of an archive search (a team's history is larger than one machine's). */
const archiveDefaultLimits: Record<SearchLevel, number> = { session: 10, turn: 20 };

/**
 * Search the archive at level 1 (sessions) or 2 (turns): the local pipeline over the archive's store. `request.facets`
 * is ignored (the web view reads the local index only).
 * @param vectorLeg the archive's vector leg of this machine's model (vectors.ts), absent for keyword-only
 * @returns local search's answer, with `archive` the archive read and `searched` counted there
 * @throws UsageError for a query with no visible characters (requireQueryText: empty, spaces, zero-width or invalid
 *         UTF-8 only, the local search's one error), an alpha outside 0–1, a limit outside 1–1000 or a negative offset;
 *         EmbedError EMBEDDINGS_MISSING for mode "vector" without a vector leg; ArchiveError from the connection
 */
export async function searchArchive(
  connection: ArchiveConnection,
  request: SearchRequest,
  vectorLeg?: VectorLeg,
): Promise<SearchResponse> {
  const ranked = await rankSearch(
    archiveStore(connection),
    {
      ...request,
      defaultLimit: archiveDefaultLimits[request.level],
      mode: request.mode ?? (vectorLeg ? "hybrid" : "keyword"),
    },
    vectorLeg,
  );
  const results = await hydrateArchiveHits(connection, request.level, ranked.page, ranked.query.highlightWords);
  const searched = await countArchiveSearched(connection, request.filters);
  // a caller that knows why the vector leg is missing replaces the pipeline's notice (vectors.ts chooseArchiveVectorLeg)
  return {
    ...responseOf(request, ranked, results, searched),
    archive: { url: connection.url.display, alone: true, sessions: searched.sessions },
  };
}

/**
 * The page's hits as results (local search's types), in page order: each `here: false` with its archived copy. Level
 * 1 previews the hit's document as local search does (hydrate.ts: the prompt and reply when they hold a query word,
 * tool lines only if not); level 2 reads the turn. Hits whose rows the role can no longer see are left out.
 * @param hits the ranked page; their ids are the archive's (session and document ids)
 */
export async function hydrateArchiveHits(
  connection: ArchiveConnection,
  level: SearchLevel,
  hits: readonly JudgedHit[],
  words: string[],
): Promise<SessionResult[] | TurnResult[]> {
  const sessions = await loadArchiveSessions(connection, [...new Set(hits.map((hit) => hit.hit.sessionRowid))]);
  const placeOf = (archived: ArchiveSessionSummary) => {
    const { archiveId, team, pushedBy, machine, osUser, ...summary } = archived;
    return { summary, place: { here: false, archived: { archiveId, team, pushedBy, machine, osUser } } };
  };
  if (level === "session") {
    const documents = new Map(
      (
        await connection.query<{ id: string; heading: string; body: string; extra: string }>(
          "SELECT id, heading, body, extra FROM recall.documents WHERE id = ANY($1::bigint[])",
          [[...new Set(hits.map((hit) => hit.hit.documentId))]],
        )
      ).map((row) => [Number(row.id), row]),
    );
    return hits.flatMap((hit): SessionResult[] => {
      const row = sessions.get(hit.hit.sessionRowid);
      if (!row) return [];
      const { summary, place } = placeOf(row);
      const document = documents.get(hit.hit.documentId);
      return [
        {
          ...scoresOf(hit),
          ...summary,
          ...place,
          files: summary.files.slice(0, 20),
          preview: document ? makeDocumentPreview(document, words) : makePreview("", words),
          bestTurn: hit.hit.turnNumber,
          resumeCommand: null, // pushed from another machine or user: nothing to resume here
        },
      ];
    });
  }
  const turns = new Map(
    (
      await connection.query<{
        session: string;
        number: number;
        timestamp: string;
        prompt: string;
        response: string;
        tools: Array<{ name: string }>;
        files: string[];
      }>(
        `SELECT t.session, t.number, t.timestamp, t.prompt, t.response, t.tools, t.files FROM recall.turns t
         JOIN unnest($1::bigint[], $2::integer[]) AS w(session, number) ON t.session = w.session AND t.number = w.number`,
        [hits.map((hit) => hit.hit.sessionRowid), hits.map((hit) => hit.hit.turnNumber)],
      )
    ).map((row) => [`${row.session}:${row.number}`, row]),
  );
  return hits.flatMap((hit): TurnResult[] => {
    const row = sessions.get(hit.hit.sessionRowid);
    const turn = turns.get(`${hit.hit.sessionRowid}:${hit.hit.turnNumber}`);
    if (!row || !turn) return [];
    const { summary, place } = placeOf(row);
    return [
      {
        ...scoresOf(hit),
        ...place,
        ...turnSessionFields(summary),
        turn: turn.number,
        totalTurns: summary.turns,
        timestamp: Number(turn.timestamp),
        prompt: turn.prompt,
        promptChars: turn.prompt.length,
        responseExcerpt: makePreview(turn.response, words, 400),
        tools: [...new Set(turn.tools.map((call) => call.name))],
        files: turn.files,
      },
    ];
  });
}

/** What an archive search searched under the filters: sessions, projects and sources the role may see. */
export async function countArchiveSearched(
  connection: ArchiveConnection,
  filters: SearchFilters,
): Promise<SearchedScope> {
  const filter = archiveFilterSql(filters, 1);
  const [row] = await connection.query<{ sessions: number; projects: number; sources: string[] | null }>(
    `SELECT count(*)::int AS sessions, count(DISTINCT s.project_path)::int AS projects,
       array_agg(DISTINCT s.source ORDER BY s.source) AS sources FROM recall.sessions s WHERE ${filter.sql}`,
    filter.params,
  );
  return { sessions: row?.sessions ?? 0, projects: row?.projects ?? 0, sources: row?.sources ?? [] };
}
