/**
 * The keyword leg: FTS5 BM25 over `documents_fts`, filters applied in the same statement (before
 * the top-k cut). All-terms matching first; when that yields fewer than `candidates` hits, any-term
 * matching fills the rest below them (issue 3: a natural-language question never returns nothing
 * just because one word is missing). Column weights: heading 2 (the prompt, or the session title),
 * body 1 (assistant prose, or all prompts), extra 1 (tool inputs and files).
 * Ranking from the best evidence (issue 13), not from the longest text:
 *   level 1: a session scores by its best turn documents, Σ 0.5^i · s_i over its top 3 turns (s = −bm25),
 *            plus a quarter of its session document's score (title, all prompts, project and files), so a
 *            500-turn session whose concatenated prompts hold every word no longer wins every match, and a
 *            session found only by its title or project name is still found; a session is an all-terms hit
 *            only when one of its turns holds every term (words spread over many prompts are any-term);
 *   level 2: a turn scores by its own match plus half of its better neighbour's (the question asked just
 *            before the answer), both divided by 1.5; only turns that match a word themselves are returned.
 * Measured on LoCoMo (1,982 questions, keyword-only) and test/corpus/queries.json: see ../shared/bench/locomo.
 */
import type { Database } from "bun:sqlite";
import { mergeUnsegmented, searchUnsegmented, splitUnsegmented } from "./cjk.ts"; // issue 13
import { filterSql, type SearchFilters, turnTimeJoin } from "../listing/filters.ts";
import { type RankedDocument, rankedWindow, rankRange } from "./match-window.ts";
import type { LexicalQuery } from "./query.ts";
import type { PhraseMatch } from "./phrase-rankings.ts";
import { allowedDocuments, documentMask, filtersNarrow } from "./document-mask.ts";
import {
  documentsHoldingEvery,
  newPhraseListCache,
  type PhraseListCache,
  rankScoredWithin,
} from "./postings-ranking.ts";
import { descendingOrder } from "./score-order.ts";

/** Level searched: sessions (turn documents grouped by session, plus a share of the session document) or turns. */
export type SearchLevel = "session" | "turn";

/** One keyword candidate: a session (level 1, with its best document) or a turn (level 2). */
export interface LexicalHit {
  sessionRowid: number;
  /** Best matching document (level 1: the turn, or the session document, that added most) or the turn's document (level 2). */
  documentId: number;
  /** 0 for the session document. */
  turnNumber: number;
  /**
   * Keyword score in 0–1, higher is better: −bm25 min-max normalized within its group; all-terms hits
   * take 0.5–1 and any-term hits 0–0.49 when both groups are present, so every all-terms hit ranks first.
   */
  score: number;
  /**
   * The raw keyword evidence behind `score` (for `--explain` and confidence; issue 13): the summed
   * −bm25 of the session's best documents (level 1) or of the turn plus its neighbour's share (level 2),
   * higher is better, not comparable across queries; absent on hits made by other legs.
   */
  raw?: number;
  /** True when the hit matched every query term (the all-terms group), false for any-term hits. */
  allTerms?: boolean;
}

/** Ranked documents fetched per wanted candidate in the first window (sessions have several documents). */
const windowPerCandidate = 8;

/** Level 1: how many of a session's best turn documents add to its score, and the share of each next one (1, 0.5, 0.25). */
export const sessionEvidenceTurns = 3;
export const sessionEvidenceDecay = 0.5;
/** Level 1: share of the session document's score (title + all prompts + project/files) added to a session. */
export const sessionDocumentShare = 0.25;
/** Level 2: share of the better neighbouring turn's score added to a turn. */
export const neighbourShare = 0.5;

/** A ranked document joined with its session and turn, after the filters. */
interface FilteredRow {
  session_rowid: number;
  document_id: number;
  turn_number: number;
  level: string;
  rank: number;
}

/**
 * A document of a ranked window: its place in the window (the time-filtered statement returns it; the others' rows, in
 * id order, are given it from the window's ids), then its row.
 */
interface WindowRow extends Omit<FilteredRow, "rank"> {
  position: number;
}

