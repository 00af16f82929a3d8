/**
 * Listing the team archive's sessions (issue 30): `recall sessions --archive` and the MCP `list_sessions` tool with
 * `archive: true`. Newest first, with the local listing's filters and paging (search/listing/sessions.ts listSessions,
 * search/listing/paging.ts), over the rows row-level security lets the role see: a query never names a team.
 */
import type { SearchFilters } from "../search/listing/filters.ts";
import type { ArchiveConnection } from "./connection.ts";
import {
  type ArchiveSessionRow,
  type ArchiveSessionSummary,
  archiveFilterSql,
  archiveSessionColumns,
  toArchiveSummary,
} from "./sessions.ts";

/** A listing of the archive. */
export interface ArchiveListingRequest {
  /** As `recall sessions`' filters; `hasTurns: true` leaves out sessions without any turn (counted in `emptyHidden`). */
  filters: SearchFilters;
  /** Sessions wanted: a whole number ≥ 1, or Infinity for all. */
  limit: number;
  /** Sessions skipped first, newest first (0-based). */
  offset: number;
}

/** One page of archived sessions. */
export interface ArchiveListing {
  /** The archive, without its password (connection.ts `display`). */
  archive: string;
  /** Newest first: by last activity, then session id, then archive id (a stable order for paging). */
  items: ArchiveSessionSummary[];
  /** 0-based position of `items[0]` in the whole listing. */
  offset: number;
  /** Where the next page starts; undefined on the last page. */
  nextOffset: number | undefined;
  /** Sessions the whole listing holds (every page). */
  total: number;
  /**
   * Sessions without any turn that matched the other filters and were left out (`filters.hasTurns: true`);
   * 0 when the request did not leave them out.
   */
  emptyHidden: number;
}

/**
 * List the archived sessions the role may see, newest first, one page.
 * Example: `{filters: {project: "shop", hasTurns: true}, limit: 20, offset: 0}` → the 20 newest sessions of projects
 *   whose path or name holds "shop", `total` of them in all, `emptyHidden` without turns.
 * @throws ArchiveError from the connection (ARCHIVE_NOT_INITIALIZED when the archive has no recall schema)
 */
export async function listArchiveSessions(
  connection: ArchiveConnection,
  request: ArchiveListingRequest,
): Promise<ArchiveListing> {
  const { filters, limit, offset } = request;
  const hidesEmpty = filters.hasTurns === true;
  const listed = archiveFilterSql(filters, 3);
  // One row more than the page tells whether another follows; LIMIT NULL is LIMIT ALL.
  const rows = await connection.query<ArchiveSessionRow>(
    `SELECT ${archiveSessionColumns} FROM recall.sessions s WHERE ${listed.sql}
     ORDER BY s.ended_at DESC, s.session_id, s.id LIMIT $1 OFFSET $2`,
    [Number.isFinite(limit) ? limit + 1 : null, offset, ...listed.params],
  );
  // Both counts in one scan: the listing's, and the sessions without turns it left out.
  const counted = archiveFilterSql({ ...filters, hasTurns: undefined }, 1);
  const [counts] = await connection.query<{ listed: string; empty: string }>(
    `SELECT count(*) FILTER (WHERE ${hidesEmpty ? "s.turn_count > 0" : filters.hasTurns === false ? "s.turn_count = 0" : "true"}) AS listed,
       count(*) FILTER (WHERE s.turn_count = 0) AS empty
     FROM recall.sessions s WHERE ${counted.sql}`,
    counted.params,
  );
  const more = Number.isFinite(limit) && rows.length > limit;
  return {
    archive: connection.url.display,
    items: (more ? rows.slice(0, limit) : rows).map((row) => toArchiveSummary(row)),
    offset,
    nextOffset: more ? offset + limit : undefined,
    total: Number(counts?.listed ?? 0),
    emptyHidden: hidesEmpty ? Number(counts?.empty ?? 0) : 0,
  };
}
