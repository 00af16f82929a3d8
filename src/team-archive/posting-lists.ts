/**
 * The binary form of one posting list of the team archive (schema.ts version 4: recall.postings.postings, bytea): the
 * documents of one batch that hold one term, by their position in the batch, each with its column-weighted frequency
 * and its length in tokens. Per document, in ascending position order, three unsigned LEB128 varints (7 bits a byte,
 * low bits first, the high bit set on every byte but the last; as in DWARF and Protocol Buffers):
 *   the position's gap from the previous document's (the first document's: its position)
 *   its frequency, bm25's f(q, D): Σ of the column weights of the term's instances (keyword-tokens.ts; an integer,
 *     as the weights are, match-window.ts bm25ColumnWeights)
 *   its length, |D|: the document's tokens in all columns
 * A posting takes ~4 bytes (12 as three 4-byte arrays). Searches read these lists and rank in the client
 * (keyword-rank.ts): PostgreSQL sends a bytea as hex text, so the bytes read are most of a common word's search time.
 */
import { ArchiveError } from "../errors.ts";
import type { ArchiveConnection } from "./connection.ts";

/** One decoded posting list: parallel arrays of equal length, positions ascending. */
export interface PostingList {
  positions: Int32Array;
  frequencies: Float64Array;
  lengths: Int32Array;
}

/** Largest number a varint here holds: 2^31 − 1 (positions, frequencies and lengths are PostgreSQL integers). */
const largest = 0x7fffffff;

/**
 * The bytes of a posting list (the format in the file comment).
 * @param positions ascending positions in the batch; `frequencies` and `lengths` are parallel to it
 * @throws Error when a position is not above the previous one, or a number is not an integer in 0…2^31 − 1 (a bug of
 *         the caller: the index's column weights are integers)
 */
export function encodePostingList(
  positions: ArrayLike<number>,
  frequencies: ArrayLike<number>,
  lengths: ArrayLike<number>,
): Buffer {
  const bytes = Buffer.allocUnsafe(positions.length * 3 * 5); // 5 bytes hold a varint of 31 bits
  let offset = 0;
  const put = (value: number) => {
    if (!Number.isInteger(value) || value < 0 || value > largest)
      throw new Error(`a posting list holds integers in 0…${largest}, not ${value}`);
    while (value >= 0x80) {
      bytes[offset++] = (value & 0x7f) | 0x80;
      value >>>= 7;
    }
    bytes[offset++] = value;
  };
  let previous = -1;
  for (let i = 0; i < positions.length; i++) {
    const position = positions[i]!;
    if (position <= previous) throw new Error(`posting list positions must ascend: ${position} after ${previous}`);
    put(position - Math.max(previous, 0));
    put(frequencies[i]!);
    put(lengths[i]!);
    previous = position;
  }
  return bytes.subarray(0, offset);
}

/**
 * Read a posting list's bytes.
 * @param count the documents it holds (recall.postings.document_count)
 * @throws ArchiveError ARCHIVE_FAILED when the bytes do not hold `count` documents
 */
export function decodePostingList(bytes: Uint8Array, count: number): PostingList {
  const positions = new Int32Array(count);
  const frequencies = new Float64Array(count);
  const lengths = new Int32Array(count);
  const end = bytes.length;
  let offset = 0;
  let position = 0;
  // three varints a document, read inline (a closure per varint cost half the decoding time)
  for (let i = 0; i < count; i++) {
    let gap = 0;
    let frequency = 0;
    let length = 0;
    for (let field = 0; field < 3; field++) {
      let value = 0;
      let scale = 1;
      let byte = 0x80;
      while (byte & 0x80) {
        if (offset >= end || scale > 2 ** 28) return damaged(end, count);
        byte = bytes[offset++]!;
        value += (byte & 0x7f) * scale;
        scale *= 128;
      }
      if (field === 0) gap = value;
      else if (field === 1) frequency = value;
      else length = value;
    }
    if (i > 0 && gap === 0) return damaged(end, count);
    position += gap;
    positions[i] = position;
    frequencies[i] = frequency;
    lengths[i] = length;
  }
  if (offset !== end) return damaged(end, count);
  return { positions, frequencies, lengths };
}

function damaged(bytes: number, count: number): never {
  throw new ArchiveError(
    "ARCHIVE_FAILED",
    `a posting list of the archive (${bytes} bytes) does not hold ${count} documents`,
    {
      hint: "push again to rewrite it (recall archive push), or ask the archive's admin to check the server",
    },
  );
}

/** A term's posting list being written: parallel arrays, positions ascending. */
export interface PostingEntries {
  positions: number[];
  frequencies: number[];
  lengths: number[];
}

/**
 * Insert the posting lists of batch `batch` (one row per term, in its bytes), inside the caller's transaction.
 * @param lists by term; empty lists are skipped
 * @throws ArchiveError from the connection; Error from {@link encodePostingList} for entries out of order
 */
export async function insertPostingLists(
  connection: ArchiveConnection,
  team: string,
  batch: string,
  lists: ReadonlyMap<string, PostingEntries>,
): Promise<void> {
  const written = [...lists].filter(([, list]) => list.positions.length > 0);
  if (written.length === 0) return;
  await connection.query(
    `INSERT INTO recall.postings (term, batch, team, document_count, postings)
     SELECT p.term, $1, $2, p.document_count, p.postings
     FROM unnest($3::text[], $4::integer[], $5::bytea[]) AS p(term, document_count, postings)`,
    [
      batch,
      team,
      written.map(([term]) => term),
      written.map(([, list]) => list.positions.length),
      written.map(([, list]) => encodePostingList(list.positions, list.frequencies, list.lengths)),
    ],
  );
}
