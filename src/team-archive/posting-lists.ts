/**
 * The team archive's posting lists (schema.ts version 4: recall.postings.postings, bytea): the documents of one batch
 * that hold one term, by their position in the batch, in the shared binary form (index/postings/posting-list.ts).
 * Searches read these lists and rank in the client (keyword-rank.ts): PostgreSQL sends a bytea as hex text, so the
 * bytes read are most of a common word's search time.
 */
import { ArchiveError } from "../errors.ts";
import {
  decodePostingList as decodeBytes,
  encodePostingList,
  type PostingList,
} from "../index/postings/posting-list.ts";
import type { ArchiveConnection } from "./connection.ts";

/**
 * Read a posting list's bytes.
 * @param count the documents it holds (recall.postings.document_count)
 * @throws ArchiveError ARCHIVE_FAILED when the bytes do not hold `count` documents
 */
export function decodePostingList(bytes: Uint8Array, count: number): PostingList {
  const list = decodeBytes(bytes, count);
  if (list) return list;
  throw new ArchiveError(
    "ARCHIVE_FAILED",
    `a posting list of the archive (${bytes.length} bytes) does not hold ${count} documents`,
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
