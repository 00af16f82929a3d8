/**
 * Usage analytics (issue 38 item 14, `recall ui`'s usage page): over a range of time, per day, week or month, the
 * sessions and turns of each project, tool calls per tool, and per model, project and bucket the tokens and the cost
 * the agents recorded (schema 12 `turns.usage`) or the price table estimates (prices.ts).
 * What counts: sessions and turns are the main conversation's, as on the activity page (sub-agent sessions and
 * rewound turns are not counted as turns); tokens, costs, models and tool calls count every turn, sub-agents' and
 * rewound ones included, since their calls were made and paid for. A session counts in each bucket it had a turn;
 * a turn in the bucket of its prompt's local time (turns without a time are left out). Buckets are local calendar
 * days (`2026-03-01`), weeks named by their Monday (`2026-02-23`), or months (`2026-03`).
 */
import type { Database } from "bun:sqlite";
import type { ModelUsage } from "../../parsers/types.ts";
import { isoLocalDate, periodOf } from "../dates/calendar.ts";
import { maxSlices, SliceCounter } from "./activity.ts";
import { filterSql, type SearchFilters } from "./filters.ts";
import { costOf } from "./prices.ts";

/** The length of a bucket. */
export type UsageBucket = "day" | "week" | "month";

/** The bucket sizes, in the order a page offers them. */
export const usageBuckets: readonly UsageBucket[] = ["day", "week", "month"];

/** Token counts summed over turns (counts the agent did not record add nothing). */
export interface TokenTotals {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
}

/**
 * Cost in USD, split by where it comes from: `recorded` by the agent (OpenCode), `estimated` from the price table;
 * `unpriced` counts the (turn, model) pairs with tokens but neither, whose cost is unknown (never counted as 0).
 */
export interface CostTotals {
  recorded: number;
  estimated: number;
  unpriced: number;
}

/** Tokens and cost of one slice. */
export interface UsageTotals {
  tokens: TokenTotals;
  cost: CostTotals;
}

/** One project's counts per bucket (aligned with {@link UsageReport.buckets}) and its totals. */
export interface ProjectUsage extends UsageTotals {
  /** The project path ("" for sessions without one). */
  key: string;
  /** Its short name. */
  label: string;
  sessions: number[];
  turns: number[];
  /** Main turns over the range (projects are ordered by it). */
  totalTurns: number;
}

/** One model's use: the turns it answered in (any turn) and its tokens and cost. */
export interface ModelUsageTotals extends UsageTotals {
  model: string;
  turns: number;
}

/** What {@link readUsage} returns. */
export interface UsageReport {
  /** First and last local day of the range (YYYY-MM-DD) and the bucket size. */
  from: string;
  to: string;
  bucket: UsageBucket;
  /** Bucket labels from the first to the last bucket with a turn, every bucket between included. */
  buckets: string[];
  /** Tokens and cost per bucket, aligned with `buckets`. */
  perBucket: UsageTotals[];
  /** The projects with the most turns (at most activity.ts {@link maxSlices}, as on the activity page), most first; the rest are in `otherProjects`. */
  projects: ProjectUsage[];
  otherProjects: ProjectUsage | null;
  /** Tool calls per tool name, most first. */
  tools: Array<{ name: string; calls: number }>;
  /** Models, most turns first. */
  models: ModelUsageTotals[];
  /** Over the whole range: distinct main sessions, main turns, tokens and cost. */
  totals: UsageTotals & { sessions: number; turns: number };
}

interface TurnRow {
  timestamp: number;
  number: number;
  session_rowid: number;
  is_subagent: number;
  project_path: string;
  project_name: string;
  usage: string | null;
}

const emptyTotals = (): UsageTotals => ({
  tokens: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
  cost: { recorded: 0, estimated: 0, unpriced: 0 },
});

/** Add one model's usage in one turn to each of `targets`. */
function addUsage(entry: ModelUsage, targets: readonly UsageTotals[]): void {
  const cost = costOf(entry);
  for (const target of targets) {
    target.tokens.input += entry.input ?? 0;
    target.tokens.output += entry.output ?? 0;
    target.tokens.cacheRead += entry.cacheRead ?? 0;
    target.tokens.cacheWrite += entry.cacheWrite ?? 0;
    if (cost.kind === "unpriced") target.cost.unpriced++;
    else target.cost[cost.kind] += cost.usd;
  }
}

/** The bucket holding `at` (epoch ms): its label and the start of the next one. */
function bucketOf(bucket: UsageBucket, at: number): { label: string; next: number } {
  const period = periodOf(bucket, at);
  const label = isoLocalDate(period.start);
  return { label: bucket === "month" ? label.slice(0, 7) : label, next: period.end };
}

