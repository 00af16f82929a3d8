/**
 * The local index's own posting lists of the keyword index (schema v21, issue 42): for every term, the documents that
 * hold it with bm25's inputs (document-terms.ts, in posting-list.ts's bytes), so that search ranks the best k
 * documents without FTS5's bm25() scoring every matching row (search/ranking/postings-ranking.ts). FTS5 stays the
 * index of phrases and prefixes; these lists hold the same tokens (index/tokens/keyword-tokens.ts, tested against
 * FTS5) for the same documents, written in the same transactions as `documents_fts`.
 *
 * Storage, as a log-structured merge of segments (O'Neil et al. 1996; as FTS5 and Lucene keep theirs):
 *   keyword_segments   one row per segment: the documents written into it and their tokens
 *   keyword_postings   (segment, term) → the term's posting list in that segment, keys = document ids (in segment
 *                      order, so that a merge reads its segments' rows in term order and deletes them as ranges)
 *   keyword_documents  document id → the segment holding its live postings, and its length
 *   keyword_stale      (document id, segment, length): postings of a document replaced or deleted since that segment
 *                      was written; a posting is live unless its (document, segment) is here
 * A write transaction adds one segment, an index run one per ~1M postings ({@link KeywordSegmentWriter}); a document
 * replaced in place or deleted (the trigger on `documents`) leaves a stale row; segments of about the same size are
 * merged four at a time, dropping the stale postings ({@link mergeKeywordSegments}). Documents and tokens live = the
 * segments' sums minus the stale rows': search uses the lists only while these equal FTS5's own totals (its averages
 * record), so a write path that missed the lists makes search fall back to FTS5, never rank wrong.
 */
import type { Database } from "bun:sqlite";
import { type PackedDocumentTerms, packedDocumentTerms } from "./document-terms.ts";
import { TermNumbers } from "./term-numbers.ts";
import { decodePostingList, encodePostingList, type PostingList, readVarint, writeVarint } from "./posting-list.ts";
import { loadDocumentTexts } from "../write/documents.ts";

/** The tables and the trigger of schema v21 (see the file comment). */
export const keywordPostingsSchema = `
  CREATE TABLE IF NOT EXISTS keyword_segments (
    id INTEGER PRIMARY KEY,
    documents INTEGER NOT NULL, -- documents written into the segment, live or stale since
    tokens INTEGER NOT NULL     -- their lengths summed (bm25's |D|)
  );
  CREATE TABLE IF NOT EXISTS keyword_postings (
    term TEXT NOT NULL,
    segment INTEGER NOT NULL,
    count INTEGER NOT NULL,     -- documents in the list
    last INTEGER NOT NULL,      -- the list's last (largest) document id: a merge appends lists without reading them
    postings BLOB NOT NULL,     -- index/postings/posting-list.ts
    PRIMARY KEY (segment, term)
  ) WITHOUT ROWID;
  CREATE TABLE IF NOT EXISTS keyword_documents (
    id INTEGER PRIMARY KEY,     -- documents.id
    segment INTEGER NOT NULL,
    length INTEGER NOT NULL
  );
  CREATE INDEX IF NOT EXISTS keyword_documents_segment ON keyword_documents(segment);
  CREATE TABLE IF NOT EXISTS keyword_stale (
    document_id INTEGER NOT NULL,
    segment INTEGER NOT NULL,
    length INTEGER NOT NULL,
    PRIMARY KEY (document_id, segment)
  ) WITHOUT ROWID;
  CREATE TRIGGER IF NOT EXISTS documents_keyword_ad AFTER DELETE ON documents BEGIN
    INSERT OR IGNORE INTO keyword_stale(document_id, segment, length)
      SELECT id, segment, length FROM keyword_documents WHERE id = old.id;
    DELETE FROM keyword_documents WHERE id = old.id;
  END;`;

/**
 * Mark a document's postings stale before its FTS row is replaced in place (the writer keeps its id when only its text
 * changed), inside the caller's transaction. A document with no postings is left alone.
 */