/**
 * The documents of a ranked window that pass the filters (and, at level 2, are turn documents), best first (in the
 * window's order: ranks ascending, ties by ascending id).
 * bm25() cannot be computed through a join (SQLite then scores every match row by row through it, measured 3x slower
 * at 125k documents), so the window is ranked on the FTS table alone (match-window.ts) and joined here.
 */
function filteredRows(
  db: Database,
  ranked: readonly RankedDocument[],
  level: SearchLevel,
  filters: SearchFilters,
): FilteredRow[] {
  const idList = new Array<number>(ranked.length);
  for (let i = 0; i < ranked.length; i++) idList[i] = ranked[i]!.id;
  const ids = JSON.stringify(idList);
  // `position` is the document's place in the window: each row is put back there, so the rows come out best first
  // without a sort and take their rank from the window (a one-shot search runs this before the JIT has warmed up)
  let rows: WindowRow[];
  if (level === "turn" && (filters.since !== undefined || filters.until !== undefined)) {
    // a turn's own time is filtered: one statement with the turns joined, each session's conditions (its range
    // overlapping the dates among them, filterSql) tested before its turn's time is read (CROSS JOIN fixes that order:
    // SQLite read the wide turn row of every document first, 24 ms for a window of 800 at 20k sessions), and the time
    // from the narrow index `turns_time` (schema v24), not from the turn's wide row
    const filter = filterSql(filters, "t.timestamp");
    rows = db
      .query<WindowRow, Array<string | number>>(
        `SELECT window.key AS position, d.id AS document_id, d.session_rowid, d.turn_number, d.level
        FROM json_each(?) AS window CROSS JOIN documents d INDEXED BY documents_window ON d.id = window.value
        CROSS JOIN sessions s ON s.id = d.session_rowid
        ${turnTimeJoin}
        WHERE d.level = 'turn' AND ${filter.where}`,
      )
      .all(ids, ...filter.params);
  } else {
    // The documents, then their distinct sessions through the filters: a session row is wide (2 µs a lookup), and 800
    // documents share 100–300 sessions (one joined statement took 2 ms for 800 documents, these two 0.5 ms).
    // read in ascending id order (windowDocumentsSql): each row is put back at its id's place in the window
    const positions = new Map<number, number>();
    for (let i = 0; i < idList.length; i++) positions.set(idList[i]!, i);
    const documents = db.query<WindowRow, [string]>(windowDocumentsSql(level)).all(ids);
    const sessionIds = new Set<number>();
    for (const row of documents) {
      row.position = positions.get(row.document_id)!;
      sessionIds.add(row.session_rowid);
    }
    const sessions = windowSessionsSql(filters);
    const kept = new Set<number>();
    for (const row of db
      .query<{ id: number }, Array<string | number>>(sessions.sql)
      .all(JSON.stringify([...sessionIds]), ...sessions.params))
      kept.add(row.id);
    rows = [];
    for (const row of documents) if (kept.has(row.session_rowid)) rows.push(row);
  }
  const byPosition = new Array<WindowRow | undefined>(ranked.length);
  for (const row of rows) byPosition[row.position] = row;
  const out: FilteredRow[] = [];
  for (let position = 0; position < byPosition.length; position++) {
    const row = byPosition[position];
    if (row)
      out.push({
        session_rowid: row.session_rowid,
        document_id: row.document_id,
        turn_number: row.turn_number,
        level: row.level,
        rank: ranked[position]!.rank,
      });
  }
  return out;
}

/**
 * The statement that reads a ranked window's documents in ascending id order (the caller puts each back at its place in
 * the window): its one parameter is the JSON array of their ids. The covering index `documents_window` (schema v23)
 * answers each id from a narrow index instead of the wide document row with its two hashes (800 documents at 20k
 * sessions touched 3.2–5.3 ms of pages in a fresh process, 1.7–1.9 ms by the index: the sqlite3 shell, 15 runs each,
 * 2-core Xeon), and `IN (…)` makes SQLite sort the ids first, so the index is read page after page: 800 ids at 20k,
 * p50 of 30 fresh processes each, 6.8 → 5.6 and 7.3 → 5.3 ms in two rounds against looking them up in the window's
 * order (a one-shot search reads through a 64-page cache, which the window's order kept missing). INDEXED BY keeps the
 * plan: without it SQLite once answered `d.id IN (json_each)` by scanning the sessions, 14 ms.
 */
