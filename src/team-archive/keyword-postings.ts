/**
 * The posting lists of an archive search's terms (issue 30, schema.ts version 4), gathered for keyword-rank.ts: the
 * batches the role sees, and for each query term one posting list per batch, from its tokens' stored lists
 * (posting-lists.ts) without the places a deletion removed:
 *   a word              its lists;
 *   an identifier prefix (`"7acd37a"*`) the lists of every term starting with it, frequencies summed per document
 *                       (FTS5 counts each matching token);
 *   a phrase            (`"src path file ts"`) the documents holding all its tokens; when there are at most
 *                       {@link exactPhraseCandidates} of them, their texts are read and the phrase's instances counted
 *                       (consecutive tokens of one of its four columns, as FTS5); past that, a document's phrase
 *                       frequency is approximated by the smallest frequency of its tokens (documented difference
 *                       from local).
 */
import type { ArchiveConnection } from "./connection.ts";
import { phraseFrequency } from "./keyword-tokens.ts";
import type { PostingList } from "../index/postings/posting-list.ts";
import { decodePostingList } from "./posting-lists.ts";

/** Phrases holding every token in at most this many documents are counted exactly from the documents' texts. */
export const exactPhraseCandidates = 2000;

/** One query term as the archive matches it. */
export interface ArchiveTerm {
  /** Index in LexicalQuery.terms (bit of RankedArchiveDocument.matched). */
  index: number;
  /** FTS5 tokens of the term (one for a word or a prefix). */
  tokens: string[];
  prefix: boolean;
}

/** A visible batch: its places handed out and the ones removed (a mask, when any). */
export interface BatchPlaces {
  id: string;
  positions: number;
  removed: Uint8Array | undefined;
}

/** A term's postings in one batch after its tokens were combined: positions ascending. */
export interface TermPostings {
  positions: Int32Array;
  frequencies: Float64Array;
  lengths: Int32Array;
}