export function retireKeywordDocument(db: Database, id: number): void {
  db.query(
    "INSERT OR IGNORE INTO keyword_stale(document_id, segment, length) SELECT id, segment, length FROM keyword_documents WHERE id = ?",
  ).run(id);
  db.query("DELETE FROM keyword_documents WHERE id = ?").run(id);
}

/**
 * The documents whose FTS rows are written, queued and written as one segment by {@link flush}: per transaction
 * (after the FTS rows, so that nothing here opens a statement journal among them: writer.ts PendingFtsRows), or, for
 * an index run, once {@link flushWhenFull} finds enough queued (one segment per 100-session transaction made a first
 * index of 20k sessions write 1.25M rows and merge them again: 38 s of its 140). Until they are written, search ranks
 * in FTS5 (the totals differ); a run that stops before it leaves documents without postings, which the next run
 * writes ({@link repairKeywordPostings}). A document added twice keeps its last terms.
 */
export class KeywordSegmentWriter {
  private readonly pending = new Map<number, PackedDocumentTerms>();
  private pendingPostings = 0;
  private written = 0;

  /** True while documents are queued (not yet written). */
  get queued(): boolean {
    return this.pending.size > 0;
  }

  /** Segments this writer has written. */
  get segmentsWritten(): number {
    return this.written;
  }

  /** Queue document `id` with its BM25 inputs (computed from the columns its FTS row gets). */
  add(id: number, terms: PackedDocumentTerms): void {
    this.pending.set(id, terms);
    this.pendingPostings += terms.frequencies.length;
  }

  /**
   * Write the queued documents as a segment once they hold {@link segmentPostings} postings or more (bounds the memory
   * they take: ~12 bytes a posting, packed), inside the caller's transaction, without merging: an index run merges
   * once, at its end (every posting rewritten once, not at each size class on the way).
   */
  flushWhenFull(db: Database): void {
    if (this.pendingPostings >= segmentPostings) this.flush(db, false);
  }

  /**
   * Write the queued documents that still exist as one new segment, then (unless `merge` is false) merge segments as
   * {@link mergeKeywordSegments} decides; inside the caller's transaction. Nothing queued: nothing written.
   * @throws Error from posting-list.ts when a document id is above 2^31 − 1
   */
  flush(db: Database, merge = true): void {
    if (this.pending.size === 0) return;
    const existing = new Set(
      db
        .query<{ id: number }, [string]>("SELECT d.id FROM json_each(?) AS w CROSS JOIN documents d ON d.id = w.value")
        .all(JSON.stringify([...this.pending.keys()]))
        .map((row) => row.id),
    );
    const documents = [...this.pending].filter(([id]) => existing.has(id)).sort((a, b) => a[0] - b[0]);
    this.pending.clear();
    this.pendingPostings = 0;
    if (documents.length === 0) return;
    const tokens = documents.reduce((sum, [, terms]) => sum + terms.length, 0);
    const segment = insertSegment(db, documents.length, tokens);
    const insertPostings = db.query(
      "INSERT INTO keyword_postings(segment, term, count, last, postings) VALUES (?, ?, ?, ?, ?)",
    );
    for (const list of invertDocuments(documents))
      insertPostings.run(
        segment,
        list.term,
        list.ids.length,
        list.ids.at(-1)!,
        encodePostingList(list.ids, list.frequencies, list.lengths),
      );
    const insertDocument = db.query("INSERT OR REPLACE INTO keyword_documents(id, segment, length) VALUES (?, ?, ?)");
    for (const [id, terms] of documents) insertDocument.run(id, segment, terms.length);
    this.written++;
    if (merge) mergeKeywordSegments(db);
  }
}

/**
 * Documents (ascending ids) turned into one posting list per term, in two passes over flat typed arrays: each posting's
 * term numbered (term-numbers.ts), then the postings placed by term (a counting sort, stable, so each list keeps
 * ascending ids). Pushing into a growing array per term took 0.5–1.2 s per million postings; this takes a fraction.
 */
