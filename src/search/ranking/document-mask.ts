/**
 * The documents a filtered keyword search may return, as a mask the ranking applies before its top-k cut (issue 42).
 * Without it a filter that keeps few sessions (`--since 7d`, `--project shop`) made the window of the best documents
 * grow 4× at a time until enough of them passed, ranking and joining nearly every match: at 20k sessions, a search
 * whose filter kept nothing took 0.3–0.8 s at level 1 and 1.7–6.1 s at level 2 (`--depth 2 --since 30d`).
 */
import type { Database } from "bun:sqlite";
import { filterSql, type SearchFilters } from "../listing/filters.ts";

/**
 * True when `filters` keep fewer sessions than a default search does (a project, source, branch, date, state or turn
 * filter): only then can a mask be much smaller than the index. One session's search (`sessionId`) ranks that
 * session's documents alone (lexical.ts) and takes no mask.
 */
export function filtersNarrow(filters: SearchFilters): boolean {
  return (
    filters.sessionId === undefined &&
    (filters.project !== undefined ||
      filters.source !== undefined ||
      filters.branch !== undefined ||
      filters.since !== undefined ||
      filters.until !== undefined ||
      filters.endedBefore !== undefined ||
      filters.sourceStatus !== undefined ||
      filters.hasTurns !== undefined)
  );
}

/**
 * The documents (session and turn documents) of the sessions that pass `filters`, a byte per document id: 255 when
 * allowed, 0 when not; ids beyond the mask's length are not allowed. A date filter keeps the sessions whose
 * `started_at`…`ended_at` overlaps it, which holds every turn the level-2 filter keeps (a turn's own time), since the
 * writer makes each session's range cover its turns' times (index/write/writer.ts `prepareSession`); the caller still
 * applies the filters to what it ranks. Reads the `sessions_filters`-covered session columns and the
 * `documents_session` index, no wide row.
 */
export function allowedDocuments(db: Database, filters: SearchFilters): Uint8Array {
  const filter = filterSql(filters);
  const rows = db
    .query<{ id: number }, Array<string | number>>(
      `SELECT d.id FROM sessions s JOIN documents d ON d.session_rowid = s.id WHERE ${filter.where}`,
    )
    .values(...filter.params) as Array<[number]>; // one array per row: no object per document
  let largest = -1;
  for (const [id] of rows) if (id > largest) largest = id;
  const mask = new Uint8Array(largest + 1);
  for (const [id] of rows) mask[id] = 255;
  return mask;
}

/** A mask of the given document ids in the form of {@link allowedDocuments} (255 for each, its length the largest + 1). */
export function documentMask(ids: readonly number[]): Uint8Array {
  let largest = -1;
  for (const id of ids) if (id > largest) largest = id;
  const mask = new Uint8Array(largest + 1);
  for (const id of ids) mask[id] = 255;
  return mask;
}
