/**
 * The query side of matching inside unsegmented scripts (issue 13): `recall search 调度器` finds a turn that says
 * "调度器介入时", although `unicode61` indexed that run as one token. Query terms holding a Han, kana, Hangul,
 * Thai, Lao, Khmer, Myanmar or Tibetan letter are taken out of the FTS5 query and looked up as substrings
 * in the trigram side index `documents_cjk` (index/write/cjk.ts), every run required:
 *   runs of 3+ characters → trigram MATCH, ranked by bm25();
 *   shorter runs (`调度`, `器`) cannot form a trigram → `LIKE '%run%'` over the side table (it stores only the
 *   unsegmented runs, so the scan is small), ranked by a BM25-style saturated count of occurrences.
 * The lexical leg then merges the two lists ({@link mergeUnsegmented}); a query without such letters never
 * touches the side index, so English ranking is unchanged.
 */
import type { Database } from "bun:sqlite";
import { unsegmentedLetter, unsegmentedRuns } from "../../index/write/cjk.ts";
import { filterSql, type SearchFilters } from "../listing/filters.ts";
import type { LexicalHit, SearchLevel } from "./lexical.ts";
import { termWords, type LexicalQuery } from "./query.ts";

/** A query split into the part FTS5 searches and the unsegmented runs the side index searches. */
export interface UnsegmentedSplit {
  /** The query without the terms that hold an unsegmented letter (`terms` may be empty). */
  rest: LexicalQuery;
  /** Runs to find as substrings (see index/write/cjk.ts `unsegmentedRuns`), each required; never empty. */
  runs: string[];
}

/**
 * The words of a term that holds an unsegmented letter which are not in its runs, as FTS5 phrases: each stretch of
 * consecutive tokens without such a letter (a user-quoted `"安装了kimi-cli"` is the tokens `安装了 kimi cli`, so
 * `"kimi cli"`; issue 38).
 */
function segmentedPhrases(term: string): string[] {
  const phrases: string[] = [];
  let stretch: string[] = [];
  const close = () => {
    if (stretch.length > 0) phrases.push(`"${stretch.join(" ")}"`);
    stretch = [];
  };
  for (const token of termWords(term).split(" ")) {
    if (unsegmentedLetter.test(token)) close();
    else if (token !== "") stretch.push(token);
  }
  close();
  return phrases;
}

/**
 * Split off the terms that hold an unsegmented-script letter; the Latin words of such a term stay in the rest.
 *   terms `"调度器"` `"bug"` → rest `"bug"`, runs `["调度器"]`;  terms `"ป ญหา"` → rest none, runs `["ปญหา"]`;
 *   term `"安装了 kimi cli"` (user-quoted) → rest `"kimi cli"`, runs `["安装了"]`
 * @returns undefined when no term holds such a letter (the common case: nothing changes)
 */
export function splitUnsegmented(query: LexicalQuery): UnsegmentedSplit | undefined {
  const unsegmented = query.terms.filter((term) => unsegmentedLetter.test(term));
  if (unsegmented.length === 0) return undefined;
  const runs = [...new Set(unsegmented.flatMap((term) => unsegmentedRuns(termWords(term))))];
  if (runs.length === 0) return undefined;
  const kept = query.terms.filter((term) => !unsegmentedLetter.test(term));
  const terms = [...new Set([...kept, ...unsegmented.flatMap(segmentedPhrases)])];
  return { rest: { ...query, terms, allTerms: terms.join(" "), anyTerm: terms.join(" OR ") }, runs };
}

/** Ranked side-index rows fetched per wanted candidate in the first window (sessions have several documents). */
const windowPerCandidate = 8;

/**
 * Documents whose side-index text holds every run, best first, filters applied before the cut, grouped
 * per session at level 1 (its best document) like the FTS5 leg.
 * @returns hits with `score` in 0–1 (min-max of the raw score within the list; a single hit gets 1)
 */