function invertDocuments(
  documents: ReadonlyArray<readonly [number, PackedDocumentTerms]>,
): Array<{ term: string; ids: Int32Array; frequencies: Uint32Array; lengths: Int32Array }> {
  const postings = documents.reduce((sum, [, terms]) => sum + terms.frequencies.length, 0);
  const termOf = new Int32Array(postings);
  const numbers = new TermNumbers();
  const counts: number[] = [];
  let p = 0;
  const place = (number: number) => {
    if (number === counts.length) counts.push(0);
    counts[number]!++;
    termOf[p++] = number;
  };
  for (const [, document] of documents) numbers.forEachNumber(document.terms, place);
  const { terms } = numbers;
  const starts = new Int32Array(terms.length + 1);
  for (let t = 0; t < terms.length; t++) starts[t + 1] = starts[t]! + counts[t]!;
  const next = starts.slice(0, terms.length);
  const ids = new Int32Array(postings);
  const frequencies = new Uint32Array(postings);
  const lengths = new Int32Array(postings);
  p = 0;
  for (const [id, document] of documents)
    for (let i = 0; i < document.frequencies.length; i++) {
      const slot = next[termOf[p++]!]!++;
      ids[slot] = id;
      frequencies[slot] = document.frequencies[i]!;
      lengths[slot] = document.length;
    }
  return terms.map((term, t) => ({
    term,
    ids: ids.subarray(starts[t]!, starts[t + 1]!),
    frequencies: frequencies.subarray(starts[t]!, starts[t + 1]!),
    lengths: lengths.subarray(starts[t]!, starts[t + 1]!),
  }));
}

/** Postings an index run's writer queues before it writes them as a segment (~12 MB packed, ~12 MB inverted). */
const segmentPostings = 1_000_000;

/** Insert a segment row; its id is above every segment's, merged or not (no RETURNING: see the class comment). */
function insertSegment(db: Database, documents: number, tokens: number): number {
  const next =
    (db.query<{ last: number | null }, []>("SELECT max(id) AS last FROM keyword_segments").get()?.last ?? 0) + 1;
  db.query("INSERT INTO keyword_segments(id, documents, tokens) VALUES (?, ?, ?)").run(next, documents, tokens);
  return next;
}

/** Segments merged at once: four of about the same size (the same power of {@link mergeFactor} in documents). */
const mergeFactor = 4;
/** Stale rows above which every segment holding one is rewritten (each search reads them all: ~1 ms for 16k). */
const mostStaleRows = 16_384;

/**
 * Merge segments, inside the caller's transaction: while {@link mergeFactor} segments have the same size class
 * (⌊log₄ documents⌋), they become one; a segment with more than a quarter of its documents stale is rewritten without
 * them; and when more than {@link mostStaleRows} postings are stale, every segment that holds one is. So a segment is
 * rewritten about log₄(N) times in all, and the lists of a term stay few.
 */
export function mergeKeywordSegments(db: Database): void {
  for (;;) {
    const segments = db
      .query<{ id: number; documents: number }, []>("SELECT id, documents FROM keyword_segments ORDER BY id")
      .all();
    const byClass = new Map<number, number[]>();
    for (const segment of segments) {
      const sizeClass = Math.floor(Math.log(Math.max(segment.documents, 1)) / Math.log(mergeFactor));
      byClass.set(sizeClass, [...(byClass.get(sizeClass) ?? []), segment.id]);
    }
    const full = [...byClass.values()].find((ids) => ids.length >= mergeFactor);
    if (full) {
      mergeSegments(db, full);
      continue;
    }
    const staleBySegment = db
      .query<{ segment: number; stale: number; documents: number }, []>(
        `SELECT k.segment, count(*) AS stale, s.documents FROM keyword_stale k JOIN keyword_segments s ON s.id = k.segment
         GROUP BY k.segment`,
      )
      .all();
    const total = staleBySegment.reduce((sum, row) => sum + row.stale, 0);
    const rewritten = staleBySegment.filter((row) => total > mostStaleRows || row.stale * 4 > row.documents);
    for (const row of rewritten) mergeSegments(db, [row.segment]);
    return;
  }
}