/** Per-project accumulator: activity.ts's sessions and turns per bucket label, and the project's tokens and cost. */
class ProjectCounter extends SliceCounter {
  readonly totals = emptyTotals();
  result(buckets: readonly string[]): ProjectUsage {
    return { key: this.key, label: this.label, ...this.aligned(buckets), totalTurns: this.turns, ...this.totals };
  }
}

/**
 * Usage from `fromMs` to `toMs` (epoch ms, inclusive) of the sessions `filters` let through (project, source, branch,
 * dates: filters.ts; sub-agent sessions are always read, see the module note), in buckets of `bucket`.
 * Reads each turn's time and usage once, and the tool names with SQLite's json_each.
 */
export function readUsage(
  db: Database,
  filters: SearchFilters,
  fromMs: number,
  toMs: number,
  bucket: UsageBucket,
): UsageReport {
  const filter = filterSql({ ...filters, includeSubagents: true }, "t.timestamp");
  const where = `t.timestamp BETWEEN ? AND ? AND t.timestamp > 0 AND ${filter.where}`;
  const params = [fromMs, toMs, ...filter.params];
  const rows = db
    .query<TurnRow, Array<string | number>>(
      `SELECT t.timestamp, t.number, t.session_rowid, s.is_subagent, s.project_path, s.project_name, t.usage
       FROM turns t JOIN sessions s ON s.id = t.session_rowid WHERE ${where}`,
    )
    .all(...params);
  const projects = new Map<string, ProjectCounter>();
  const models = new Map<string, ModelUsageTotals>();
  const perBucket = new Map<string, UsageTotals>();
  const total = emptyTotals();
  const sessions = new Set<number>();
  let turns = 0;
  let first = Number.POSITIVE_INFINITY;
  let last = Number.NEGATIVE_INFINITY;
  for (const row of rows) {
    const { label } = bucketOf(bucket, row.timestamp);
    first = Math.min(first, row.timestamp);
    last = Math.max(last, row.timestamp);
    let project = projects.get(row.project_path);
    if (!project) projects.set(row.project_path, (project = new ProjectCounter(row.project_path, row.project_name)));
    if (row.number > 0 && row.is_subagent === 0) {
      project.add(label, row.session_rowid);
      sessions.add(row.session_rowid);
      turns++;
    }
    if (row.usage === null) continue;
    let slice = perBucket.get(label);
    if (!slice) perBucket.set(label, (slice = emptyTotals()));
    for (const entry of JSON.parse(row.usage) as ModelUsage[]) {
      let model = models.get(entry.model);
      if (!model) models.set(entry.model, (model = { model: entry.model, turns: 0, ...emptyTotals() }));
      model.turns++;
      addUsage(entry, [model, project.totals, slice, total]);
    }
  }
  const buckets: string[] = [];
  for (let at = first; at <= last; ) {
    const current = bucketOf(bucket, at);
    buckets.push(current.label);
    at = current.next;
  }
  const ranked = [...projects.values()]
    .sort((a, b) => b.turns - a.turns || a.label.localeCompare(b.label))
    .map((counter) => counter.result(buckets));
  return {
    from: isoLocalDate(fromMs),
    to: isoLocalDate(toMs),
    bucket,
    buckets,
    perBucket: buckets.map((label) => perBucket.get(label) ?? emptyTotals()),
    projects: ranked.slice(0, maxSlices),
    otherProjects: ranked.length > maxSlices ? sumProjects(ranked.slice(maxSlices)) : null,
    tools: db
      .query<{ name: string; calls: number }, Array<string | number>>(
        `SELECT json_extract(call.value, '$.name') AS name, count(*) AS calls
         FROM turns t JOIN sessions s ON s.id = t.session_rowid, json_each(t.tools) AS call
         WHERE ${where} GROUP BY name ORDER BY calls DESC, name`,
      )
      .all(...params),
    models: [...models.values()].sort((a, b) => b.turns - a.turns || a.model.localeCompare(b.model)),
    totals: { sessions: sessions.size, turns, ...total },
  };
}

/** The projects past the first {@link maxSlices}, summed into one row labelled "other projects". */
function sumProjects(rest: readonly ProjectUsage[]): ProjectUsage {
  const sum = (values: number[][]) =>
    values[0]!.map((_, index) => values.reduce((total, row) => total + row[index]!, 0));
  const totals = emptyTotals();
  for (const project of rest) {
    for (const key of ["input", "output", "cacheRead", "cacheWrite"] as const)
      totals.tokens[key] += project.tokens[key];
    for (const key of ["recorded", "estimated", "unpriced"] as const) totals.cost[key] += project.cost[key];
  }
  return {
    key: "",
    label: `${rest.length} other projects`,
    sessions: sum(rest.map((project) => project.sessions)),
    turns: sum(rest.map((project) => project.turns)),
    totalTurns: rest.reduce((total, project) => total + project.totalTurns, 0),
    ...totals,
  };
}