export function searchUnsegmented(
  db: Database,
  runs: readonly string[],
  level: SearchLevel,
  filters: SearchFilters,
  candidates: number,
): LexicalHit[] {
  if (runs.length === 0 || candidates <= 0) return [];
  const long = runs.filter((run) => [...run].length >= 3);
  const short = runs.filter((run) => [...run].length < 3);
  const likes = short.map(() => "text LIKE ?").join(" AND ");
  const likeParams = short.map((run) => `%${run}%`);
  let ranked: string;
  let rankParams: string[];
  if (long.length > 0) {
    ranked = `SELECT rowid AS id, bm25(documents_cjk) AS rank FROM documents_cjk WHERE documents_cjk MATCH ? ${short.length > 0 ? `AND ${likes}` : ""}`;
    rankParams = [long.map((run) => `"${run}"`).join(" "), ...likeParams];
  } else {
    // BM25's term-frequency part per run (k1 1.2, b 0.75) over occurrences counted with replace(); no IDF.
    const occurrences = "((length(text) - length(replace(text, ?, ''))) * 1.0 / length(?))";
    const saturation = `${occurrences} / (${occurrences} + 1.2 * (0.25 + 0.75 * length(text) / (SELECT max(avg(length(text)), 1) FROM documents_cjk)))`;
    ranked = `SELECT rowid AS id, -(${short.map(() => saturation).join(" + ")}) AS rank FROM documents_cjk WHERE ${likes}`;
    rankParams = [...short.flatMap((run) => [run, run, run, run]), ...likeParams];
  }
  const filter = filterSql(filters, level === "turn" ? "t.timestamp" : undefined);
  const needsTurns = level === "turn" && (filters.since !== undefined || filters.until !== undefined);
  const levelJoin = needsTurns ? "JOIN turns t ON t.session_rowid = d.session_rowid AND t.number = d.turn_number" : "";
  const levelWhere = level === "turn" ? "AND d.level = 'turn'" : "";
  const sql = `WITH ranked AS MATERIALIZED (${ranked} ORDER BY rank LIMIT ?)
    SELECT d.id AS document_id, d.session_rowid, d.turn_number, ranked.rank
    FROM ranked JOIN documents d ON d.id = ranked.id JOIN sessions s ON s.id = d.session_rowid ${levelJoin}
    WHERE 1 ${levelWhere} AND ${filter.where} ORDER BY ranked.rank`;
  const statement = db.query<
    { session_rowid: number; document_id: number; turn_number: number; rank: number },
    Array<string | number>
  >(sql);
  for (let window = candidates * windowPerCandidate; ; window *= 4) {
    const rows = statement.all(...rankParams, window, ...filter.params);
    const best = new Map<number, LexicalHit>();
    for (const row of rows) {
      const key = level === "session" ? row.session_rowid : row.document_id;
      if (best.has(key)) continue; // rows arrive best first
      best.set(key, {
        sessionRowid: row.session_rowid,
        documentId: row.document_id,
        turnNumber: row.turn_number,
        score: -row.rank,
      });
    }
    if (best.size >= candidates) return normalize([...best.values()].slice(0, candidates));
    // Short after filtering: widen the window unless it already held every matching row.
    const fetched =
      db
        .query<{ n: number }, Array<string | number>>(`SELECT count(*) AS n FROM (${ranked} LIMIT ?)`)
        .get(...rankParams, window)?.n ?? 0;
    if (fetched < window) return normalize([...best.values()]);
  }
}

/** Min-max normalize scores into 0–1; a single hit or equal scores get 1. */
function normalize(hits: LexicalHit[]): LexicalHit[] {
  if (hits.length === 0) return hits;
  const scores = hits.map((hit) => hit.score);
  const min = Math.min(...scores);
  const span = Math.max(...scores) - min;
  return hits.map((hit) => ({ ...hit, score: span > 0 ? (hit.score - min) / span : 1 }));
}

/**
 * Merge the FTS5 hits of the rest of the query with the side-index hits (both scored 0–1).
 * With no other terms the side hits are the answer. Otherwise a key (session at level 1, document at level 2)
 * found by both ranks first, in 0.5–1 (the mean of its two scores, rescaled), like an all-terms hit; a key found
 * by one list only takes 0–0.49, like an any-term hit. The document shown is the FTS5 one when both found it.
 * @param keyword hits of {@link UnsegmentedSplit.rest}; ignored when `restHasTerms` is false
 */
export function mergeUnsegmented(
  keyword: LexicalHit[],
  side: LexicalHit[],
  restHasTerms: boolean,
  level: SearchLevel,
  candidates: number,
): LexicalHit[] {
  if (!restHasTerms) return side.slice(0, candidates);
  const keyOf = (hit: LexicalHit) => (level === "session" ? hit.sessionRowid : hit.documentId);
  const sideByKey = new Map(side.map((hit) => [keyOf(hit), hit]));
  const merged: LexicalHit[] = [];
  for (const hit of keyword) {
    const other = sideByKey.get(keyOf(hit));
    sideByKey.delete(keyOf(hit));
    merged.push({ ...hit, score: other ? 0.5 + 0.25 * (hit.score + other.score) : 0.49 * hit.score });
  }
  for (const hit of sideByKey.values()) merged.push({ ...hit, score: 0.49 * hit.score });
  return merged.sort((a, b) => b.score - a.score).slice(0, candidates);
}