/**
 * Merge every segment into one without the stale postings, inside the caller's transaction: afterwards no term, id or
 * count of a deleted or replaced document is left in the lists (`forget`, the redaction of stored text).
 */
export function optimizeKeywordPostings(db: Database): void {
  const ids = db
    .query<{ id: number }, []>("SELECT id FROM keyword_segments ORDER BY id")
    .all()
    .map((row) => row.id);
  const stale = db.query<{ n: number }, []>("SELECT count(*) AS n FROM keyword_stale").get()?.n ?? 0;
  // one transaction (a savepoint inside the caller's): not a commit per row written
  if (ids.length > 1 || stale > 0) db.transaction(() => mergeSegments(db, ids))();
}

/** One stored posting list row of a segment. */
interface PostingRow {
  segment: number;
  term: string;
  count: number;
  last: number;
  postings: Uint8Array;
}

/**
 * One term's lists from several segments as one list's bytes, without decoding them, when no segment has a stale
 * posting and their id ranges follow one another (a first index, a build): each list after the first gets its first
 * gap rewritten (from the previous list's last id) and the rest of its bytes copied. Undefined otherwise.
 */
function appendedLists(
  rows: readonly PostingRow[],
  stale: StaleDocuments,
): { count: number; last: number; postings: Uint8Array } | undefined {
  if (rows.some((row) => stale.has(row.segment))) return undefined;
  const parts: Array<{ row: PostingRow; value: number; next: number }> = [];
  for (const row of rows) {
    const first = readVarint(row.postings, 0); // the first document's id
    if (!first) return undefined; // damaged: liveList says so
    parts.push({ row, ...first });
  }
  parts.sort((x, y) => x.value - y.value);
  for (let i = 1; i < parts.length; i++) if (parts[i]!.value <= parts[i - 1]!.row.last) return undefined;
  const out = Buffer.allocUnsafe(parts.reduce((sum, part) => sum + part.row.postings.length + 5, 0));
  let offset = 0;
  let count = 0;
  for (const [i, { row, value, next }] of parts.entries()) {
    if (i === 0) {
      out.set(row.postings, offset);
      offset += row.postings.length;
    } else {
      offset = writeVarint(out, offset, value - parts[i - 1]!.row.last);
      out.set(row.postings.subarray(next), offset);
      offset += row.postings.length - next;
    }
    count += row.count;
  }
  return { count, last: parts.at(-1)!.row.last, postings: out.subarray(0, offset) };
}

/**
 * Rewrite segments `ids` as one new segment without their stale postings: each segment's rows are read in term order
 * (the primary key's), merged term by term, and written to the new segment as they come; then the old rows go, as
 * ranges of the primary key.
 */
function mergeSegments(db: Database, ids: readonly number[]): void {
  const idList = JSON.stringify(ids);
  const stale = staleDocuments(db);
  const live = db
    .query<{ documents: number; tokens: number }, [string]>(
      `SELECT count(*) AS documents, coalesce(sum(length), 0) AS tokens FROM keyword_documents
       WHERE segment IN (SELECT value FROM json_each(?))`,
    )
    .get(idList)!;
  if (live.documents > 0) {
    const merged = insertSegment(db, live.documents, live.tokens);
    const insertPostings = db.query(
      "INSERT INTO keyword_postings(segment, term, count, last, postings) VALUES (?, ?, ?, ?, ?)",
    );
    // a statement of its own per segment: a cursor of a cached (db.query) statement is reset when it runs again
    const statements = ids.map(() =>
      db.prepare<PostingRow, [number]>(
        "SELECT segment, term, count, last, postings FROM keyword_postings WHERE segment = ?",
      ),
    );
    try {
      const cursors = ids.map((segment, i) => statements[i]!.iterate(segment));
      const heads = cursors.map((cursor) => cursor.next());
      for (;;) {
        let term: string | undefined;
        for (const head of heads)
          if (!head.done && (term === undefined || binaryLess(head.value.term, term))) term = head.value.term;
        if (term === undefined) break;
        const rows: PostingRow[] = [];
        for (const [i, head] of heads.entries())
          if (!head.done && head.value.term === term) {
            rows.push(head.value);
            heads[i] = cursors[i]!.next();
          }
        const appended = appendedLists(rows, stale);
        if (appended) {
          insertPostings.run(merged, term, appended.count, appended.last, appended.postings);
          continue;
        }
        const list = liveList(rows, stale);
        if (list.positions.length > 0)
          insertPostings.run(
            merged,
            term,
            list.positions.length,
            list.positions.at(-1)!,
            encodePostingList(list.positions, list.frequencies, list.lengths),
          );
      }
    } finally {
      for (const statement of statements) statement.finalize();
    }
    db.query("UPDATE keyword_documents SET segment = ? WHERE segment IN (SELECT value FROM json_each(?))").run(
      merged,
      idList,
    );
  }
  const deletePostings = db.query("DELETE FROM keyword_postings WHERE segment = ?");
  for (const segment of ids) deletePostings.run(segment);
  db.query("DELETE FROM keyword_stale WHERE segment IN (SELECT value FROM json_each(?))").run(idList);
  db.query("DELETE FROM keyword_segments WHERE id IN (SELECT value FROM json_each(?))").run(idList);
}

