/**
 * Merging a pusher's small batches (issue 30, schema.ts version 4). Every push writes its documents as new batches,
 * and a session pushed again leaves removed places in its old batch: under `recall watch --push` a live session is
 * pushed after each change, one small batch each time. A search reads one posting row per term and batch, so
 * thousands of small batches make every common word thousands of short rows, and removed places are postings read
 * for nothing. After a push, when this role has at least {@link compactionMinimumBatches} batches of fewer than
 * {@link smallBatchDocuments} documents in the team, or any batch with more removed places than documents, those
 * batches are merged into batches of up to {@link mergedBatchDocuments} documents: one new batch row, the documents
 * moved to it, and one posting row per term holding the merged lists without the removed places. The merged batches
 * are locked first (FOR UPDATE, in id order), as the deletion trigger locks them, so a concurrent deletion in one of
 * them waits and then finds its documents in the new batch.
 */
import type { ArchiveConnection } from "./connection.ts";
import { decodePostingList, insertPostingLists, type PostingEntries } from "./posting-lists.ts";

/** A batch with fewer documents than this counts as small. */
export const smallBatchDocuments = 200;
/** Small batches a role may have in a team before a push merges them. */
export const compactionMinimumBatches = 32;
/** Documents of one merged batch, at most (a push writes ~500: 100 sessions). */
export const mergedBatchDocuments = 2000;

/** Thresholds of {@link compactBatches} (tests lower them). */
export interface CompactionLimits {
  smallDocuments?: number;
  minimumBatches?: number;
  mergedDocuments?: number;
}

/**
 * Merge this role's small batches in `team` when there are enough of them, each merge in its own transaction.
 * @returns how many batches were merged away (0 when below the threshold)
 * @throws ArchiveError from the connection
 */
export async function compactBatches(
  connection: ArchiveConnection,
  team: string,
  limits: CompactionLimits = {},
): Promise<number> {
  const small = limits.smallDocuments ?? smallBatchDocuments;
  const minimum = limits.minimumBatches ?? compactionMinimumBatches;
  const merged = limits.mergedDocuments ?? mergedBatchDocuments;
  const candidates = await connection.query<{ id: string; documents: number; removed: number }>(
    `SELECT id, documents, cardinality(removed) AS removed FROM recall.batches
     WHERE team = $1 AND pushed_by = current_user AND (documents < $2 OR cardinality(removed) > documents)
     ORDER BY id`,
    [team, small],
  );
  const mostlyRemoved = candidates.some((batch) => batch.removed > batch.documents);
  if (candidates.length < minimum && !mostlyRemoved) return 0;
  const groups: Array<typeof candidates> = [[]];
  let size = 0;
  for (const batch of candidates) {
    if (size + batch.documents > merged && groups.at(-1)!.length > 0) {
      groups.push([]);
      size = 0;
    }
    groups.at(-1)!.push(batch);
    size += batch.documents;
  }
  let mergedAway = 0;
  // one batch alone is rewritten only to drop its removed places
  for (const group of groups.filter((batches) => batches.length > 1 || batches[0]!.removed > 0))
    mergedAway += await connection.transaction(() =>
      mergeBatches(
        connection,
        team,
        group.map((batch) => batch.id),
      ),
    );
  return mergedAway;
}

/**
 * Merge batches `ids` (this role's, in `team`) into one new batch; returns how many of them were merged away. The
 * documents get positions 0… in id order; each term's posting lists are joined in the client (their bytes,
 * posting-lists.ts), without the positions the batches had removed.
 */
async function mergeBatches(connection: ArchiveConnection, team: string, ids: readonly string[]): Promise<number> {
  const locked = await connection.query<{ id: string }>(
    "SELECT id FROM recall.batches WHERE id = ANY($1::bigint[]) AND pushed_by = current_user ORDER BY id FOR UPDATE",
    [ids],
  );
  if (locked.length === 0 || (locked.length === 1 && ids.length > 1)) return 0; // another push emptied them meanwhile
  const lockedIds = locked.map((row) => row.id);
  const documents = await connection.query<{ id: string; batch: string; position: number; length: number }>(
    "SELECT id, batch, position, length FROM recall.documents WHERE batch = ANY($1::bigint[]) ORDER BY id",
    [lockedIds],
  );
  const newPosition = new Map(documents.map((d, position) => [`${d.batch}:${d.position}`, position]));
  const [batch] = await connection.query<{ id: string }>(
    "INSERT INTO recall.batches (team, documents, tokens, positions) VALUES ($1, $2, $3, $2) RETURNING id",
    [team, documents.length, documents.reduce((sum, d) => sum + d.length, 0)],
  );
  await connection.query(
    `UPDATE recall.documents d SET batch = $1, position = m.position
     FROM unnest($2::bigint[], $3::integer[]) AS m(id, position) WHERE d.id = m.id`,
    [batch!.id, documents.map((d) => d.id), documents.map((_, position) => position)],
  );
  const old = await connection.query<{ term: string; batch: string; document_count: number; postings: Buffer }>(
    "DELETE FROM recall.postings WHERE batch = ANY($1::bigint[]) RETURNING term, batch, document_count, postings",
    [lockedIds],
  );
  const merged = new Map<string, Array<[position: number, frequency: number, length: number]>>();
  for (const row of old) {
    const list = decodePostingList(row.postings, row.document_count);
    let entries = merged.get(row.term);
    if (!entries) merged.set(row.term, (entries = []));
    for (let i = 0; i < list.positions.length; i++) {
      const position = newPosition.get(`${row.batch}:${list.positions[i]}`);
      if (position !== undefined) entries.push([position, list.frequencies[i]!, list.lengths[i]!]);
    }
  }
  const lists = new Map<string, PostingEntries>();
  for (const [term, entries] of merged) {
    entries.sort((x, y) => x[0] - y[0]);
    lists.set(term, {
      positions: entries.map((e) => e[0]),
      frequencies: entries.map((e) => e[1]),
      lengths: entries.map((e) => e[2]),
    });
  }
  await insertPostingLists(connection, team, batch!.id, lists);
  await connection.query("DELETE FROM recall.batches WHERE id = ANY($1::bigint[])", [lockedIds]);
  return lockedIds.length;
}
