/**
 * Forgetting in the team archive (issue 30): the copies of sessions that this role pushed (any machine), deleted with
 * their turns, documents and vectors (ON DELETE CASCADE). Row-level security allows nothing else: other members'
 * copies of the same session stay theirs.
 */
import type { ArchiveConnection } from "./connection.ts";

/** A session as the archive keys it (with the machine and team it was pushed from). */
export interface ArchivedSessionKey {
  source: string;
  sessionId: string;
}

const keyArrays = (keys: readonly ArchivedSessionKey[]) => [keys.map((k) => k.source), keys.map((k) => k.sessionId)];

/** How many copies of these sessions this role pushed (what {@link deleteArchivedCopies} would delete). */
export async function countArchivedCopies(
  connection: ArchiveConnection,
  keys: readonly ArchivedSessionKey[],
): Promise<number> {
  if (keys.length === 0) return 0;
  const [row] = await connection.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM recall.sessions s JOIN unnest($1::text[], $2::text[]) AS k(source, session_id)
       ON s.source = k.source AND s.session_id = k.session_id WHERE s.pushed_by = current_user`,
    keyArrays(keys),
  );
  return row?.n ?? 0;
}

/**
 * Delete this role's copies of these sessions from the archive, in one transaction.
 * @returns the number of session copies deleted
 * @throws ArchiveError from the connection
 */
export async function deleteArchivedCopies(
  connection: ArchiveConnection,
  keys: readonly ArchivedSessionKey[],
): Promise<number> {
  if (keys.length === 0) return 0;
  return connection.transaction(async () => {
    const rows = await connection.query(
      `DELETE FROM recall.sessions s USING unnest($1::text[], $2::text[]) AS k(source, session_id)
       WHERE s.source = k.source AND s.session_id = k.session_id AND s.pushed_by = current_user RETURNING s.id`,
      keyArrays(keys),
    );
    return rows.length;
  });
}