/**
 * Whether `a` sorts before `b` in SQLite's BINARY collation (memcmp of their UTF-8 bytes: code point order), the
 * order of the rows' `term`. JavaScript's `<` compares UTF-16 units, which puts a code point above U+FFFF (a surrogate
 * pair, D800–DFFF) before U+E000–U+FFFF; each unit is moved to its code point order first.
 */
function binaryLess(a: string, b: string): boolean {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800) x += x < 0xe000 ? 0x2000 : -0x800;
    if (y >= 0xd800) y += y < 0xe000 ? 0x2000 : -0x800;
    return x < y;
  }
  return a.length < b.length;
}

/** The stale postings, by segment: the ids of the documents whose postings there are no longer live. */
export type StaleDocuments = ReadonlyMap<number, ReadonlySet<number>>;

/** Every stale row, by segment (at most ~{@link mostStaleRows} after a merge). */
export function staleDocuments(db: Database): StaleDocuments {
  const stale = new Map<number, Set<number>>();
  for (const [id, segment] of db.query("SELECT document_id, segment FROM keyword_stale").values() as Array<
    [number, number]
  >) {
    let ids = stale.get(segment);
    if (!ids) {
      ids = new Set();
      stale.set(segment, ids);
    }
    ids.add(id);
  }
  return stale;
}

/** A posting list whose bytes do not hold its documents. */
export class DamagedPostingsError extends Error {}

/**
 * One term's live postings from its lists in several segments, as one list by ascending document id.
 * @throws DamagedPostingsError when a list's bytes do not hold its documents
 */
function liveList(
  rows: ReadonlyArray<{ segment: number; count: number; postings: Uint8Array }>,
  stale: StaleDocuments,
): PostingList {
  const parts: PostingList[] = [];
  for (const row of rows) {
    const list = decodePostingList(row.postings, row.count);
    if (!list) throw new DamagedPostingsError(`the posting list of a term in segment ${row.segment} is damaged`);
    const dead = stale.get(row.segment);
    parts.push(dead ? withoutDocuments(list, dead) : list);
  }
  if (parts.length === 1) return parts[0]!;
  return mergeLists(parts);
}

/** `list` without the documents in `dead`. */
function withoutDocuments(list: PostingList, dead: ReadonlySet<number>): PostingList {
  const keep: number[] = [];
  for (let i = 0; i < list.positions.length; i++) if (!dead.has(list.positions[i]!)) keep.push(i);
  if (keep.length === list.positions.length) return list;
  return {
    positions: Int32Array.from(keep, (i) => list.positions[i]!),
    frequencies: Float64Array.from(keep, (i) => list.frequencies[i]!),
    lengths: Int32Array.from(keep, (i) => list.lengths[i]!),
  };
}

