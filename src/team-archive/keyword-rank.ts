/**
 * The team archive's keyword ranking (issue 30, schema.ts version 3): FTS5's BM25, computed in PostgreSQL over the
 * postings the pushers wrote with FTS5's own tokens, so that the archive ranks documents as local search does.
 *
 * FTS5's bm25() (sqlite ext/fts5/fts5_aux.c, fts5Bm25Function), per document D and query phrase q:
 *   score(D) = Σ_q idf(q) · f(q, D) · (k1 + 1) / (f(q, D) + k1 · (1 − b + b · |D| / avgdl)),  k1 = 1.2, b = 0.75
 *   idf(q) = ln((N − n(q) + 0.5) / (n(q) + 0.5)), floored at 1e-6; f(q, D) = Σ over q's instances of the column's
 *   weight; |D| = the document's tokens in all columns; N = documents; avgdl = tokens / N; n(q) = documents matching q.
 * Here N and the tokens are summed over the batches the role sees (row-level security), n(q) is counted from the
 * postings, and ties are broken by document id (the archive keeps local document order). A query term is one of:
 *   a word              its posting lists;
 *   an identifier prefix (`"7acd37a"*`) the posting lists of every term starting with it, frequencies summed per
 *                       document (FTS5 counts each matching token);
 *   a phrase            (`"src path file ts"`) the documents holding all its tokens; when there are at most
 *                       {@link exactPhraseCandidates} of them, their texts are read and the phrase's instances counted
 *                       (consecutive tokens of one column, as FTS5); past that, a document's phrase frequency is
 *                       approximated by the smallest frequency of its tokens (documented difference from local).
 */
import type { SearchFilters } from "../search/filters.ts";
import type { SearchLevel } from "../search/lexical.ts";
import { type LexicalQuery, termWords } from "../search/query.ts";
import type { ArchiveConnection } from "./connection.ts";
import { type KeywordTokenizer, phraseFrequency } from "./keyword-tokens.ts";
import { archiveFilterSql } from "./sessions.ts";

/** Phrases holding every token in at most this many documents are counted exactly from the documents' texts. */
export const exactPhraseCandidates = 2000;

/** One query term as the archive matches it. */
interface ArchiveTerm {
  /** Index in LexicalQuery.terms (bit of RankedArchiveDocument.matched). */
  index: number;
  /** FTS5 tokens of the term (one for a word or a prefix). */
  tokens: string[];
  prefix: boolean;
}

/** Explicit postings of exact phrases, computed by the client: parallel arrays. */
interface PhrasePostings {
  terms: number[];
  documents: string[];
  /** Each document's batch (the lanes split the documents by batch). */
  batches: string[];
  frequencies: number[];
  lengths: number[];
}

/** What the ranking needs of the whole archive the role sees, read once per search. */
export interface ArchiveStatistics {
  /** Documents (N). */
  documents: number;
  /** Tokens per document (avgdl). */
  averageLength: number;
  /** Documents matching each query term (n(q)), by term index. */
  matches: number[];
  /** Each query term's idf, by term index (FTS5's formula, see the file comment). */
  idf: number[];
  /** The ids of the batches the role sees, ascending (lanes split them in ranges). */
  batches: string[];
}

/** A query prepared for the archive: its terms, the postings of its exact phrases and the statistics. */
export interface ArchiveKeywordQuery {
  terms: ArchiveTerm[];
  phrases: PhrasePostings;
  /** Phrases approximated (more than {@link exactPhraseCandidates} candidate documents): their terms. */
  approximated: ArchiveTerm[];
  statistics: ArchiveStatistics;
  /** Windows already ranked, by level, filters and size (both tiers come from one statement). */
  windows: Map<string, Promise<TieredWindows>>;
}

/** The best documents of both tiers: matching every term (`all`), and matching any (`any`). */
export interface TieredWindows {
  all: RankedArchiveDocument[];
  any: RankedArchiveDocument[];
}

/** One ranked document of a window, best first. */
export interface RankedArchiveDocument {
  document_id: number;
  session_rowid: number;
  turn_number: number;
  level: string;
  /** −BM25 (lower is better), as lexical.ts's rows. */
  rank: number;
  /** Bit i set when the document matches query term i. */
  matched: number;
  /** Whether the document passes the filters (and, at level 2, is a turn document). */
  passes: boolean;
}

