/**
 * The team archive as a store of the one search pipeline (search/store.ts, issue 39): the keyword leg ranks documents
 * by FTS5's BM25 over the posting lists pushed with FTS5's own tokens, read from PostgreSQL and scored here
 * (keyword-rank.ts: the same scores as local search, within a float's rounding), cuts a window of the best documents,
 * and hands it to lexical.ts's own grouping: level 1 scores a session by its best turns plus a share of its session
 * document (groupBySession), level 2 adds a share of the better neighbouring turn (smoothNeighbours); all-terms hits
 * rank above any-term hits (tierAllThenAny), as in local search. Term rarities come from the archive's statistics, the
 * terms a document holds from the windows the ranking read (or its posting lists); sessions, spans and date ranges
 * from the archive's rows. Row-level security decides which rows the role sees: a query never names a team.
 * One store serves one search: it keeps the prepared query and what the windows showed.
 */
import type { SearchFilters } from "../search/listing/filters.ts";
import { termRarity } from "../search/ranking/confidence.ts";
import { boundedRange } from "../search/ranking/date-candidates.ts";
import { filtersNarrow } from "../search/ranking/document-mask.ts";
import {
  groupBySession,
  type LexicalHit,
  type SearchLevel,
  smoothNeighbours,
  tierAllThenAny,
  turnHits,
} from "../search/ranking/lexical.ts";
import type { LexicalQuery } from "../search/ranking/query.ts";
import type { ActiveDocument, ActivitySpan, CandidateStore } from "../search/store.ts";
import type { ArchiveConnection } from "./connection.ts";
import {
  allowedMatchTerms,
  type ArchiveKeywordQuery,
  inSnapshot,
  prepareArchiveQuery,
  rankArchiveWindows,
  termsHeldBy,
} from "./keyword-rank.ts";
import { archiveFilterSql } from "./sessions.ts";

/** Documents ranked per wanted candidate (as lexical.ts: sessions have several documents). */
const windowPerCandidate = 8;

/** The terms each ranked document holds (bits by term index), learnt from the keyword windows, for confidence. */
type KeywordEvidence = Map<number, number>;

/** The store of one search of the archive through `connection`. */
export function archiveStore(connection: ArchiveConnection): CandidateStore {
  const evidence: KeywordEvidence = new Map();
  let prepared: ArchiveKeywordQuery | undefined;
  /** The query's statistics and posting lists, read once (inside keywordHits' snapshot when the keyword leg runs). */
  const prepare = async (query: LexicalQuery): Promise<ArchiveKeywordQuery> => {
    if (prepared) return prepared;
    prepared = await prepareArchiveQuery(connection, query);
    return prepared;
  };
  return {
    // one snapshot for the statistics, the posting lists and the windows' lookups (keyword-rank.ts inSnapshot)
    keywordHits: (query, level, filters, candidates) =>
      inSnapshot(connection, async () =>
        rankArchive(connection, await prepare(query), level, filters, candidates, evidence),
      ),
    termRarities: async (query) => {
      const keywordQuery = await prepare(query);
      return query.terms.map((term, i) =>
        termRarity(term, keywordQuery.statistics.matches[i]!, keywordQuery.statistics.documents),
      );
    },
    termsHeld: async (query, documentIds) => {
      const unknown = documentIds.filter((id) => !evidence.has(id));
      if (unknown.length > 0 && query.terms.length > 0)
        for (const [id, bits] of await termsHeldBy(connection, await prepare(query), unknown)) evidence.set(id, bits);
      return new Map(
        documentIds.map((id) => {
          const bits = evidence.get(id) ?? 0;
          return [id, query.terms.filter((_, i) => (bits >> i) & 1)];
        }),
      );
    },
    subagentSessions: async (sessionRowids) =>
      new Set(
        (
          await connection.query<{ id: string }>(
            "SELECT id FROM recall.sessions WHERE is_subagent AND id = ANY($1::bigint[])",
            [[...sessionRowids]],
          )
        ).map((row) => Number(row.id)),
      ),
    activitySpans: (hits, level) => activitySpans(connection, hits, level),
    activeIn: (range, level, filters, limit) => activeIn(connection, range, level, filters, limit),
  };
}