/**
 * Lists of distinct documents merged into one by ascending id (a document is live in one segment at most). Segments
 * mostly hold disjoint id ranges (a merged segment gets a new id but holds older documents): taken by their first id,
 * each is appended when it starts after the merged list ends, else merged in (linear).
 */
function mergeLists(unordered: readonly PostingList[]): PostingList {
  const parts = unordered.filter((part) => part.positions.length > 0).sort((x, y) => x.positions[0]! - y.positions[0]!);
  const total = parts.reduce((sum, part) => sum + part.positions.length, 0);
  let out: PostingList = {
    positions: new Int32Array(total),
    frequencies: new Float64Array(total),
    lengths: new Int32Array(total),
  };
  let spare: PostingList | undefined;
  let size = 0;
  for (const part of parts) {
    if (size === 0 || part.positions[0]! > out.positions[size - 1]!) {
      out.positions.set(part.positions, size);
      out.frequencies.set(part.frequencies, size);
      out.lengths.set(part.lengths, size);
      size += part.positions.length;
      continue;
    }
    spare ??= {
      positions: new Int32Array(total),
      frequencies: new Float64Array(total),
      lengths: new Int32Array(total),
    };
    size = mergeTwo(out, size, part, spare);
    [out, spare] = [spare, out];
  }
  return out;
}

/** Merge `a`'s first `size` entries with `b` into `into` by ascending key; returns the entries written. */
function mergeTwo(a: PostingList, size: number, b: PostingList, into: PostingList): number {
  let i = 0;
  let j = 0;
  let k = 0;
  const bSize = b.positions.length;
  while (i < size || j < bSize) {
    const fromA = j >= bSize || (i < size && a.positions[i]! < b.positions[j]!);
    const list = fromA ? a : b;
    const at = fromA ? i++ : j++;
    into.positions[k] = list.positions[at]!;
    into.frequencies[k] = list.frequencies[at]!;
    into.lengths[k] = list.lengths[at]!;
    k++;
  }
  return k;
}

/**
 * One term's live postings in the whole index, by ascending document id (empty when no document holds it).
 * @param stale from {@link staleDocuments}, read once per search
 * @throws DamagedPostingsError when a list's bytes do not hold its documents
 */
export function readTermPostings(db: Database, term: string, stale: StaleDocuments): PostingList {
  return liveList(readTermSegments(db, term), stale);
}

/** One segment's posting list of a term, as stored: its bytes (posting-list.ts) and the documents they hold. */
export interface SegmentPostingList {
  segment: number;
  count: number;
  /** The list's largest document id. */
  last: number;
  postings: Uint8Array;
}

/**
 * One term's posting lists as stored, one per segment that holds it (their documents are distinct; some may be stale:
 * {@link staleDocuments}), by ascending segment id; none when no document holds it.
 */
export function readTermSegments(db: Database, term: string): SegmentPostingList[] {
  return db
    .query<SegmentPostingList, [string]>(
      // one primary-key lookup per segment (segments are few: mergeKeywordSegments)
      `SELECT s.id AS segment, p.count, p.last, p.postings FROM keyword_segments s CROSS JOIN keyword_postings p
       ON p.segment = s.id AND p.term = ?`,
    )
    .all(term);
}

/** Live documents and their tokens, as the posting lists count them (bm25's N and N · avgdl). */
export interface KeywordTotals {
  documents: number;
  tokens: number;
}

/** The posting lists' {@link KeywordTotals}: the segments' sums minus the stale rows'. */
export function postingTotals(db: Database): KeywordTotals {
  const written = db
    .query<{ documents: number; tokens: number }, []>(
      "SELECT coalesce(sum(documents), 0) AS documents, coalesce(sum(tokens), 0) AS tokens FROM keyword_segments",
    )
    .get()!;
  const stale = db
    .query<{ documents: number; tokens: number }, []>(
      "SELECT count(*) AS documents, coalesce(sum(length), 0) AS tokens FROM keyword_stale",
    )
    .get()!;
  return { documents: written.documents - stale.documents, tokens: written.tokens - stale.tokens };
}