/** BM25's k1 and b, as FTS5 fixes them (fts5_aux.c). */
const k1 = 1.2;
const b = 0.75;

/** Numbered SQL parameters: `add(value)` appends a value and returns its placeholder (`$n`). */
function sqlParameters(values: unknown[] = []) {
  return {
    values,
    add(value: unknown): string {
      values.push(value);
      return `$${values.length}`;
    },
  };
}

/**
 * SQL: posting term `term` starts with `prefix` (both text in the "C" collation of recall.postings.term, so a prefix's
 * terms are one range of the primary key: from the prefix itself to the prefix followed by U+10FFFF, the last code
 * point).
 */
const termHasPrefix = (term: string, prefix: string) => `${term} >= ${prefix} AND ${term} < ${prefix} || chr(1114111)`;

/**
 * Prepare `query` for the archive: tokenize its terms with FTS5's tokenizer, count the exact phrases' instances, and
 * read the statistics.
 * @param exactLimit phrases holding every token in more documents than this are approximated
 * @throws ArchiveError from the connection
 */
export async function prepareArchiveQuery(
  connection: ArchiveConnection,
  tokenizer: KeywordTokenizer,
  query: LexicalQuery,
  exactLimit = exactPhraseCandidates,
): Promise<ArchiveKeywordQuery> {
  const terms = query.terms.map((term, index) => ({
    index,
    tokens: tokenizer.tokens(termWords(term)),
    prefix: term.endsWith("*"),
  }));
  const phrases: PhrasePostings = { terms: [], documents: [], batches: [], frequencies: [], lengths: [] };
  const approximated: ArchiveTerm[] = [];
  for (const term of terms.filter((t) => t.tokens.length > 1)) {
    const distinct = [...new Set(term.tokens)];
    const candidates = await connection.query<{ document: string; length: number }>(
      `SELECT u.document, max(u.length) AS length
       FROM unnest($1::text[]) AS q(term) JOIN recall.postings p ON p.term = q.term
       CROSS JOIN LATERAL unnest(p.documents, p.lengths) AS u(document, length)
       GROUP BY u.document HAVING count(*) = $2 LIMIT $3`,
      [distinct, distinct.length, exactLimit + 1],
    );
    if (candidates.length > exactLimit) {
      approximated.push(term);
      continue;
    }
    if (candidates.length === 0) continue;
    const texts = await connection.query<{ id: string; batch: string; heading: string; body: string; extra: string }>(
      "SELECT id, batch, heading, body, extra FROM recall.documents WHERE id = ANY($1::bigint[])",
      [candidates.map((row) => row.document)],
    );
    tokenizer.learn(texts.flatMap((row) => [row.heading, row.body, row.extra]));
    const lengthOf = new Map(candidates.map((row) => [row.document, row.length]));
    for (const row of texts) {
      const frequency = phraseFrequency(tokenizer, row, term.tokens);
      if (frequency === 0) continue;
      phrases.terms.push(term.index);
      phrases.documents.push(row.id);
      phrases.batches.push(row.batch);
      phrases.frequencies.push(frequency);
      phrases.lengths.push(lengthOf.get(row.id) ?? 0);
    }
  }
  const prepared = { terms, phrases, approximated, windows: new Map() };
  return { ...prepared, statistics: await readStatistics(connection, prepared) };
}

/** The query's terms by kind: single words, identifier prefixes, and approximated phrases' tokens. */
function termsByKind(query: Pick<ArchiveKeywordQuery, "terms" | "approximated">) {
  return {
    words: query.terms.filter((t) => t.tokens.length === 1 && !t.prefix),
    prefixes: query.terms.filter((t) => t.tokens.length === 1 && t.prefix),
    approximate: query.approximated.flatMap((t) =>
      [...new Set(t.tokens)].map((token, _, all) => ({ index: t.index, token, count: all.length })),
    ),
  };
}

/**
 * N, avgdl, the visible batches and each term's n(q): a word's documents are its posting lists' lengths (no unnest),
 * a prefix's and an approximated phrase's are counted from their postings, an exact phrase's are the client's.
 */
