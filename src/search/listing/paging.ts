/**
 * Page arguments shared by every front end (issue 10): the CLI's `--limit` and the MCP tools' `limit` and
 * `offset` are checked here, once, so both give the same answer and the same error. A page is `limit`
 * results starting at the 0-based `offset`; `nextOffset` says where the next page starts (absent on the last).
 */
import { UsageError } from "../../errors.ts";

/** Largest `limit` any list accepts (one page). */
export const maxPageLimit = 1000;

/**
 * Check a page size.
 * Examples: `10` → 10; `undefined` → `fallback`; `0`, `2.5`, `5000` → UsageError.
 * @param name how the caller spells the argument in the message (`--limit` on the CLI, `limit` in MCP)
 * @throws UsageError "<name> must be a whole number from 1 to 1000, got <value>"
 */
export function parseLimit(value: number | undefined, fallback: number, name = "limit"): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > maxPageLimit)
    throw new UsageError(`${name} must be a whole number from 1 to ${maxPageLimit}, got ${value}`);
  return value;
}

/**
 * Check the size of a list a person or a script pages through whole (`recall sessions --limit`, issue 26: capped at
 * 1,000, a history of 20,000 sessions could not be listed): any whole number from 1, or `all` (no limit).
 * Examples: `undefined` → `fallback`; `"50"` → 50; `"20000"` → 20000; `"all"`, `"ALL"` → Infinity;
 *   `"0"`, `"2.5"`, `"-3"`, `"lots"` → UsageError.
 * @throws UsageError "<name> must be a whole number of at least 1, or all, got <value>"
 */
export function parseListLimit(value: string | undefined, fallback: number, name = "limit"): number {
  if (value === undefined) return fallback;
  const text = value.trim();
  if (text.toLowerCase() === "all") return Number.POSITIVE_INFINITY;
  const count = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(count) || count < 1)
    throw new UsageError(`${name} must be a whole number of at least 1, or all, got ${value}`, `e.g. ${name} 100`);
  return count;
}

/**
 * Check a page start (0-based count of results to skip).
 * Examples: `undefined` → 0; `20` → 20; `-1`, `1.5` → UsageError.
 * @throws UsageError "<name> must be a whole number of at least 0, got <value>"
 */
export function parseOffset(value: number | undefined, name = "offset"): number {
  if (value === undefined) return 0;
  if (!Number.isInteger(value) || value < 0)
    throw new UsageError(`${name} must be a whole number of at least 0, got ${value}`);
  return value;
}

/** One page of a longer list. */
export interface Page<T> {
  items: T[];
  /** 0-based position of `items[0]` in the whole list. */
  offset: number;
  /** Where the next page starts, or undefined when this page is the last. */
  nextOffset: number | undefined;
}

/**
 * Cut a page from rows fetched with one extra row beyond the page (`LIMIT limit + 1`), which tells whether
 * another page follows without counting the whole list.
 */
export function pageOf<T>(rows: T[], offset: number, limit: number): Page<T> {
  return { items: rows.slice(0, limit), offset, nextOffset: rows.length > limit ? offset + limit : undefined };
}