export function windowDocumentsSql(level: SearchLevel): string {
  return `SELECT d.id AS document_id, d.session_rowid, d.turn_number, d.level
    FROM documents d INDEXED BY documents_window WHERE d.id IN (SELECT value FROM json_each(?))
    ${level === "turn" ? "AND d.level = 'turn'" : ""}`;
}

/**
 * The statement that keeps the sessions of a ranked window that pass `filters`: its first parameter is the JSON array of
 * their rowids, `params` follow. With the default filters the index `sessions_subagent_by_id` (schema v22) answers it
 * alone, without reading the wide session rows.
 */
export function windowSessionsSql(filters: SearchFilters): { sql: string; params: Array<string | number> } {
  const filter = filterSql(filters);
  return {
    sql: `SELECT s.id FROM json_each(?) AS window CROSS JOIN sessions s ON s.id = window.value WHERE ${filter.where}`,
    params: filter.params,
  };
}

/** Hits of filtered rows (best first), best first, at most `candidates`. */
function hitsOf(
  rows: FilteredRow[],
  level: SearchLevel,
  exclude: Set<number>,
  candidates: number,
  spreadCounts: boolean,
): LexicalHit[] {
  const hits = level === "session" ? groupBySession(rows, exclude, spreadCounts) : turnHits(rows, exclude);
  const scores = new Float64Array(hits.length);
  for (let i = 0; i < hits.length; i++) scores[i] = hits[i]!.score;
  const order = descendingOrder(scores); // a stable sort's order: equal scores keep the order the hits were found in
  const best = new Array<LexicalHit>(Math.min(candidates, hits.length));
  for (let i = 0; i < best.length; i++) best[i] = hits[order[i]!]!;
  return best;
}

/**
 * One ranked MATCH with the filters applied before the cut: a window of the best documents is ranked, joined with
 * the filters and grouped; when the filtered, grouped window holds fewer than `candidates` keys and more matches
 * exist, the window grows 4x. So a filtered search never comes back short. When the first window comes back short
 * under filters that narrow the sessions (document-mask.ts), the ranking from then on takes only the documents of the
 * sessions they keep, from the first window's size again: the window then holds the best documents that can pass,
 * instead of growing through every match (from the posting lists; what FTS5 ranks still grows).
 */
async function runMatch(
  db: Database,
  match: string,
  phrases: PhraseMatch,
  level: SearchLevel,
  filters: SearchFilters,
  candidates: number,
  exclude: Set<number>,
  lists: PhraseListCache,
  allowedOnce: (() => Uint8Array) | undefined,
  spreadCounts = true,
): Promise<LexicalHit[]> {
  const first = Math.max(candidates + exclude.size, 1) * windowPerCandidate;
  let allowed: Uint8Array | undefined;
  for (let window = first; ; window *= 4) {
    const ranked = await rankedWindow(db, match, window, phrases, lists, allowed);
    const hits = hitsOf(filteredRows(db, ranked, level, filters), level, exclude, candidates, spreadCounts);
    if (hits.length >= candidates || ranked.length < window) return hits;
    // Short, and the window was full. Under narrowing filters the mask is built without counting the matches first:
    // the count (a pass over their doclists, 5–9 ms at 20k sessions) only spared the mask when the window held every
    // match, that is when exactly `window` documents match; the masked window then returns the same hits.
    if (allowed === undefined && allowedOnce) {
      allowed = allowedOnce();
      window = first / 4;
      continue;
    }
    // Counting the matches costs a pass over their doclists (5 ms for 27k matches at 20k sessions): only when short.
    if (matchCount(db, match) <= window) return hits;
  }
}