async function readStatistics(
  connection: ArchiveConnection,
  query: Pick<ArchiveKeywordQuery, "terms" | "approximated" | "phrases">,
): Promise<ArchiveStatistics> {
  const { words, prefixes, approximate } = termsByKind(query);
  // only the branches the query needs: the planner cannot tell an empty array parameter, and planned a prefix join
  // over every posting for none (35 ms at 20k generated sessions, against 3)
  const { values: params, add } = sqlParameters();
  const branches: string[] = [];
  if (words.length > 0)
    branches.push(`SELECT q.term_index, sum(p.document_count)::float8 AS matches
      FROM unnest(${add(words.map((t) => t.index))}::integer[], ${add(words.map((t) => t.tokens[0]!))}::text[])
        AS q(term_index, term)
      JOIN recall.postings p ON p.term = q.term GROUP BY q.term_index`);
  if (prefixes.length > 0)
    branches.push(`SELECT q.term_index, count(DISTINCT u.document)::float8 AS matches
      FROM unnest(${add(prefixes.map((t) => t.index))}::integer[], ${add(prefixes.map((t) => t.tokens[0]!))}::text[])
        AS q(term_index, term)
      JOIN recall.postings p ON ${termHasPrefix("p.term", "q.term")}
      CROSS JOIN LATERAL unnest(p.documents) AS u(document) GROUP BY q.term_index`);
  if (approximate.length > 0)
    branches.push(`SELECT x.term_index, count(*)::float8 AS matches FROM (
      SELECT q.term_index FROM unnest(${add(approximate.map((t) => t.index))}::integer[],
        ${add(approximate.map((t) => t.token))}::text[], ${add(approximate.map((t) => t.count))}::integer[])
        AS q(term_index, term, tokens)
      JOIN recall.postings p ON p.term = q.term CROSS JOIN LATERAL unnest(p.documents) AS u(document)
      GROUP BY q.term_index, u.document HAVING count(*) = max(q.tokens)) AS x
      GROUP BY x.term_index`);
  const counts =
    branches.length > 0
      ? `(SELECT json_object_agg(c.term_index, c.matches) FROM (${branches.join(" UNION ALL ")}) AS c)`
      : "NULL::json";
  const [row] = await connection.query<{
    documents: number;
    tokens: number;
    batches: string[] | null;
    matches: Record<string, number> | null;
  }>(
    `SELECT coalesce(sum(b.documents), 0)::float8 AS documents, coalesce(sum(b.tokens), 0)::float8 AS tokens,
       array_agg(b.id ORDER BY b.id) AS batches, ${counts} AS matches
     FROM recall.batches b`,
    params,
  );
  const documents = Number(row?.documents ?? 0);
  const tokens = Number(row?.tokens ?? 0);
  const matches = query.terms.map((t) => Number(row?.matches?.[t.index] ?? 0));
  for (const index of new Set(query.phrases.terms))
    matches[index] = query.phrases.terms.filter((term) => term === index).length;
  const idf = matches.map((n) => {
    const value = Math.log((documents - n + 0.5) / (n + 0.5));
    return value <= 0 || !Number.isFinite(value) ? 1e-6 : value;
  });
  return {
    documents,
    averageLength: documents > 0 ? tokens / documents : 1,
    matches,
    idf,
    batches: row?.batches ?? [],
  };
}

/**
 * The best `window` documents for the query by BM25 among those matching every term (`all`) and among those matching
 * any (`any`), best first, each with the filters evaluated (a window the filters emptied is told apart from an
 * exhausted match). Both tiers come from one statement, cached in the query. With `lanes` (connections to the same
 * archive as the same role), the visible batches are split in ranges and ranked at once, one range per connection:
 * a document lives in one batch, so each range's best documents are exact, and the best of their union are the
 * whole archive's (bm25's statistics are the archive's whichever range is ranked).
 * @throws ArchiveError from the connection
 */
export function rankArchiveWindows(
  lanes: readonly ArchiveConnection[],
  query: ArchiveKeywordQuery,
  level: SearchLevel,
  filters: SearchFilters,
  window: number,
): Promise<TieredWindows> {
  const key = JSON.stringify([level, filters, window]);
  let ranked = query.windows.get(key);
  if (!ranked) {
    ranked = rankInLanes();
    query.windows.set(key, ranked);
  }
  return ranked;

  async function rankInLanes(): Promise<TieredWindows> {
    const batches = query.statistics.batches;
    if (batches.length === 0) return { all: [], any: [] };
    const ranges: Array<[string, string]> = [];
    const per = Math.ceil(batches.length / lanes.length);
    for (let start = 0; start < batches.length; start += per)
      ranges.push([batches[start]!, batches[Math.min(start + per, batches.length) - 1]!]);
    const parts = await Promise.all(
      ranges.map((range, i) => rankRange(lanes[i]!, query, level, filters, window, range)),
    );
    const best = (tier: "all" | "any") =>
      parts
        .flatMap((part) => part[tier])
        .sort((x, y) => x.rank - y.rank || x.document_id - y.document_id)
        .slice(0, window);
    return { all: best("all"), any: best("any") };
  }
}