/**
 * The hits of one tier (all terms or any term): a window of the best documents by BM25 (keyword-rank.ts), through
 * the filters, grouped by lexical.ts's own code; the window grows 4x while it holds fewer than `candidates` keys and
 * more matched. When the first window comes back short under filters that narrow the sessions, the windows from then
 * on rank only the documents of the sessions they keep (`allowedOnce`, keyword-rank.ts allowedMatchTerms), from the
 * first window's size again, as local search does (lexical.ts runMatch).
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
  allowedOnce: (() => Promise<Uint8Array>) | undefined,
): Promise<LexicalHit[]> {
  const first = Math.max(candidates + exclude.size, 1) * windowPerCandidate;
  let allowed: Uint8Array | undefined;
  for (let window = first; ; window *= 4) {
    const ranked = (await rankArchiveWindows(connection, query, level, filters, window, allowed))[tier];
    for (const row of ranked) evidence.set(row.document_id, row.matched);
    const rows = ranked.filter((row) => row.passes);
    const hits = level === "session" ? groupBySession(rows, exclude, spreadCounts) : turnHits(rows, exclude);
    if (hits.length >= candidates || ranked.length < window)
      return hits.sort((a, b) => b.score - a.score).slice(0, candidates);
    if (allowed === undefined && allowedOnce) {
      allowed = await allowedOnce();
      window = first / 4;
    }
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
  // the matches narrowing filters keep, read when a tier first needs them, once for both tiers
  let allowed: Promise<Uint8Array> | undefined;
  const allowedOnce = filtersNarrow(filters)
    ? () => (allowed ??= allowedMatchTerms(connection, query, filters))
    : undefined;
  const all = await rankWindow(
    connection,
    query,
    "all",
    level,
    filters,
    candidates,
    new Set(),
    single,
    evidence,
    allowedOnce,
  );
  const ranked = await tierAllThenAny(level, all, single, candidates, (seen, wanted) =>
    rankWindow(connection, query, "any", level, filters, wanted, seen, true, evidence, allowedOnce),
  );
  return level === "turn" ? smoothNeighbours(ranked, candidates) : ranked;
}

/** A session's started_at … ended_at (level 1, by session id), a turn's timestamp (level 2, by document id). */
async function activitySpans(
  connection: ArchiveConnection,
  hits: readonly LexicalHit[],
  level: SearchLevel,
): Promise<Map<number, ActivitySpan>> {
  const ids = [...new Set(hits.map((hit) => (level === "session" ? hit.sessionRowid : hit.documentId)))];
  if (ids.length === 0) return new Map();
  const rows = await connection.query<{ id: string; first: string; last: string }>(
    level === "session"
      ? "SELECT id, started_at AS first, ended_at AS last FROM recall.sessions WHERE id = ANY($1::bigint[])"
      : `SELECT d.id, t.timestamp AS first, t.timestamp AS last FROM recall.documents d
         JOIN recall.turns t ON t.session = d.session AND t.number = d.turn_number WHERE d.id = ANY($1::bigint[])`,
    [ids],
  );
  return new Map(rows.map((row) => [Number(row.id), { first: Number(row.first), last: Number(row.last) }]));
}

/** The sessions (level 1) or turns (level 2) active in `range` under the filters, newest first. */
async function activeIn(
  connection: ArchiveConnection,
  range: Parameters<CandidateStore["activeIn"]>[0],
  level: SearchLevel,
  filters: SearchFilters,
  limit: number,
): Promise<ActiveDocument[]> {
  const bounded: SearchFilters = { ...filters, ...boundedRange(range, filters) };
  const filter = archiveFilterSql(bounded, 2, level === "turn" ? "t.timestamp" : undefined);
  const rows = await connection.query<{ session: string; document: string; turn: number; time: string }>(
    level === "session"
      ? `SELECT s.id AS session, d.id AS document, 0 AS turn, s.ended_at AS time
         FROM recall.sessions s JOIN recall.documents d ON d.session = s.id AND d.level = 'session'
         WHERE s.ended_at > 0 AND ${filter.sql} ORDER BY s.ended_at DESC LIMIT $1`
      : `SELECT s.id AS session, d.id AS document, t.number AS turn, t.timestamp AS time
         FROM recall.sessions s JOIN recall.turns t ON t.session = s.id
         JOIN recall.documents d ON d.session = s.id AND d.level = 'turn' AND d.turn_number = t.number
         WHERE t.timestamp > 0 AND ${filter.sql} ORDER BY t.timestamp DESC LIMIT $1`,
    [limit, ...filter.params],
  );
  return rows.map((row) => ({
    sessionRowid: Number(row.session),
    documentId: Number(row.document),
    turnNumber: row.turn,
    time: Number(row.time),
  }));
}