/**
 * The keyword hits of one session (`--session`, the picker's level 2, the web view's turn column), ranked as
 * {@link rankTerms} ranks everything: only the session's documents are ranked, and bm25() takes its statistics from the
 * whole table either way, so the scores are those of the global ranking. When this connection kept the scoring of the
 * query's phrases from the search before (postings-ranking.ts `keepScorings`: the list the session was picked from),
 * the session's documents are picked out of it (issue 42). Else FTS5 ranks them by rowid ranges: it runs one xFilter per
 * value of `rowid IN (…)`, and each xFilter counts every matching row again for bm25's IDF: 75–210 ms for a 74-turn
 * session at 20k sessions, against 2–5 ms for one `rowid BETWEEN` range. One MATCH is ranked, the any-term one: a
 * document that holds every term scores the same under the all-terms MATCH (both have the same phrases, and bm25()
 * sums over the phrases), so the all-terms documents are those the scoring counts in every phrase, or those an unranked
 * MATCH finds, which pays no IDF count.
 */
function rankOneSession(
  db: Database,
  query: LexicalQuery,
  level: SearchLevel,
  filters: SearchFilters & { sessionId: string },
  candidates: number,
  lists: PhraseListCache,
): Promise<LexicalHit[]> {
  const ids = sessionDocumentIds(db, filters.sessionId);
  const scored = ids.length > 0 ? rankScoredWithin(lists, query.terms, documentMask(ids)) : undefined;
  const ranges = documentRanges(ids);
  // each range comes ranked; filteredRows keeps the window's order, so the ranges are merged best first (a stable sort)
  const ranked =
    scored ??
    ranges.flatMap(([first, last]) => rankRange(db, query.anyTerm, first, last, -1)).sort((a, b) => a.rank - b.rank);
  const rows = filteredRows(db, ranked, level, filters);
  const single = query.terms.length === 1;
  const scoredIds = scored?.map(({ id }) => id);
  const holdingEvery = () =>
    (scoredIds && documentsHoldingEvery(lists, query.terms, scoredIds)) ??
    new Set(ranges.flatMap(([first, last]) => matchingIds(db, query.allTerms, first, last)));
  const holdsAll = single ? undefined : holdingEvery();
  const allRows = holdsAll ? rows.filter((row) => holdsAll.has(row.document_id)) : rows;
  return tierAllThenAny(
    level,
    hitsOf(allRows, level, new Set(), candidates, single),
    single,
    candidates,
    (seen, wanted) => hitsOf(rows, level, seen, wanted, true),
  );
}

/** Ids of the documents among `first`…`last` that match, unranked (no bm25(): no IDF count). */
function matchingIds(db: Database, match: string, first: number, last: number): number[] {
  return db
    .query<{ id: number }, [string, number, number]>(
      "SELECT rowid AS id FROM documents_fts WHERE documents_fts MATCH ? AND rowid BETWEEN ? AND ?",
    )
    .all(match, first, last)
    .map((row) => row.id);
}

/** Gap (in document ids) up to which two runs of a session's documents are ranked as one range: ranking the other
 * sessions' matches in a gap of 4,096 ids costs well under the ~1.5 ms per term that each extra range pays for IDF. */
const rangeGapIds = 4096;

/** The document ids of one session, ascending; [] when no session has that id. */
function sessionDocumentIds(db: Database, sessionId: string): number[] {
  const rows = db
    .query<{ id: number }, [string]>(
      "SELECT d.id FROM documents d JOIN sessions s ON s.id = d.session_rowid WHERE s.session_id = ? ORDER BY d.id",
    )
    .values(sessionId) as Array<[number]>;
  return rows.map(([id]) => id);
}

/**
 * Ascending document ids as inclusive rowid ranges: consecutive runs (a session indexed at once), merged while the gap
 * between them is at most {@link rangeGapIds} (a session that grew turn by turn under the watcher). Ranges may hold
 * other sessions' documents; the caller's session filter drops them.
 */
function documentRanges(ids: readonly number[]): Array<[number, number]> {
  const ranges: Array<[number, number]> = [];
  for (const id of ids) {
    const last = ranges.at(-1);
    if (last && id - last[1] <= rangeGapIds) last[1] = id;
    else ranges.push([id, id]);
  }
  return ranges;
}

