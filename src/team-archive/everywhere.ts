/**
 * `--everywhere` (issues 30 and 39): the one search pipeline (search/pipeline.ts) over this machine's index and the
 * team archive as one store, so a single ranking, with its tiers, date boost, sub-agent down-rank and confidence, orders
 * both. The two stores' keyword candidates are ranked together by their raw BM25 evidence (lexical.ts
 * mergeKeywordHits), their vector candidates by cosine (the archive's vectors are this machine's model's); how rare a
 * term is comes from the larger store. A session both hold (this machine pushed it, or a copy of it) is the local one: it can be resumed and
 * read from its source; the archive's copy is dropped from the candidates and named on the result (`archived`).
 * Archive ids are mapped to negative numbers inside the union so they never meet the index's rowids.
 */
import type { Database } from "bun:sqlite";
import { countSearched, responseOf, type SearchRequest, type SearchResponse } from "../search/api.ts";
import { localStore } from "../search/local-store.ts";
import { rankSearch, type JudgedHit, type VectorLeg } from "../search/pipeline.ts";
import { type LexicalHit, mergeKeywordHits } from "../search/ranking/lexical.ts";
import {
  type ArchivedCopy,
  hydrateSessions,
  hydrateTurns,
  type SessionResult,
  type TurnResult,
} from "../search/reading/hydrate.ts";
import type { ActiveDocument, CandidateStore } from "../search/store.ts";
import { archiveStore } from "./archive-store.ts";
import type { ArchiveConnection } from "./connection.ts";
import { countArchiveSearched, hydrateArchiveHits } from "./search.ts";

/** The vector legs of a search everywhere: this machine's and the archive's, each absent without vectors. */
export interface EverywhereVectorLegs {
  local?: VectorLeg;
  archive?: VectorLeg;
}

/** A session's key across the two stores: its tool and its id. */
const sessionKey = (source: string, sessionId: string): string => `${source}\u0000${sessionId}`;

/** An id of the union: the index's as is, the archive's negated. */
const fromArchive = (id: number): number => -id;
const isArchive = (id: number): boolean => id < 0;

const mapHit = (hit: LexicalHit): LexicalHit => ({
  ...hit,
  sessionRowid: fromArchive(hit.sessionRowid),
  documentId: fromArchive(hit.documentId),
});

/**
 * Search this machine's index and the team archive as one (module doc).
 * @returns local search's answer: `searched` counts this machine's index, `archive` names the archive and its sessions
 * @throws as searchIndex (search/api.ts) and searchArchive (search.ts)
 */
export async function searchEverywhere(
  db: Database,
  connection: ArchiveConnection,
  request: SearchRequest,
  legs: EverywhereVectorLegs,
): Promise<SearchResponse> {
  const duplicates = archivedHere(db, connection);
  const ranked = await rankSearch(
    unionStore(localStore(db), archiveStore(connection), duplicates.ofArchive),
    { ...request, defaultLimit: request.level === "session" ? 5 : 10 },
    unionVectorLeg(legs, duplicates.ofArchive),
  );
  const words = ranked.query.highlightWords;
  const localPage = ranked.page.filter((hit) => !isArchive(hit.hit.sessionRowid));
  const archivePage = ranked.page
    .filter((hit) => isArchive(hit.hit.sessionRowid))
    .map((hit): JudgedHit => ({ ...hit, hit: mapHit(hit.hit) }));
  const local = await alignedWith(localPage, async (hits) =>
    request.level === "session" ? hydrateSessions(db, hits, words) : hydrateTurns(db, hits, words),
  );
  const archived = await duplicates.copiesOf(local.flatMap((result) => result ?? []));
  for (const result of local) if (result) result.archived = archived.get(sessionKey(result.source, result.sessionId));
  const remote = await alignedWith(archivePage, (hits) => hydrateArchiveHits(connection, request.level, hits, words));
  // back into the ranking's order: each list is aligned with its part of the page
  let nextLocal = 0;
  let nextRemote = 0;
  const results = ranked.page.flatMap(
    (hit) => (isArchive(hit.hit.sessionRowid) ? remote[nextRemote++] : local[nextLocal++]) ?? [],
  ) as SessionResult[] | TurnResult[];
  const archiveSearched = await countArchiveSearched(connection, request.filters);
  return {
    ...responseOf(request, ranked, results, countSearched(db, request.filters)),
    archive: { url: connection.url.display, alone: false, sessions: archiveSearched.sessions },
  };
}

/**
 * The results of `hits`, one per hit in its order (undefined for a hit whose rows are gone): a hydration leaves such a
 * hit out, so when the counts differ each hit is hydrated alone.
 */
async function alignedWith(
  hits: JudgedHit[],
  hydrate: (hits: JudgedHit[]) => Promise<Array<SessionResult | TurnResult>>,
): Promise<Array<SessionResult | TurnResult | undefined>> {
  const all = await hydrate(hits);
  if (all.length === hits.length) return all;
  return Promise.all(hits.map(async (hit) => (await hydrate([hit]))[0]));
}

/**
 * Which archived sessions this machine's index holds too (by tool and session id), and the archive's copies of local
 * sessions. Answers are kept for the one search.
 */
