/**
 * The level-1/2 search API shared by the CLI, the MCP server, the picker and the web view: the one search pipeline
 * (pipeline.ts) over the local index (local-store.ts), the page hydrated from SQLite (reading/hydrate.ts), with the
 * count of what was searched and, when asked, the candidates' facets. The team archive runs the same pipeline over
 * its own store (team-archive/search.ts). Never prints; notices (e.g. "keyword-only: no vectors") are returned.
 */
import type { Database } from "bun:sqlite";
import { facetsOfSessions, type Facets } from "./listing/facets.ts";
import { cachedUntilChange } from "./ranking/version-cache.ts";
import { filterSql, type SearchFilters } from "./listing/filters.ts";
import { projectKeySql, readScopeCounts } from "../index/store/scope-counts.ts";
import { hydrateSessions, hydrateTurns, type SessionResult, type TurnResult } from "./reading/hydrate.ts";
import type { SearchLevel } from "./ranking/lexical.ts";
import { localStore } from "./local-store.ts";
import type { Calibrations } from "./ranking/calibration.ts";
import { readTuning, tunedCalibrations, type Tuning } from "./ranking/tuning.ts";
import { rankSearch, type RankedPage, type SearchMode, type VectorLeg } from "./pipeline.ts";

export {
  confidentPrefix,
  subagentScoreFactor,
  type JudgedHit,
  type RankedHit,
  type SearchMode,
  type VectorHit,
  type VectorLeg,
} from "./pipeline.ts";

/** A search request. */
export interface SearchRequest {
  query: string;
  level: SearchLevel;
  filters: SearchFilters;
  /** Results wanted; default 5 sessions or 10 turns; 1–1000. */
  limit?: number;
  /** Results to skip before the page (0-based; issue 10 pagination); default 0. */
  offset?: number;
  /** Requested mode; the response says which actually ran. Default hybrid. */
  mode?: SearchMode;
  /**
   * Vector weight of hybrid fusion, 0–1; default the model's calibrated weight (calibration.ts) × the query's semantic
   * share (query-shape.ts).
   */
  alpha?: number;
  /** Reference instant for dates in the query such as "last week" (epoch ms); default now. */
  now?: number;
  /** Also count the ranked candidates by project, agent, branch and age (facets.ts; `recall ui`'s filters). */
  facets?: boolean;
  /**
   * False: level-1 results come with an empty `preview`, and the texts of their best documents are not read (the
   * picker, which previews the best turn by a turn search of its own). At 20k sessions a keyword search for 16
   * sessions typed 250 ms after the last took p50 15.7 ms with previews and 13.0 without (medians of three alternating
   * sets), 5.8 and 4.2 back to back; default true.
   */
  previews?: boolean;
  /**
   * Rank and judge with this calibration (`recall eval` measures the committed one and candidate tunings); default:
   * the user's own tuning when the index holds one (ranking/tuning.ts), else the committed calibration.
   */
  calibrations?: Calibrations;
}

/** What was searched (after filters). */
export interface SearchedScope {
  sessions: number;
  projects: number;
  sources: string[];
}

/**
 * The response: how the pipeline ranked (pipeline.ts RankedPage: `mode` is what actually ran, `offset` the position of
 * `results[0]`, `confident` whether the first result is a confident match), the page hydrated, and what was searched.
 */
export interface SearchResponse
  extends Pick<
    RankedPage,
    | "mode"
    | "notices"
    | "offset"
    | "nextOffset"
    | "vectorWeight"
    | "semanticShare"
    | "calibration"
    | "dates"
    | "confident"
  > {
  query: string;
  level: SearchLevel;
  searched: SearchedScope;
  results: SessionResult[] | TurnResult[];
  /** The candidates' facets when the request asked for them (facets.ts), else undefined. */
  facets?: Facets;
  /**
   * The team archive the search read, for `--archive` and `--everywhere` (team-archive/search.ts, everywhere.ts): its
   * URL without the password, whether it was read alone (`searched` then counts the archive; with this machine's
   * index, `searched` counts the index and `sessions` the archive's), and the sessions it searched. Undefined for a
   * search of this machine's index alone.
   */
  archive?: { url: string; alone: boolean; sessions: number };
  /** The user's own tuning (ranking/tuning.ts) when this search ranked with it; undefined otherwise. */
  tuning?: Tuning;
}