/** Numbered SQL parameters: `add(value)` appends a value and returns its placeholder (`$n`). */
export function sqlParameters(values: unknown[] = []) {
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

/** What {@link readTermPostings} gathered: per query term (by index), one posting list per batch id. */
export interface GatheredPostings {
  /** The batches the role sees, with their live documents and tokens. */
  batches: Array<BatchPlaces & { documents: number; tokens: number }>;
  /** The same batches by id. */
  places: Map<string, BatchPlaces>;
  /** Phrases approximated (more than the exact limit of candidate documents). */
  approximated: ArchiveTerm[];
  /** The documents matching each term, with the frequency bm25 counts. */
  termPostings: Array<Map<string, TermPostings>>;
  /**
   * For each phrase counted exactly (by term index), the positions of the documents holding all its words (not
   * necessarily in a row); undefined for the other terms, whose holders are their matches.
   */
  phraseHolders: Array<Map<string, Int32Array> | undefined>;
}

/**
 * Read the visible batches and the posting lists of `terms`, and combine them per term (the file comment); run it
 * in the search's snapshot (keyword-rank.ts inSnapshot) so that the batches' counts and the lists agree.
 * @param exactLimit phrases holding every token in more documents than this are approximated
 * @throws ArchiveError from the connection, or for a posting list whose bytes do not hold its documents
 */
export async function readTermPostings(
  connection: ArchiveConnection,
  terms: readonly ArchiveTerm[],
  exactLimit: number,
): Promise<GatheredPostings> {
  const { batches, lists } = await readPostings(connection, terms);
  const places = new Map<string, BatchPlaces>(batches.map((batch) => [batch.id, batch]));
  const approximated: ArchiveTerm[] = [];
  const termPostings: Array<Map<string, TermPostings>> = [];
  const phraseHolders: Array<Map<string, Int32Array> | undefined> = [];
  for (const term of terms) {
    phraseHolders.push(undefined);
    if (term.tokens.length === 1) {
      termPostings.push(combineLists(lists.get(tokenKey(term.tokens[0]!, term.prefix)), places));
      continue;
    }
    const distinct = [...new Set(term.tokens)];
    const perToken = distinct.map((token) => combineLists(lists.get(tokenKey(token, false)), places));
    const candidates = intersect(perToken, places);
    const count = [...candidates.values()].reduce((sum, postings) => sum + postings.positions.length, 0);
    if (count > exactLimit) {
      approximated.push(term);
      termPostings.push(candidates);
      continue;
    }
    termPostings.push(await exactPhrase(connection, term.tokens, candidates));
    phraseHolders[term.index] = new Map([...candidates].map(([batch, postings]) => [batch, postings.positions]));
  }
  return { batches, places, approximated, termPostings, phraseHolders };
}

/** The key of a token's posting lists: the token, and whether it stands for every term it starts. */
const tokenKey = (token: string, prefix: boolean) => `${prefix ? "*" : "="}${token}`;

/**
 * The batches the role sees and the posting lists of the query's tokens (by {@link tokenKey}, then by batch: several
 * lists per batch for a prefix).
 */
async function readPostings(
  connection: ArchiveConnection,
  terms: readonly ArchiveTerm[],
): Promise<{
  batches: Array<BatchPlaces & { documents: number; tokens: number }>;
  lists: Map<string, Map<string, PostingList[]>>;
}> {
  const words = [...new Set(terms.flatMap((t) => (t.prefix && t.tokens.length === 1 ? [] : t.tokens)))];
  const prefixes = [...new Set(terms.flatMap((t) => (t.prefix && t.tokens.length === 1 ? t.tokens : [])))];
  const { values: params, add } = sqlParameters();
  // only the branches the query needs: the planner cannot tell an empty array parameter
  const branches: string[] = [];
  if (words.length > 0)
    branches.push(`SELECT '=' || p.term AS key, p.batch, p.document_count, p.postings FROM recall.postings p
      WHERE p.term = ANY(${add(words)}::text[])`);
  if (prefixes.length > 0)
    branches.push(`SELECT '*' || q.prefix AS key, p.batch, p.document_count, p.postings
      FROM unnest(${add(prefixes)}::text[]) AS q(prefix) JOIN recall.postings p ON ${termHasPrefix("p.term", "q.prefix")}`);
  const batchRows = await connection.query<{
    id: string;
    documents: number;
    tokens: string;
    positions: number;
    removed: number[];
  }>("SELECT id, documents, tokens, positions, removed FROM recall.batches");
  const listRows =
    branches.length > 0
      ? await connection.query<{ key: string; batch: string; document_count: number; postings: Buffer }>(
          branches.join(" UNION ALL "),
          params,
        )
      : [];
  const batches = batchRows.map((row) => {
    let removed: Uint8Array | undefined;
    if (row.removed.length > 0) {
      removed = new Uint8Array(row.positions);
      for (const position of row.removed) removed[position] = 1;
    }
    return { id: row.id, documents: row.documents, tokens: Number(row.tokens), positions: row.positions, removed };
  });
  const lists = new Map<string, Map<string, PostingList[]>>();
  for (const row of listRows) {
    let byBatch = lists.get(row.key);
    if (!byBatch) lists.set(row.key, (byBatch = new Map()));
    const list = decodePostingList(row.postings, row.document_count);
    const existing = byBatch.get(row.batch);
    if (existing) existing.push(list);
    else byBatch.set(row.batch, [list]);
  }
  return { batches, lists };
}

/**
 * One list per batch from a token's lists (a prefix has one per matching term): without removed positions, and for
 * several lists the frequencies summed per document (FTS5 counts each matching token of a prefix).
 */
function combineLists(
  byBatch: Map<string, PostingList[]> | undefined,
  places: ReadonlyMap<string, BatchPlaces>,
): Map<string, TermPostings> {
  const combined = new Map<string, TermPostings>();
  if (!byBatch) return combined;
  for (const [batch, lists] of byBatch) {
    const place = places.get(batch);
    if (!place) continue; // written after the snapshot's batches were read: not in N
    if (lists.length === 1 && !place.removed) {
      combined.set(batch, lists[0]!);
      continue;
    }
    const frequency = new Float64Array(place.positions);
    const length = new Int32Array(place.positions);
    const seen = new Uint8Array(place.positions);
    let count = 0;
    for (const list of lists)
      for (let i = 0; i < list.positions.length; i++) {
        const position = list.positions[i]!;
        if (place.removed?.[position] === 1 || position >= place.positions) continue;
        if (seen[position] === 0) {
          seen[position] = 1;
          count++;
        }
        frequency[position]! += list.frequencies[i]!;
        length[position] = list.lengths[i]!;
      }
    if (count === 0) continue;
    combined.set(batch, compactPlaces(seen, count, frequency, length));
  }
  return combined;
}

/** The positions marked in `seen` (`count` of them), ascending, with their frequencies and lengths. */
function compactPlaces(seen: Uint8Array, count: number, frequency: Float64Array, length: Int32Array): TermPostings {
  const out = {
    positions: new Int32Array(count),
    frequencies: new Float64Array(count),
    lengths: new Int32Array(count),
  };
  let k = 0;
  for (let position = 0; position < seen.length; position++)
    if (seen[position] === 1) {
      out.positions[k] = position;
      out.frequencies[k] = frequency[position]!;
      out.lengths[k] = length[position]!;
      k++;
    }
  return out;
}

/**
 * The documents holding every one of a phrase's tokens (each token's combined lists), with the smallest of their
 * frequencies: a phrase's candidates, and its approximation.
 */
function intersect(
  perToken: ReadonlyArray<Map<string, TermPostings>>,
  places: ReadonlyMap<string, BatchPlaces>,
): Map<string, TermPostings> {
  const out = new Map<string, TermPostings>();
  for (const [batch, first] of perToken[0] ?? []) {
    if (perToken.some((token) => !token.has(batch))) continue;
    const size = places.get(batch)!.positions;
    const holders = new Uint8Array(size);
    const frequency = new Float64Array(size).fill(Number.POSITIVE_INFINITY);
    const length = new Int32Array(size);
    for (const token of perToken) {
      const postings = token.get(batch)!;
      for (let i = 0; i < postings.positions.length; i++) {
        const position = postings.positions[i]!;
        holders[position]!++;
        frequency[position] = Math.min(frequency[position]!, postings.frequencies[i]!);
        length[position] = postings.lengths[i]!;
      }
    }
    const seen = new Uint8Array(size);
    let count = 0;
    for (let i = 0; i < first.positions.length; i++)
      if (holders[first.positions[i]!] === perToken.length) {
        seen[first.positions[i]!] = 1;
        count++;
      }
    if (count > 0) out.set(batch, compactPlaces(seen, count, frequency, length));
  }
  return out;
}

/**
 * A phrase's exact postings: the candidate documents' texts read and the phrase's instances counted (keyword-tokens.ts
 * phraseFrequency); documents without an instance are left out.
 */
async function exactPhrase(
  connection: ArchiveConnection,
  phrase: readonly string[],
  candidates: ReadonlyMap<string, TermPostings>,
): Promise<Map<string, TermPostings>> {
  const wanted = [...candidates].flatMap(([batch, postings]) =>
    [...postings.positions].map((position, i) => ({ batch, position, length: postings.lengths[i]! })),
  );
  const out = new Map<string, TermPostings>();
  if (wanted.length === 0) return out;
  const texts = await connection.query<{
    batch: string;
    position: number;
    heading: string;
    body: string;
    extra: string;
    abstract: string;
  }>(
    `SELECT d.batch, d.position, d.heading, d.body, d.extra, d.abstract
     FROM unnest($1::bigint[], $2::integer[]) AS w(batch, position)
     JOIN recall.documents d ON d.batch = w.batch AND d.position = w.position`,
    [wanted.map((w) => w.batch), wanted.map((w) => w.position)],
  );
  const frequencyOf = new Map(texts.map((row) => [`${row.batch}:${row.position}`, phraseFrequency(row, phrase)]));
  const byBatch = new Map<string, Array<{ position: number; frequency: number; length: number }>>();
  for (const w of wanted) {
    const frequency = frequencyOf.get(`${w.batch}:${w.position}`) ?? 0;
    if (frequency === 0) continue;
    let entries = byBatch.get(w.batch);
    if (!entries) byBatch.set(w.batch, (entries = []));
    entries.push({ position: w.position, frequency, length: w.length });
  }
  for (const [batch, entries] of byBatch)
    out.set(batch, {
      positions: Int32Array.from(entries, (e) => e.position),
      frequencies: Float64Array.from(entries, (e) => e.frequency),
      lengths: Int32Array.from(entries, (e) => e.length),
    });
  return out;
}
