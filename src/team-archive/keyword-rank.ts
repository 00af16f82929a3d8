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
  frequencies: number[];
  lengths: number[];
}

/** A query prepared for the archive: its terms and the postings of its exact phrases, reused across windows. */
export interface ArchiveKeywordQuery {
  terms: ArchiveTerm[];
  phrases: PhrasePostings;
  /** Phrases approximated (more than {@link exactPhraseCandidates} candidate documents): their terms. */
  approximated: ArchiveTerm[];
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

/** The answer of {@link rankArchiveWindow}. */
export interface ArchiveWindow {
  rows: RankedArchiveDocument[];
  /** Documents matching each query term (n(q)), by term index. */
  matches: number[];
  /** Documents the role sees (N). */
  documents: number;
}

/**
 * Prepare `query` for the archive: tokenize its terms with FTS5's tokenizer and count the exact phrases' instances.
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
  const phrases: PhrasePostings = { terms: [], documents: [], frequencies: [], lengths: [] };
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
    const texts = await connection.query<{ id: string; heading: string; body: string; extra: string }>(
      "SELECT id, heading, body, extra FROM recall.documents WHERE id = ANY($1::bigint[])",
      [candidates.map((row) => row.document)],
    );
    tokenizer.learn(texts.flatMap((row) => [row.heading, row.body, row.extra]));
    const lengthOf = new Map(candidates.map((row) => [row.document, row.length]));
    for (const row of texts) {
      const frequency = phraseFrequency(tokenizer, row, term.tokens);
      if (frequency === 0) continue;
      phrases.terms.push(term.index);
      phrases.documents.push(row.id);
      phrases.frequencies.push(frequency);
      phrases.lengths.push(lengthOf.get(row.id) ?? 0);
    }
  }
  return { terms, phrases, approximated };
}

/**
 * The best `window` documents for the query by BM25, among those matching every term (`allTerms`) or any, with the
 * filters evaluated per row (a window the filters emptied is told apart from an exhausted match).
 * @throws ArchiveError from the connection
 */
export async function rankArchiveWindow(
  connection: ArchiveConnection,
  query: ArchiveKeywordQuery,
  allTerms: boolean,
  level: SearchLevel,
  filters: SearchFilters,
  window: number,
): Promise<ArchiveWindow> {
  const words = query.terms.filter((t) => t.tokens.length === 1 && !t.prefix);
  const prefixes = query.terms.filter((t) => t.tokens.length === 1 && t.prefix);
  const approximate = query.approximated.flatMap((t) =>
    [...new Set(t.tokens)].map((token, _, all) => ({ index: t.index, token, count: all.length })),
  );
  // One word: no grouping by document; words only: their postings are read once (the CTE is inlined).
  const single = query.terms.length === 1;
  const onlyWords = words.length === query.terms.length;
  const byTurnTime = level === "turn" && (filters.since !== undefined || filters.until !== undefined);
  const filter = archiveFilterSql(filters, 14, byTurnTime ? "t.timestamp" : undefined);
  const turnJoin = byTurnTime ? "LEFT JOIN recall.turns t ON t.session = d.session AND t.number = d.turn_number" : "";
  const levelCondition = level === "turn" ? "d.level = 'turn' AND " : "";
  const rows = await connection.query<{
    document_id: string;
    session_rowid: string;
    turn_number: number;
    level: string;
    score: number;
    matched: string;
    passes: boolean;
    matches: Record<string, number> | null;
    documents: string;
  }>(
    `WITH stats AS MATERIALIZED (
      SELECT greatest(coalesce(sum(documents), 0), 1)::float8 AS n,
        greatest(coalesce(sum(tokens), 0), 1)::float8 / greatest(coalesce(sum(documents), 0), 1) AS avgdl
      FROM recall.batches
    ), term_postings AS ${onlyWords ? "" : "MATERIALIZED"} (
      SELECT q.term_index, u.document, u.frequency::float8 AS frequency, u.length
      FROM unnest($1::integer[], $2::text[]) AS q(term_index, term)
      JOIN recall.postings p ON p.term = q.term
      CROSS JOIN LATERAL unnest(p.documents, p.frequencies, p.lengths) AS u(document, frequency, length)
      UNION ALL
      SELECT q.term_index, u.document, sum(u.frequency)::float8, max(u.length)
      FROM unnest($3::integer[], $4::text[]) AS q(term_index, term)
      JOIN recall.postings p ON p.term >= q.term AND p.term < q.term || chr(1114111)
      CROSS JOIN LATERAL unnest(p.documents, p.frequencies, p.lengths) AS u(document, frequency, length)
      GROUP BY q.term_index, u.document
      UNION ALL
      SELECT q.term_index, u.document, min(u.frequency)::float8, max(u.length)
      FROM unnest($5::integer[], $6::text[], $7::integer[]) AS q(term_index, term, tokens)
      JOIN recall.postings p ON p.term = q.term
      CROSS JOIN LATERAL unnest(p.documents, p.frequencies, p.lengths) AS u(document, frequency, length)
      GROUP BY q.term_index, u.document HAVING count(*) = max(q.tokens)
      UNION ALL
      SELECT * FROM unnest($8::integer[], $9::bigint[], $10::float8[], $11::integer[])
    ), counts AS (
      -- a word's documents are its posting lists' lengths (no unnest); the other terms are counted from their postings
      SELECT q.term_index, sum(cardinality(p.documents))::float8 AS matches
      FROM unnest($1::integer[], $2::text[]) AS q(term_index, term) JOIN recall.postings p ON p.term = q.term
      GROUP BY q.term_index
      ${onlyWords ? "" : "UNION ALL SELECT t.term_index, count(*)::float8 FROM term_postings t WHERE t.term_index <> ALL ($1::integer[]) GROUP BY t.term_index"}
    ), idf AS MATERIALIZED (
      SELECT c.term_index, c.matches, greatest(ln((s.n - c.matches + 0.5) / (c.matches + 0.5)), 1e-6) AS idf
      FROM counts c CROSS JOIN stats s
    ), scored AS (
      SELECT t.document, ${
        single
          ? "i.idf * t.frequency * 2.2 / (t.frequency + 1.2 * (0.25 + 0.75 * t.length::float8 / s.avgdl)) AS score, 1 AS terms, 1::bigint << t.term_index AS matched"
          : "sum(i.idf * t.frequency * 2.2 / (t.frequency + 1.2 * (0.25 + 0.75 * t.length::float8 / s.avgdl))) AS score, count(*) AS terms, bit_or(1::bigint << t.term_index) AS matched"
      }
      FROM term_postings t JOIN idf i USING (term_index) CROSS JOIN stats s ${single ? "" : "GROUP BY t.document"}
    ), best AS (
      SELECT * FROM scored WHERE terms >= $12 ORDER BY score DESC, document LIMIT $13
    )
    SELECT d.id AS document_id, d.session AS session_rowid, d.turn_number, d.level, b.score, b.matched,
      coalesce(${levelCondition}${filter.sql}, false) AS passes,
      (SELECT json_object_agg(i.term_index, i.matches) FROM idf i) AS matches,
      (SELECT n FROM stats)::bigint AS documents
    FROM best b JOIN recall.documents d ON d.id = b.document JOIN recall.sessions s ON s.id = d.session ${turnJoin}
    ORDER BY b.score DESC, b.document`,
    [
      words.map((t) => t.index),
      words.map((t) => t.tokens[0]!),
      prefixes.map((t) => t.index),
      prefixes.map((t) => t.tokens[0]!),
      approximate.map((t) => t.index),
      approximate.map((t) => t.token),
      approximate.map((t) => t.count),
      query.phrases.terms,
      query.phrases.documents,
      query.phrases.frequencies,
      query.phrases.lengths,
      allTerms ? query.terms.length : 1,
      window,
      ...filter.params,
    ],
  );
  const matches = query.terms.map((t) => Number(rows[0]?.matches?.[t.index] ?? 0));
  return {
    rows: rows.map((row) => ({
      document_id: Number(row.document_id),
      session_rowid: Number(row.session_rowid),
      turn_number: row.turn_number,
      level: row.level,
      rank: -row.score,
      matched: Number(row.matched),
      passes: row.passes,
    })),
    matches,
    documents: Number(rows[0]?.documents ?? 0),
  };
}