/** Both tiers' best `window` documents among the documents of batches `range` (inclusive ids). */
async function rankRange(
  connection: ArchiveConnection,
  query: ArchiveKeywordQuery,
  level: SearchLevel,
  filters: SearchFilters,
  window: number,
  range: [string, string],
): Promise<TieredWindows> {
  const { words, prefixes, approximate } = termsByKind(query);
  const { idf, averageLength } = query.statistics;
  const single = query.terms.length === 1;
  const { values: params, add } = sqlParameters([range[0], range[1], averageLength, window, query.terms.length]);
  // FTS5's per-phrase BM25 term (see the file comment) of frequency `f` and length `len`, with idf `weight`.
  const bm25 = (weight: string, f: string, len: string) =>
    `${weight} * ${f} * ${k1 + 1} / (${f} + ${k1} * (${1 - b} + ${b} * ${len}::float8 / $3))`;
  const inRange = "p.batch BETWEEN $1 AND $2";
  const branches: string[] = [];
  if (words.length > 0)
    branches.push(`SELECT q.term_index, u.document, ${bm25("q.idf", "u.frequency::float8", "u.length")} AS score
      FROM unnest(${add(words.map((t) => t.index))}::integer[], ${add(words.map((t) => t.tokens[0]!))}::text[],
        ${add(words.map((t) => idf[t.index]!))}::float8[]) AS q(term_index, term, idf)
      JOIN recall.postings p ON p.term = q.term AND ${inRange}
      CROSS JOIN LATERAL unnest(p.documents, p.frequencies, p.lengths) AS u(document, frequency, length)`);
  if (prefixes.length > 0)
    branches.push(`SELECT x.term_index, x.document, ${bm25("x.idf", "x.frequency", "x.length")} AS score FROM (
        SELECT q.term_index, q.idf, u.document, sum(u.frequency)::float8 AS frequency, max(u.length) AS length
        FROM unnest(${add(prefixes.map((t) => t.index))}::integer[], ${add(prefixes.map((t) => t.tokens[0]!))}::text[],
          ${add(prefixes.map((t) => idf[t.index]!))}::float8[]) AS q(term_index, term, idf)
        JOIN recall.postings p ON ${termHasPrefix("p.term", "q.term")} AND ${inRange}
        CROSS JOIN LATERAL unnest(p.documents, p.frequencies, p.lengths) AS u(document, frequency, length)
        GROUP BY q.term_index, q.idf, u.document) AS x`);
  if (approximate.length > 0)
    branches.push(`SELECT x.term_index, x.document, ${bm25("x.idf", "x.frequency", "x.length")} AS score FROM (
        SELECT q.term_index, q.idf, u.document, min(u.frequency)::float8 AS frequency, max(u.length) AS length
        FROM unnest(${add(approximate.map((t) => t.index))}::integer[], ${add(approximate.map((t) => t.token))}::text[],
          ${add(approximate.map((t) => t.count))}::integer[], ${add(approximate.map((t) => idf[t.index]!))}::float8[])
          AS q(term_index, term, tokens, idf)
        JOIN recall.postings p ON p.term = q.term AND ${inRange}
        CROSS JOIN LATERAL unnest(p.documents, p.frequencies, p.lengths) AS u(document, frequency, length)
        GROUP BY q.term_index, q.idf, u.document HAVING count(*) = max(q.tokens)) AS x`);
  if (query.phrases.terms.length > 0)
    branches.push(`SELECT x.term_index, x.document, ${bm25(`(${add(idf)}::float8[])[x.term_index + 1]`, "x.frequency", "x.length")} AS score
      FROM unnest(${add(query.phrases.terms)}::integer[], ${add(query.phrases.documents)}::bigint[],
        ${add(query.phrases.batches)}::bigint[], ${add(query.phrases.frequencies)}::float8[],
        ${add(query.phrases.lengths)}::integer[]) AS x(term_index, document, batch, frequency, length)
      WHERE x.batch BETWEEN $1 AND $2`);
  if (branches.length === 0) return { all: [], any: [] };
  const scored = single
    ? "SELECT t.document, t.score, 1 AS terms, 1::bigint << t.term_index AS matched FROM term_postings t"
    : `SELECT t.document, sum(t.score) AS score, count(*) AS terms, bit_or(1::bigint << t.term_index) AS matched
       FROM term_postings t GROUP BY t.document`;
  const byTurnTime = level === "turn" && (filters.since !== undefined || filters.until !== undefined);
  const filter = archiveFilterSql(filters, params.length + 1, byTurnTime ? "t.timestamp" : undefined);
  params.push(...filter.params);
  const turnJoin = byTurnTime ? "LEFT JOIN recall.turns t ON t.session = d.session AND t.number = d.turn_number" : "";
  const levelCondition = level === "turn" ? "d.level = 'turn' AND " : "";
  const tiers = single
    ? "SELECT 'any' AS tier, * FROM (SELECT * FROM scored WHERE terms <= $5::integer ORDER BY score DESC, document LIMIT $4) AS w"
    : `SELECT 'all' AS tier, * FROM (SELECT * FROM scored WHERE terms = $5 ORDER BY score DESC, document LIMIT $4) AS w
       UNION ALL
       SELECT 'any' AS tier, * FROM (SELECT * FROM scored ORDER BY score DESC, document LIMIT $4) AS w`;
  const rows = await connection.query<{
    tier: "all" | "any";
    document_id: string;
    session_rowid: string;
    turn_number: number;
    level: string;
    score: number;
    matched: string;
    passes: boolean;
  }>(
    `WITH term_postings AS (${branches.join(" UNION ALL ")}),
      scored AS ${single ? "" : "MATERIALIZED"} (${scored}),
      best AS (${tiers})
    SELECT w.tier, d.id AS document_id, d.session AS session_rowid, d.turn_number, d.level, w.score, w.matched,
      coalesce(${levelCondition}${filter.sql}, false) AS passes
    FROM best w JOIN recall.documents d ON d.id = w.document JOIN recall.sessions s ON s.id = d.session ${turnJoin}
    ORDER BY w.score DESC, w.document`,
    params,
  );
  const ranked = (tier: "all" | "any") =>
    rows
      .filter((row) => row.tier === tier)
      .map((row) => ({
        document_id: Number(row.document_id),
        session_rowid: Number(row.session_rowid),
        turn_number: row.turn_number,
        level: row.level,
        rank: -row.score,
        matched: Number(row.matched),
        passes: row.passes,
      }));
  const any = ranked("any");
  return { all: single ? any : ranked("all"), any };
}

