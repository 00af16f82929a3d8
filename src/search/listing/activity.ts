/**
 * What was worked on when (issue 29, `recall ui`'s activity page): sessions and turns per local day, for all of the
 * history and split by project and by agent, over a range of days. A session counts on each day it had a turn; a turn
 * on the day of its prompt's time (turns without a time are left out). Days are local calendar days (YYYY-MM-DD).
 */
import type { Database } from "bun:sqlite";
import type { SourceId } from "../../parsers/types.ts";
import { isoLocalDate } from "../dates/calendar.ts";
import { filterSql, type SearchFilters } from "./filters.ts";

/** One day's counts: [local date YYYY-MM-DD, sessions, turns]. */
export type DayCount = [date: string, sessions: number, turns: number];

/** Counts per day of one slice of the history (everything, one project, one agent). */
export interface ActivitySeries {
  /** The project path or agent id; "" for everything. */
  key: string;
  /** What to show: the project's short name, the agent's id, or "all". */
  label: string;
  /** Turns in the whole range (the slices are ordered by it). */
  turns: number;
  /** Days with activity only, in date order. */
  days: DayCount[];
}

/** The activity of a range of days. */
export interface Activity {
  /** First and last local day of the range (YYYY-MM-DD). */
  from: string;
  to: string;
  all: ActivitySeries;
  /** The busiest projects (at most `maxSlices`), most turns first. */
  projects: ActivitySeries[];
  agents: ActivitySeries[];
}

/** Projects shown one by one; the rest are only in `all`. */
export const maxSlices = 12;

interface TurnRow {
  timestamp: number;
  session_rowid: number;
  project_path: string;
  project_name: string;
  source: SourceId;
}

/**
 * Accumulates sessions and turns per period (a local day here; a day, week or month on the usage page: usage.ts) for
 * one slice. A session counts once per period it had a turn in.
 */
export class SliceCounter {
  turns = 0;
  private readonly days = new Map<string, { sessions: Set<number>; turns: number }>();
  constructor(
    readonly key: string,
    readonly label: string,
  ) {}
  add(day: string, session: number): void {
    let entry = this.days.get(day);
    if (!entry) {
      entry = { sessions: new Set(), turns: 0 };
      this.days.set(day, entry);
    }
    entry.sessions.add(session);
    entry.turns++;
    this.turns++;
  }
  /** Sessions and turns in each of `periods` (labels as added; 0 where none), in that order. */
  aligned(periods: readonly string[]): { sessions: number[]; turns: number[] } {
    return {
      sessions: periods.map((period) => this.days.get(period)?.sessions.size ?? 0),
      turns: periods.map((period) => this.days.get(period)?.turns ?? 0),
    };
  }
  series(): ActivitySeries {
    const days = [...this.days]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([day, entry]): DayCount => [day, entry.sessions.size, entry.turns]);
    return { key: this.key, label: this.label, turns: this.turns, days };
  }
}

/**
 * Activity from `fromMs` to `toMs` (epoch ms, inclusive) of the sessions `filters` let through.
 * Reads each turn's time once (at 20k sessions, ~100k turns: tens of ms).
 */
export function readActivity(db: Database, filters: SearchFilters, fromMs: number, toMs: number): Activity {
  const filter = filterSql(filters, "t.timestamp");
  const rows = db
    .query<TurnRow, Array<string | number>>(
      `SELECT t.timestamp, t.session_rowid, s.project_path, s.project_name, s.source
       FROM turns t JOIN sessions s ON s.id = t.session_rowid
       WHERE t.timestamp BETWEEN ? AND ? AND t.number > 0 AND ${filter.where}`,
    )
    .all(fromMs, toMs, ...filter.params);
  const all = new SliceCounter("", "all");
  const projects = new Map<string, SliceCounter>();
  const agents = new Map<string, SliceCounter>();
  for (const row of rows) {
    const day = isoLocalDate(row.timestamp);
    all.add(day, row.session_rowid);
    let project = projects.get(row.project_path);
    if (!project) projects.set(row.project_path, (project = new SliceCounter(row.project_path, row.project_name)));
    project.add(day, row.session_rowid);
    let agent = agents.get(row.source);
    if (!agent) agents.set(row.source, (agent = new SliceCounter(row.source, row.source)));
    agent.add(day, row.session_rowid);
  }
  const busiest = (counters: Iterable<SliceCounter>) =>
    [...counters]
      .sort((a, b) => b.turns - a.turns || a.label.localeCompare(b.label))
      .map((counter) => counter.series());
  return {
    from: isoLocalDate(fromMs),
    to: isoLocalDate(toMs),
    all: all.series(),
    projects: busiest(projects.values()).slice(0, maxSlices),
    agents: busiest(agents.values()),
  };
}
