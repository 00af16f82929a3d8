/**
 * Archived sessions as summaries (issue 30): the local SessionSummary fields the archive holds, with the archive id
 * and the origin (team, pusher, machine, operating-system user). One SQL column list and one row mapping, shared by
 * search, show and listings.
 */
import { noProjectLabel, type SearchFilters } from "../search/listing/filters.ts";
import type { AbstractPart } from "../parsers/types.ts";
import { listedAbstract, type SessionSummary } from "../search/listing/sessions.ts";
import type { ArchivedCopy } from "../search/reading/hydrate.ts";
import type { ArchiveConnection } from "./connection.ts";

/**
 * An archived session's summary: every field of a local summary (search/listing/sessions.ts) but the local storage's,
 * with its archive id and origin (search/reading/hydrate.ts ArchivedCopy). `sourceStatus` is the source's as the
 * pusher last saw it, `lastSeenAt` when it was pushed; an archived session is never prompt-only (those are not pushed).
 */
export type ArchiveSessionSummary = ArchivedCopy & Omit<SessionSummary, "rowid" | "location">;

/** Columns of recall.sessions (alias `s`) that {@link toArchiveSummary} reads. */
export const archiveSessionColumns = `s.id, s.team, s.pushed_by, s.machine, s.os_user, s.source, s.session_id,
  s.project_path, s.project_name, s.git_branch, s.title, s.started_at, s.ended_at, s.turn_count, s.is_subagent,
  s.parent_session_id, s.files, s.source_status, (extract(epoch FROM s.pushed_at) * 1000)::bigint AS pushed_at,
  s.abstract`;

/** A row of {@link archiveSessionColumns} as pg returns it (bigint columns as strings). */
export interface ArchiveSessionRow {
  id: string;
  team: string;
  pushed_by: string;
  machine: string;
  os_user: string;
  source: SessionSummary["source"];
  session_id: string;
  project_path: string;
  project_name: string;
  git_branch: string | null;
  title: string | null;
  started_at: string;
  ended_at: string;
  turn_count: number;
  is_subagent: boolean;
  parent_session_id: string | null;
  files: string[];
  source_status: SessionSummary["sourceStatus"];
  pushed_at: string;
  /**
   * The session's summary and abstract parts, texts whole (schema.ts version 6: the local listing's, not cut); null
   * when it has neither, or was pushed before.
   */
  abstract: AbstractPart[] | null;
}

/**
 * The summary of a row of {@link archiveSessionColumns} (times as epoch ms numbers). Its abstract is cut as the local
 * listing cuts it (search/listing/sessions.ts listedAbstract: each part to 600 characters), unless `wholeAbstract`
 * (`show --archive`, which prints it whole).
 */
export function toArchiveSummary(row: ArchiveSessionRow, wholeAbstract = false): ArchiveSessionSummary {
  const abstract = row.abstract ?? [];
  return {
    archiveId: row.id,
    team: row.team,
    pushedBy: row.pushed_by,
    machine: row.machine,
    osUser: row.os_user,
    sessionId: row.session_id,
    source: row.source,
    project: row.project_name,
    projectPath: row.project_path,
    title: row.title,
    abstract: wholeAbstract ? abstract : listedAbstract(abstract),
    gitBranch: row.git_branch,
    startedAt: Number(row.started_at),
    endedAt: Number(row.ended_at),
    turns: row.turn_count,
    isSubagent: row.is_subagent,
    parentSessionId: row.parent_session_id,
    files: row.files,
    sourceStatus: row.source_status,
    lastSeenAt: Number(row.pushed_at),
    promptOnly: false,
  };
}

/**
 * The summaries of archived sessions by archive id (those the role may see).
 * @returns archive id (as a number) → summary
 */
export async function loadArchiveSessions(
  connection: ArchiveConnection,
  ids: readonly number[],
): Promise<Map<number, ArchiveSessionSummary>> {
  if (ids.length === 0) return new Map();
  const rows = await connection.query<ArchiveSessionRow>(
    `SELECT ${archiveSessionColumns} FROM recall.sessions s WHERE s.id = ANY($1::bigint[])`,
    [ids],
  );
  return new Map(rows.map((row) => [Number(row.id), toArchiveSummary(row)]));
}

/**
 * SQL conditions for the filters on the `s` sessions alias (as search/listing/filters.ts does locally), numbered from `$first`.
 * @param turnTime at level 2, the column holding the turn's time (`t.timestamp`: the caller joins the turns); at
 *        level 1 a session matches a date range when it overlaps it
 */
export function archiveFilterSql(
  filters: SearchFilters,
  first: number,
  turnTime?: string,
): { sql: string; params: unknown[] } {
  const conditions: string[] = [];
  const params: unknown[] = [];
  const add = (condition: (n: string) => string, value: unknown) => {
    params.push(value);
    conditions.push(condition(`$${first + params.length - 1}`));
  };
  if (filters.project?.trim().toLowerCase() === noProjectLabel) conditions.push("s.project_path = ''");
  else if (filters.project)
    add(
      (n) => `(strpos(lower(s.project_path), ${n}) > 0 OR strpos(lower(s.project_name), ${n}) > 0)`,
      filters.project.toLowerCase(),
    );
  if (filters.source) add((n) => `s.source = ${n}`, filters.source);
  if (filters.branch) add((n) => `s.git_branch = ${n}`, filters.branch);
  if (filters.sessionId) add((n) => `s.session_id = ${n}`, filters.sessionId);
  if (filters.since !== undefined) add((n) => `${turnTime ?? "s.ended_at"} >= ${n}`, filters.since);
  if (filters.until !== undefined) add((n) => `${turnTime ?? "s.started_at"} <= ${n}`, filters.until);
  // as local search (search/listing/filters.ts): a turn without a recorded time passes no date filter
  if (turnTime && (filters.since !== undefined || filters.until !== undefined)) conditions.push(`${turnTime} > 0`);
  if (filters.hasTurns !== undefined) conditions.push(filters.hasTurns ? "s.turn_count > 0" : "s.turn_count = 0");
  if (!filters.includeSubagents && !filters.sessionId) conditions.push("NOT s.is_subagent");
  return { sql: conditions.length > 0 ? conditions.join(" AND ") : "true", params };
}