/**
 * The query terms each of `documentIds` holds (bit i for term i), looked up in the postings: for a document no keyword
 * window ranked (one only the vector leg found). A phrase counts as held when every one of its words is.
 * @throws ArchiveError from the connection
 */
export async function termsHeldBy(
  connection: ArchiveConnection,
  query: Pick<ArchiveKeywordQuery, "terms">,
  documentIds: readonly number[],
): Promise<Map<number, number>> {
  const held = new Map(documentIds.map((id) => [id, 0]));
  if (documentIds.length === 0) return held;
  const tokens = query.terms.flatMap((term) => term.tokens.map((token) => ({ term, token })));
  const rows = await connection.query<{ term_index: number; document: string; tokens: number }>(
    `WITH q AS (SELECT * FROM unnest($1::integer[], $2::text[], $3::boolean[]) AS q(term_index, token, prefix)),
      held AS (
        SELECT q.term_index, q.token, p.documents FROM q JOIN recall.postings p ON p.term = q.token
        UNION ALL
        SELECT q.term_index, q.token, p.documents FROM q JOIN recall.postings p
          ON q.prefix AND ${termHasPrefix("p.term", "q.token")}
      )
     SELECT h.term_index, u.document, count(DISTINCT h.token)::integer AS tokens
     FROM held h CROSS JOIN LATERAL unnest(h.documents) AS u(document)
     WHERE u.document = ANY($4::bigint[]) GROUP BY h.term_index, u.document`,
    [tokens.map((t) => t.term.index), tokens.map((t) => t.token), tokens.map((t) => t.term.prefix), documentIds],
  );
  for (const row of rows) {
    if (row.tokens < new Set(query.terms[row.term_index]!.tokens).size) continue;
    const id = Number(row.document);
    held.set(id, held.get(id)! | (1 << row.term_index));
  }
  return held;
}
