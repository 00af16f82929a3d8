/**
 * Facets of a search (issue 29, `recall ui`): how many sessions of an answer fall in each project, agent, git branch
 * and age, so a filter can be offered with its count. For a query they count the ranked candidates of the search (the
 * sessions the keyword and vector legs found, up to searchIndex's candidate pool: at least 100), not only the page
 * shown; without a query they count every session the filters let through. Counts never include sub-agent sessions
 * unless the filters do.
 */
import type { Database } from "bun:sqlite";
import type { SourceId } from "../../parsers/types.ts";
import { filterSql, type SearchFilters } from "./filters.ts";
import { cachedUntilChange } from "../ranking/version-cache.ts";

/** One value of a facet and how many sessions have it. */
export interface FacetValue<Value extends string = string> {
  value: Value;
  count: number;
}

/** Age buckets of the date facet, by a session's last activity. */
export const ageBuckets = ["today", "7d", "30d", "older"] as const;
/** One of {@link ageBuckets}: since local midnight, the last 7 days, the last 30 days, before that. */
export type AgeBucket = (typeof ageBuckets)[number];

/** The facets of an answer, each sorted by count (most first), then by value. */
export interface Facets {
  /** By project path (the value), with the project's short name for display. */
  project: Array<FacetValue & { name: string }>;
  source: Array<FacetValue<SourceId>>;
  /** Sessions without a recorded branch are not counted here. */
  branch: FacetValue[];
  age: Array<FacetValue<AgeBucket>>;
}

interface FacetRow {
  project_path: string;
  project_name: string;
  source: SourceId;
  git_branch: string | null;
  ended_at: number;
}

/** Start of each age bucket (epoch ms) for the instant `now`: local midnight, now − 7 days, now − 30 days. */
export function ageBucketStarts(now: number): Record<Exclude<AgeBucket, "older">, number> {
  const midnight = new Date(now);
  midnight.setHours(0, 0, 0, 0);
  return { today: midnight.getTime(), "7d": now - 7 * 86_400_000, "30d": now - 30 * 86_400_000 };
}

function countFacets(rows: readonly FacetRow[], now: number): Facets {
  const projects = new Map<string, { name: string; count: number }>();
  const sources = new Map<SourceId, number>();
  const branches = new Map<string, number>();
  const ages = new Map<AgeBucket, number>(ageBuckets.map((bucket) => [bucket, 0]));
  const starts = ageBucketStarts(now);
  for (const row of rows) {
    const project = projects.get(row.project_path) ?? { name: row.project_name, count: 0 };
    project.count++;
    projects.set(row.project_path, project);
    sources.set(row.source, (sources.get(row.source) ?? 0) + 1);
    if (row.git_branch) branches.set(row.git_branch, (branches.get(row.git_branch) ?? 0) + 1);
    // Buckets nest: a session of today is also within 7 and 30 days.
    if (row.ended_at >= starts.today) ages.set("today", ages.get("today")! + 1);
    if (row.ended_at >= starts["7d"]) ages.set("7d", ages.get("7d")! + 1);
    if (row.ended_at >= starts["30d"]) ages.set("30d", ages.get("30d")! + 1);
    else ages.set("older", ages.get("older")! + 1);
  }
  const byCount = <T extends FacetValue>(values: T[]) =>
    values.sort((a, b) => b.count - a.count || a.value.localeCompare(b.value));
  return {
    project: byCount([...projects].map(([value, { name, count }]) => ({ value, name, count }))),
    source: byCount([...sources].map(([value, count]) => ({ value, count }))),
    branch: byCount([...branches].map(([value, count]) => ({ value, count }))),
    age: ageBuckets.map((value) => ({ value, count: ages.get(value)! })),
  };
}

const facetColumns = "s.project_path, s.project_name, s.source, s.git_branch, s.ended_at";

/**
 * Facets of the sessions with the given rowids (a search's ranked candidates).
 * @param now the instant the age buckets are measured from (epoch ms)
 */
export function facetsOfSessions(db: Database, sessionRowids: readonly number[], now: number): Facets {
  const rows: FacetRow[] = [];
  // SQLite's default limit of bound parameters is 32,766; candidates are at most a few thousand, in chunks anyway.
  for (let start = 0; start < sessionRowids.length; start += 900) {
    const chunk = sessionRowids.slice(start, start + 900);
    rows.push(
      ...db
        .query<FacetRow, number[]>(
          `SELECT ${facetColumns} FROM sessions s WHERE s.id IN (${chunk.map(() => "?").join(",")})`,
        )
        .all(...chunk),
    );
  }
  return countFacets(rows, now);
}

/** Facets of every session that `filters` let through (the answer to an empty query). */
export function facetsOfFilters(db: Database, filters: SearchFilters, now: number): Facets {
  // A scan of every session (~15 ms at 20k): kept until the index changes, per filters and day.
  return cachedUntilChange(db, `facets ${JSON.stringify(filters)} ${new Date(now).toDateString()}`, () => {
    const filter = filterSql(filters);
    const rows = db
      .query<FacetRow, Array<string | number>>(`SELECT ${facetColumns} FROM sessions s WHERE ${filter.where}`)
      .all(...filter.params);
    return countFacets(rows, now);
  });
}