/**
 * Level 1: one hit per session from its matching documents (rows best first, score = −bm25): the session
 * scores Σ decay^i · s_i over its best {@link sessionEvidenceTurns} turns plus {@link sessionDocumentShare}
 * of its session document; its `documentId` is the document that added most. Rows outside the window
 * count as absent (a session's third-best turn may be missed in a huge match set: an approximation).
 * @param spreadCounts false in the all-terms pass of a multi-term query: a session document (whose text is
 *        every prompt) matching alone means the words are spread over the session, not together in one turn,
 *        so it adds to a session found by a turn but does not make a session an all-terms hit by itself
 */
export function groupBySession(
  rows: Array<{ session_rowid: number; document_id: number; turn_number: number; level: string; rank: number }>,
  exclude: Set<number>,
  spreadCounts: boolean,
): LexicalHit[] {
  const sessions = new Map<number, { hit: LexicalHit; turns: number; top: number }>();
  // turn documents first (best first), then session documents, which may only add to sessions already found
  for (const pass of ["turns", "sessions"] as const)
    for (const row of rows) {
      if ((row.level === "session") !== (pass === "sessions") || exclude.has(row.session_rowid)) continue;
      let entry = sessions.get(row.session_rowid);
      if (!entry && row.level === "session" && !spreadCounts) continue;
      if (!entry) {
        entry = {
          hit: { sessionRowid: row.session_rowid, documentId: row.document_id, turnNumber: row.turn_number, score: 0 },
          turns: 0,
          top: 0,
        };
        sessions.set(row.session_rowid, entry);
      }
      let added = 0;
      if (row.level === "session") added = sessionDocumentShare * -row.rank;
      else if (entry.turns < sessionEvidenceTurns) added = sessionEvidenceDecay ** entry.turns++ * -row.rank;
      entry.hit.score += added;
      if (added > entry.top) {
        entry.top = added;
        entry.hit.documentId = row.document_id;
        entry.hit.turnNumber = row.turn_number;
      }
    }
  const hits: LexicalHit[] = [];
  for (const { hit } of sessions.values())
    hits.push({
      sessionRowid: hit.sessionRowid,
      documentId: hit.documentId,
      turnNumber: hit.turnNumber,
      score: hit.score,
      raw: hit.score,
    });
  return hits;
}

/** Level 2: one hit per turn document (rows best first, score = −bm25). */
export function turnHits(
  rows: Array<{ session_rowid: number; document_id: number; turn_number: number; rank: number }>,
  exclude: Set<number>,
): LexicalHit[] {
  const hits = new Map<number, LexicalHit>();
  for (const row of rows) {
    if (exclude.has(row.document_id) || hits.has(row.document_id)) continue;
    hits.set(row.document_id, {
      sessionRowid: row.session_rowid,
      documentId: row.document_id,
      turnNumber: row.turn_number,
      score: -row.rank,
      raw: -row.rank,
    });
  }
  return [...hits.values()];
}

/**
 * Level 2: add {@link neighbourShare} of the better neighbouring turn's score to each turn (a LoCoMo answer,
 * or a coding fix, often sits one turn after the words of the question), then divide by 1 + share so scores
 * stay in 0–1. Only turns that match a query word themselves are returned: a keyword answer never lists a turn
 * without any of the words (adding unmatched neighbours as candidates gained 0.7 points of LoCoMo turn hit@5 on a
 * 400-question sample, not worth answers that do not contain what was asked). Returns at most `candidates`
 * hits, best first.
 */
export function smoothNeighbours(hits: LexicalHit[], candidates: number): LexicalHit[] {
  if (hits.length === 0) return hits;
  const keyOf = (sessionRowid: number, turn: number) => `${sessionRowid}:${turn}`;
  const own = new Map<string, number>(hits.map((hit) => [keyOf(hit.sessionRowid, hit.turnNumber), hit.score]));
  const ownRaw = new Map<string, number>(hits.map((hit) => [keyOf(hit.sessionRowid, hit.turnNumber), hit.raw ?? 0]));
  const smoothed = hits.map((hit) => {
    const [before, after] = [keyOf(hit.sessionRowid, hit.turnNumber - 1), keyOf(hit.sessionRowid, hit.turnNumber + 1)];
    const neighbour = Math.max(own.get(before) ?? 0, own.get(after) ?? 0);
    const neighbourRaw = Math.max(ownRaw.get(before) ?? 0, ownRaw.get(after) ?? 0);
    return {
      ...hit,
      score: (hit.score + neighbourShare * neighbour) / (1 + neighbourShare),
      raw: (hit.raw ?? 0) + neighbourShare * neighbourRaw,
    };
  });
  return smoothed.sort((a, b) => b.score - a.score).slice(0, candidates);
}