/** Default limits per level (issue 3). */
export const defaultLimits: Record<SearchLevel, number> = { session: 5, turn: 10 };

/**
 * Search the index.
 * @param vectorLeg absent → keyword-only with a notice (unless mode is "keyword", which needs none)
 * @throws UsageError for a query with no visible characters (requireQueryText), an alpha outside 0–1, a limit outside 1–1000 or a negative offset
 *         (paging.ts wording); EmbedError EMBEDDINGS_MISSING (exit 1) for mode "vector" without a vector leg
 */
export async function searchIndex(
  db: Database,
  request: SearchRequest,
  vectorLeg?: VectorLeg,
): Promise<SearchResponse> {
  const tuning = request.calibrations === undefined ? readTuning(db) : undefined;
  const calibrations = request.calibrations ?? (tuning ? tunedCalibrations(tuning) : undefined);
  const ranked = await rankSearch(
    localStore(db),
    { ...request, calibrations, defaultLimit: defaultLimits[request.level] },
    vectorLeg,
  );
  const words = ranked.query.highlightWords;
  const results =
    request.level === "session"
      ? hydrateSessions(db, ranked.page, words, request.previews ?? true)
      : hydrateTurns(db, ranked.page, words);
  return {
    ...responseOf(request, ranked, results, countSearched(db, request.filters)),
    facets: request.facets ? facetsOfSessions(db, ranked.rankedSessions, request.now ?? Date.now()) : undefined,
    tuning,
  };
}

/**
 * The answer to `request` from its ranked page and the page's results (hydrated by the store's caller: this file, the
 * team archive's search and `--everywhere`), with what was searched. `confident` holds only when a result is shown.
 */
export function responseOf(
  request: Pick<SearchRequest, "query" | "level">,
  ranked: RankedPage,
  results: SessionResult[] | TurnResult[],
  searched: SearchedScope,
): SearchResponse {
  return {
    query: request.query,
    level: request.level,
    mode: ranked.mode,
    searched,
    results,
    notices: ranked.notices,
    offset: ranked.offset,
    nextOffset: ranked.nextOffset,
    vectorWeight: ranked.vectorWeight,
    semanticShare: ranked.semanticShare,
    calibration: ranked.calibration,
    confident: ranked.confident && results.length > 0,
    dates: ranked.dates,
  };
}

/** What a search of the local index searched under the filters (cached until the index changes). */
export function countSearched(db: Database, filters: SearchFilters): SearchedScope {
  return cachedUntilChange(db, `searched ${JSON.stringify(filters)}`, () => countSearchedNow(db, filters));
}

function countSearchedNow(db: Database, filters: SearchFilters): SearchedScope {
  // No filter but the source and sub-agents: the counts the index keeps (a few hundred rows instead of every session).
  const { source, includeSubagents, ...rest } = filters;
  if (Object.values(rest).every((value) => value === undefined))
    return readScopeCounts(db, source, includeSubagents === true);
  const filter = filterSql(filters);
  const row = db
    .query<{ sessions: number; projects: number; sources: string | null }, Array<string | number>>(
      `SELECT count(*) AS sessions, count(DISTINCT ${projectKeySql("s")}) AS projects, group_concat(DISTINCT s.source) AS sources FROM sessions s WHERE ${filter.where}`,
    )
    .get(...filter.params);
  return {
    sessions: row?.sessions ?? 0,
    projects: row?.projects ?? 0,
    sources: row?.sources ? row.sources.split(",").sort() : [],
  };
}
