/**
 * Dates as the web view writes them: a relative day for lists ("3 days ago"), the local date and time for titles,
 * and the names of the age facet's buckets.
 */
import type { AgeBucket } from "../search/listing/facets.ts";
import { localMinute } from "../render/format.ts";

const day = 86_400_000;

/**
 * How long ago `at` was, in words: `today`, `yesterday`, `5 days ago`, `3 weeks ago`, `4 months ago`, `2 years ago`
 * (by elapsed time from `now`; 0 — no time recorded — reads `unknown date`).
 * @param at, now epoch ms
 */
export function relativeDay(at: number, now: number): string {
  if (!at) return "unknown date";
  const days = Math.floor(Math.max(0, now - at) / day);
  if (days === 0) return "today";
  if (days === 1) return "yesterday";
  if (days < 14) return `${days} days ago`;
  if (days < 60) return `${Math.floor(days / 7)} weeks ago`;
  if (days < 365) return `${Math.floor(days / 30)} months ago`;
  const years = Math.floor(days / 365);
  return years === 1 ? "a year ago" : `${years} years ago`;
}

/** The local date and time of `at` (epoch ms), to the minute, with the zone: `2026-11-27 07:45 UTC`. */
export function dateTimeText(at: number): string {
  return at ? localMinute(at) : "unknown date";
}

/** The label of an age bucket of the facets. */
export function ageLabel(bucket: AgeBucket): string {
  return { today: "today", "7d": "last 7 days", "30d": "last 30 days", older: "older" }[bucket];
}