/**
 * Which query terms each document matches (for `--explain` and confidence; issue 13): one small MATCH per
 * term restricted to the given documents, so only call it for a page of results.
 * @param documentIds document ids (`LexicalHit.documentId`)
 * @returns document id → the matching terms as in `query.terms` (quoted FTS5 fragments), in query order;
 *          a document that matches none maps to []
 */
export function matchedTerms(db: Database, query: LexicalQuery, documentIds: readonly number[]): Map<number, string[]> {
  const matched = new Map<number, string[]>(documentIds.map((id) => [id, []]));
  if (documentIds.length === 0) return matched;
  const statement = db.query<{ id: number }, Array<string | number>>(
    `SELECT rowid AS id FROM documents_fts WHERE documents_fts MATCH ? AND rowid IN (${documentIds.map(() => "?").join(",")})`,
  );
  for (const term of query.terms)
    for (const row of statement.all(term, ...documentIds)) matched.get(row.id)?.push(term);
  return matched;
}

/** Number of documents matching (only asked when a window came back short after filtering). */
function matchCount(db: Database, match: string): number {
  return (
    db.query<{ n: number }, [string]>("SELECT count(*) AS n FROM documents_fts WHERE documents_fts MATCH ?").get(match)
      ?.n ?? 0
  );
}

/**
 * Keyword candidates for a parsed query, best first.
 * @param candidates how many sessions (level 1) or turns (level 2) to return at most
 * @param lists the scorings of this search so far (postings-ranking.ts), added to here
 * @returns [] when the query has no terms
 */
export async function searchLexical(
  db: Database,
  query: LexicalQuery,
  level: SearchLevel,
  filters: SearchFilters,
  candidates: number,
  lists: PhraseListCache = newPhraseListCache(),
): Promise<LexicalHit[]> {
  if (query.terms.length === 0) return [];
  // issue 13 (search/ranking/cjk.ts): terms in CJK/kana/Hangul/Thai/... are matched inside runs by the trigram side index.
  const unsegmented = splitUnsegmented(query);
  if (unsegmented) {
    const side = searchUnsegmented(db, unsegmented.runs, level, filters, candidates * 4);
    const rest =
      unsegmented.rest.terms.length > 0
        ? await searchLexical(db, unsegmented.rest, level, filters, candidates, lists)
        : [];
    return mergeUnsegmented(rest, side, unsegmented.rest.terms.length > 0, level, candidates);
  }
  const ranked =
    filters.sessionId !== undefined
      ? await rankOneSession(db, query, level, { ...filters, sessionId: filters.sessionId }, candidates, lists)
      : await rankTerms(db, query, level, filters, candidates, lists);
  return level === "turn" ? smoothNeighbours(ranked, candidates) : ranked;
}

/** All-terms hits first (0.5–1), any-term hits below them (0–0.49); see {@link LexicalHit.score}. */
async function rankTerms(
  db: Database,
  query: LexicalQuery,
  level: SearchLevel,
  filters: SearchFilters,
  candidates: number,
  lists: PhraseListCache,
): Promise<LexicalHit[]> {
  const single = query.terms.length === 1;
  const allPhrases: PhraseMatch = { phrases: query.terms, every: true };
  const anyPhrase: PhraseMatch = { phrases: query.terms, every: false }; // both passes score the same phrases
  // the documents narrowing filters keep, made when a pass first needs them, once for both passes
  let allowed: Uint8Array | undefined;
  const allowedOnce = filtersNarrow(filters) ? () => (allowed ??= allowedDocuments(db, filters)) : undefined;
  const all = await runMatch(
    db,
    query.allTerms,
    allPhrases,
    level,
    filters,
    candidates,
    new Set(),
    lists,
    allowedOnce,
    single,
  );
  return tierAllThenAny(level, all, single, candidates, (seen, wanted) =>
    runMatch(db, query.anyTerm, anyPhrase, level, filters, wanted, seen, lists, allowedOnce),
  );
}