/**
 * FTS5's own totals of `documents_fts`, from its averages record (sqlite ext/fts5/fts5_index.c: the `%_data` row with
 * id 1 holds SQLite varints: the row count, then each column's tokens), which bm25() reads for N and avgdl.
 * @returns undefined when the record is missing or cannot be read
 */
export function ftsTotals(db: Database): KeywordTotals | undefined {
  const block = db
    .query<{ block: Uint8Array | null }, []>("SELECT block FROM documents_fts_data WHERE id = 1")
    .get()?.block;
  if (!block) return { documents: 0, tokens: 0 }; // an empty table has no averages record yet
  const numbers: number[] = [];
  let offset = 0;
  while (offset < block.length) {
    const read = readSqliteVarint(block, offset);
    if (!read) return undefined;
    numbers.push(read.value);
    offset = read.next;
  }
  if (numbers.length === 0) return undefined;
  return { documents: numbers[0]!, tokens: numbers.slice(1).reduce((sum, n) => sum + n, 0) };
}

/**
 * One SQLite varint (sqlite src/util.c sqlite3GetVarint: big-endian 7-bit groups with the high bit set on every byte
 * but the last, and a 9th byte of 8 bits), as a number (exact below 2^53).
 */
function readSqliteVarint(bytes: Uint8Array, offset: number): { value: number; next: number } | undefined {
  let value = 0;
  for (let i = 0; i < 9; i++) {
    const byte = bytes[offset + i];
    if (byte === undefined) return undefined;
    if (i === 8) return { value: value * 256 + byte, next: offset + 9 };
    value = value * 128 + (byte & 0x7f);
    if (!(byte & 0x80)) return { value, next: offset + i + 1 };
  }
  return undefined;
}

/**
 * FTS5's totals (bm25's N and N · avgdl) when the posting lists hold what `documents_fts` holds (their totals equal
 * FTS5's): only then may search rank from them. Undefined after a write that reached FTS5 but not the lists (a bug),
 * which search survives by ranking in FTS5.
 */
export function totalsInStep(db: Database): KeywordTotals | undefined {
  const fts = ftsTotals(db);
  const own = postingTotals(db);
  return fts !== undefined && fts.documents === own.documents && fts.tokens === own.tokens ? fts : undefined;
}

/**
 * Make the posting lists hold what FTS5 holds again, inside the caller's transaction, when they do not: the documents
 * without postings (an index run that stopped before it wrote its last segment) get theirs; if the totals still
 * differ, every list is built anew. Costs one comparison of totals when they agree.
 * @returns true when something was written
 */
export function repairKeywordPostings(db: Database): boolean {
  if (totalsInStep(db)) return false;
  buildKeywordPostings(db);
  if (totalsInStep(db)) return true;
  db.exec(
    "DELETE FROM keyword_postings; DELETE FROM keyword_documents; DELETE FROM keyword_stale; DELETE FROM keyword_segments;",
  );
  buildKeywordPostings(db);
  return true;
}

/** Documents whose text is read and tokenized at once when the lists are built for an existing index. */
const buildDocumentsPerRead = 4096;

/**
 * Build the posting lists of every document that has none, inside the caller's transaction (schema v21's migration,
 * and {@link repairKeywordPostings}): the documents' text is rebuilt from their rows (write/documents.ts) and tokenized
 * {@link buildDocumentsPerRead} at a time, and written as segments of ~{@link segmentPostings} postings, which then merge.
 */
export function buildKeywordPostings(db: Database): void {
  const ids = db
    .query<{ id: number }, []>(
      "SELECT id FROM documents WHERE id NOT IN (SELECT id FROM keyword_documents) ORDER BY id",
    )
    .all()
    .map((row) => row.id);
  const writer = new KeywordSegmentWriter();
  for (let start = 0; start < ids.length; start += buildDocumentsPerRead) {
    for (const [id, text] of loadDocumentTexts(db, ids.slice(start, start + buildDocumentsPerRead)))
      writer.add(id, packedDocumentTerms(text));
    writer.flushWhenFull(db);
  }
  writer.flush(db);
}
