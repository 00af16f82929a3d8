/**
 * Front-end arguments turned into search requests, checked once for every front end (DESIGN.md
 * "Interfaces"; issue 10): the raw strings of the CLI's flags or of an MCP tool call become `SearchFilters`
 * and a `SearchLevel`, with the same errors whichever front end passed them.
 */
import { UsageError } from "../../errors.ts";
import { isNumericDate, parseDateFilter, parseSource, type SearchFilters } from "./filters.ts";
import type { SearchLevel } from "../ranking/lexical.ts";
import { loadDateReader } from "../dates/time-query.ts";

/** Filters as a front end receives them: text, all optional. */
export interface FilterArgs {
  project?: string;
  source?: string;
  since?: string;
  until?: string;
  branch?: string;
  includeSubagents?: boolean;
}

/**
 * Make date words readable by {@link parseFilterArgs} and filters.ts `parseDateFilter`, which are synchronous: loads
 * the query parser's date reader (chrono-node, ~20 ms) when one of `values` is neither an ISO date nor an age, and
 * only then; without `values`, always (a server that will read arguments later loads it once, at start).
 *   `["yesterday", undefined]`, no values → loads;  `["7d", "2026-03-01"]`, `[]` → nothing to load
 */
export async function loadDateWords(values?: ReadonlyArray<string | undefined>): Promise<void> {
  if (!values || values.some((value) => value !== undefined && value.trim() !== "" && !isNumericDate(value)))
    await loadDateReader();
}

/**
 * Build `SearchFilters` from text arguments. `until` with a bare date means the end of that local day.
 * Examples: `{since: "7d"}` → `{since: now − 7 days}`; `{since: "yesterday"}` → `{since: yesterday 00:00 local}`
 *   (after {@link loadDateWords}); `{source: "opencode"}` → `{source: "opencode"}`; `{source: "vim"}` → UsageError;
 *   `{project: ""}` → no project filter.
 * @throws UsageError for an unknown source, a date parseDateFilter cannot read (or not in the calendar), or since after until
 */
export function parseFilterArgs(args: FilterArgs, now = Date.now()): SearchFilters {
  const since = args.since === undefined || args.since === "" ? undefined : parseDateFilter(args.since, now);
  const until = args.until === undefined || args.until === "" ? undefined : parseDateFilter(args.until, now, true);
  checkDateOrder(since, until, args.since, args.until);
  return {
    project: args.project || undefined,
    source: args.source === undefined || args.source === "" ? undefined : parseSource(args.source),
    since,
    until,
    branch: args.branch || undefined,
    includeSubagents: args.includeSubagents ?? false,
  };
}

/**
 * A range that ends before it starts matches nothing: say so instead of answering with no results.
 * @param since / until the parsed instants (epoch ms); sinceText / untilText what the user typed
 * @throws UsageError when since > until
 */
export function checkDateOrder(
  since: number | undefined,
  until: number | undefined,
  sinceText?: string,
  untilText?: string,
): void {
  if (since !== undefined && until !== undefined && since > until) {
    throw new UsageError(`--since ${sinceText} is after --until ${untilText}`, "swap them, or drop one");
  }
}

/**
 * The search level of a depth: 1 → sessions (default), 2 → turns.
 * @throws UsageError for any other value
 */
export function parseDepth(depth: number | string | undefined): SearchLevel {
  if (depth === undefined || String(depth) === "1") return "session";
  if (String(depth) === "2") return "turn";
  throw new UsageError(`depth must be 1 (sessions) or 2 (turns), got ${depth}`);
}

/**
 * Check a small count such as "turns before the anchor".
 * Examples: undefined → `fallback`; 0 → 0; 3 → 3; −1, 2.5, 500 → UsageError.
 * @throws UsageError "<name> must be a whole number from <min> to <max>, got <value>"
 */
export function parseCount(
  value: number | undefined,
  fallback: number,
  name: string,
  range: { min: number; max: number },
): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < range.min || value > range.max)
    throw new UsageError(`${name} must be a whole number from ${range.min} to ${range.max}, got ${value}`);
  return value;
}