/**
 * The two tiers of a keyword answer (see {@link LexicalHit.score}): the all-terms hits, marked and scaled to 0.5–1,
 * then, when they are fewer than `candidates` and the query has several terms, the any-term hits of the keys not yet
 * found, marked and scaled to 0–0.49 (each tier alone takes 0–1). One rule for local search, one session's search and
 * the team archive's search.
 * @param all the all-terms hits, best first, at most `candidates`
 * @param anyTerm the any-term hits of at most `wanted` keys (sessions at level 1, documents at level 2) not in `seen`
 */
export async function tierAllThenAny(
  level: SearchLevel,
  all: LexicalHit[],
  single: boolean,
  candidates: number,
  anyTerm: (seen: Set<number>, wanted: number) => LexicalHit[] | Promise<LexicalHit[]>,
): Promise<LexicalHit[]> {
  const allTier = all.map((hit) => ({ ...hit, allTerms: true }));
  if (allTier.length >= candidates || single) return rescale(allTier, 0, 1);
  const seen = new Set(allTier.map((hit) => (level === "session" ? hit.sessionRowid : hit.documentId)));
  const anyTier = (await anyTerm(seen, candidates - allTier.length)).map((hit) => ({ ...hit, allTerms: false }));
  if (allTier.length === 0) return rescale(anyTier, 0, 1);
  return [...rescale(allTier, 0.5, 1), ...rescale(anyTier, 0, 0.49)];
}

/**
 * Two stores' keyword candidates as one ranking (`--everywhere`: the local index and the team archive), best first, at
 * most `candidates`: all-terms hits above any-term hits as {@link tierAllThenAny} ranks them, each tier merged by the
 * raw −bm25 evidence (`raw`; both stores compute FTS5's BM25, each over its own statistics), keeping each store's own
 * order, and min-max normalized again over both. When only one store has candidates, its list is returned as it is.
 * Ids must not collide (the caller maps one store's into its own range).
 */
export function mergeKeywordHits(lists: ReadonlyArray<readonly LexicalHit[]>, candidates: number): LexicalHit[] {
  const found = lists.filter((hits) => hits.length > 0);
  if (found.length <= 1) return (found[0] ?? []).slice(0, candidates);
  const tier = (allTerms: boolean) =>
    mergeByRaw(found.map((hits) => hits.filter((hit) => (hit.allTerms !== false) === allTerms))).map((hit) => ({
      ...hit,
      score: hit.raw ?? 0,
    }));
  const [all, anyTerm] = [tier(true), tier(false)];
  const ranked =
    all.length === 0 || anyTerm.length === 0
      ? rescale([...all, ...anyTerm], 0, 1)
      : [...rescale(all, 0.5, 1), ...rescale(anyTerm, 0, 0.49)];
  return ranked.slice(0, candidates);
}

/** Lists each best first, merged by `raw` (higher first; a tie keeps the earlier list's hit first). */
function mergeByRaw(lists: ReadonlyArray<readonly LexicalHit[]>): LexicalHit[] {
  const next = lists.map(() => 0);
  const merged: LexicalHit[] = [];
  for (;;) {
    let best = -1;
    for (const [i, hits] of lists.entries()) {
      const hit = hits[next[i]!];
      if (hit && (best < 0 || (hit.raw ?? 0) > (lists[best]![next[best]!]!.raw ?? 0))) best = i;
    }
    if (best < 0) return merged;
    merged.push(lists[best]![next[best]!]!);
    next[best]!++;
  }
}

/** Min-max normalize raw scores (−bm25) into [low, high]; a single hit or equal scores get `high`. */
function rescale(hits: LexicalHit[], low: number, high: number): LexicalHit[] {
  if (hits.length === 0) return hits;
  const scores = hits.map((hit) => hit.score);
  const min = Math.min(...scores);
  const span = Math.max(...scores) - min;
  return hits.map((hit) => ({ ...hit, score: span > 0 ? low + ((hit.score - min) / span) * (high - low) : high }));
}