function archivedHere(db: Database, connection: ArchiveConnection) {
  const held = new Map<number, boolean>();
  const localHolds = db.query<{ n: number }, [string, string]>(
    "SELECT count(*) AS n FROM sessions WHERE source = ? AND session_id = ?",
  );
  return {
    /** The archive session ids (the archive's own, positive) whose session this machine's index holds. */
    ofArchive: async (archiveIds: readonly number[]): Promise<Set<number>> => {
      const unknown = [...new Set(archiveIds)].filter((id) => !held.has(id));
      if (unknown.length > 0) {
        const rows = await connection.query<{ id: string; source: string; session_id: string }>(
          "SELECT id, source, session_id FROM recall.sessions WHERE id = ANY($1::bigint[])",
          [unknown],
        );
        for (const row of rows) held.set(Number(row.id), localHolds.get(row.source, row.session_id)!.n > 0);
      }
      return new Set(archiveIds.filter((id) => held.get(id)));
    },
    /** The archive's newest copy of each local result's session, keyed by source and session id. */
    copiesOf: async (results: ReadonlyArray<{ source: string; sessionId: string }>) => {
      const copies = new Map<string, ArchivedCopy>();
      if (results.length === 0) return copies;
      const rows = await connection.query<{
        id: string;
        source: string;
        session_id: string;
        team: string;
        pushed_by: string;
        machine: string;
        os_user: string;
      }>(
        `SELECT s.id, s.source, s.session_id, s.team, s.pushed_by, s.machine, s.os_user FROM recall.sessions s
         JOIN unnest($1::text[], $2::text[]) AS w(source, session_id) ON s.source = w.source AND s.session_id = w.session_id
         ORDER BY s.pushed_at DESC`,
        [results.map((result) => result.source), results.map((result) => result.sessionId)],
      );
      for (const row of rows) {
        const key = sessionKey(row.source, row.session_id);
        if (!copies.has(key))
          copies.set(key, {
            archiveId: row.id,
            team: row.team,
            pushedBy: row.pushed_by,
            machine: row.machine,
            osUser: row.os_user,
          });
      }
      return copies;
    },
  };
}

type DuplicateCheck = (archiveIds: readonly number[]) => Promise<Set<number>>;

/** The archive's hits without the sessions this machine holds, in the union's ids. */
async function archiveOnly(hits: readonly LexicalHit[], duplicates: DuplicateCheck): Promise<LexicalHit[]> {
  const held = await duplicates(hits.map((hit) => hit.sessionRowid));
  return hits.filter((hit) => !held.has(hit.sessionRowid)).map(mapHit);
}

/** Split ids of the union into the index's and the archive's (positive again). */
function split(ids: readonly number[]): { local: number[]; archive: number[] } {
  return {
    local: ids.filter((id) => !isArchive(id)),
    archive: ids.filter(isArchive).map(fromArchive),
  };
}

/** The two stores as one (module doc). */
function unionStore(local: CandidateStore, archive: CandidateStore, duplicates: DuplicateCheck): CandidateStore {
  return {
    keywordHits: async (query, level, filters, candidates) => {
      const [mine, theirs] = await Promise.all([
        local.keywordHits(query, level, filters, candidates),
        archive.keywordHits(query, level, filters, candidates),
      ]);
      return mergeKeywordHits([mine, await archiveOnly(theirs, duplicates)], candidates);
    },
    // the larger store's statistics (ties: this machine's): added up, a session pushed from here would count twice
    termRarities: async (query) => {
      const [mine, theirs] = await Promise.all([local.termRarities(query), archive.termRarities(query)]);
      return (theirs[0]?.total ?? 0) > (mine[0]?.total ?? 0) ? theirs : mine;
    },
    termsHeld: async (query, documentIds) => {
      const ids = split(documentIds);
      const [mine, theirs] = await Promise.all([
        local.termsHeld(query, ids.local),
        archive.termsHeld(query, ids.archive),
      ]);
      return new Map([...mine, ...[...theirs].map(([id, terms]) => [fromArchive(id), terms] as const)]);
    },
    subagentSessions: async (sessionRowids) => {
      const ids = split(sessionRowids);
      const [mine, theirs] = await Promise.all([
        local.subagentSessions(ids.local),
        archive.subagentSessions(ids.archive),
      ]);
      return new Set([...mine, ...[...theirs].map(fromArchive)]);
    },
    activitySpans: async (hits, level) => {
      const [mine, theirs] = await Promise.all([
        local.activitySpans(
          hits.filter((hit) => !isArchive(hit.sessionRowid)),
          level,
        ),
        archive.activitySpans(hits.filter((hit) => isArchive(hit.sessionRowid)).map(mapHit), level),
      ]);
      return new Map([...mine, ...[...theirs].map(([id, span]) => [fromArchive(id), span] as const)]);
    },
    activeIn: async (range, level, filters, limit) => {
      const [mine, theirs] = await Promise.all([
        local.activeIn(range, level, filters, limit),
        archive.activeIn(range, level, filters, limit),
      ]);
      const held = await duplicates(theirs.map((document) => document.sessionRowid));
      const remote = theirs
        .filter((document) => !held.has(document.sessionRowid))
        .map(
          (document): ActiveDocument => ({
            ...document,
            sessionRowid: fromArchive(document.sessionRowid),
            documentId: fromArchive(document.documentId),
          }),
        );
      return [...mine, ...remote].sort((a, b) => b.time - a.time).slice(0, limit);
    },
  };
}

/** The two vector legs as one: candidates by cosine (one model), the archive's copies of local sessions left out. */
function unionVectorLeg(legs: EverywhereVectorLegs, duplicates: DuplicateCheck): VectorLeg | undefined {
  const { local, archive } = legs;
  if (!local && !archive) return undefined;
  return {
    model: local?.model ?? archive?.model,
    search: async (query, level, filters, candidates) => {
      const [mine, theirs] = await Promise.all([
        local ? local.search(query, level, filters, candidates) : [],
        archive ? archive.search(query, level, filters, candidates) : [],
      ]);
      return [...mine, ...(await archiveOnly(theirs, duplicates))]
        .sort((a, b) => b.score - a.score)
        .slice(0, candidates);
    },
  };
}
