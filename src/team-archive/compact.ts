/**
 * Merging a pusher's small batches (issue 30, schema.ts version 3). Every push writes its documents as new batches,
 * and a session pushed again leaves its old batch smaller: under `recall watch --push` a live session is pushed after
 * each change, one small batch each time. A search reads one posting row per term and batch, so thousands of small
 * batches make every common word thousands of short rows. After a push, when this role has at least
 * {@link compactionMinimumBatches} batches of fewer than {@link smallBatchDocuments} documents in the team, they are
 * merged into batches of up to {@link mergedBatchDocuments} documents: one new batch row, the documents moved to it,
 * and one posting row per term holding the merged lists. The merged batches are locked first (FOR UPDATE, in id
 * order), as the deletion trigger locks them, so a concurrent rewrite of one of them waits and then sees the merge.
 */
import type { ArchiveConnection } from "./connection.ts";

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
  const candidates = await connection.query<{ id: string; documents: number }>(
    `SELECT id, documents FROM recall.batches WHERE team = $1 AND pushed_by = current_user AND documents < $2
     ORDER BY id`,
    [team, small],
  );
  if (candidates.length < minimum) return 0;
  const groups: string[][] = [[]];
  let size = 0;
  for (const batch of candidates) {
    if (size + batch.documents > merged && groups.at(-1)!.length > 0) {
      groups.push([]);
      size = 0;
    }
    groups.at(-1)!.push(batch.id);
    size += batch.documents;
  }
  let mergedAway = 0;
  for (const group of groups.filter((ids) => ids.length > 1))
    mergedAway += await connection.transaction(() => mergeBatches(connection, team, group));
  return mergedAway;
}

/** Merge batches `ids` (this role's, in `team`) into one new batch; returns how many of them were merged away. */
async function mergeBatches(connection: ArchiveConnection, team: string, ids: readonly string[]): Promise<number> {
  const locked = await connection.query<{ id: string }>(
    "SELECT id FROM recall.batches WHERE id = ANY($1::bigint[]) AND pushed_by = current_user ORDER BY id FOR UPDATE",
    [ids],
  );
  if (locked.length < 2) return 0; // another push emptied and deleted them meanwhile
  const lockedIds = locked.map((row) => row.id);
  const [batch] = await connection.query<{ id: string }>(
    `INSERT INTO recall.batches (team, documents, tokens)
     SELECT $1, sum(documents), sum(tokens) FROM recall.batches WHERE id = ANY($2::bigint[]) RETURNING id`,
    [team, lockedIds],
  );
  await connection.query("UPDATE recall.documents SET batch = $1 WHERE batch = ANY($2::bigint[])", [
    batch!.id,
    lockedIds,
  ]);
  await connection.query(
    `WITH old AS (
       DELETE FROM recall.postings p WHERE p.batch = ANY($2::bigint[])
       RETURNING p.term, p.documents, p.frequencies, p.lengths
     )
     INSERT INTO recall.postings (term, batch, team, documents, frequencies, lengths)
     SELECT o.term, $1, $3, array_agg(u.document ORDER BY u.document), array_agg(u.frequency ORDER BY u.document),
       array_agg(u.length ORDER BY u.document)
     FROM old o CROSS JOIN LATERAL unnest(o.documents, o.frequencies, o.lengths) AS u(document, frequency, length)
     GROUP BY o.term`,
    [batch!.id, lockedIds, team],
  );
  await connection.query("DELETE FROM recall.batches WHERE id = ANY($1::bigint[])", [lockedIds]);
  return lockedIds.length;
}
