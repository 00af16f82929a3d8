/**
 * `--max-chars`, the hard cap on the characters of a search answer (issues 13 and 26): which results fit, what the
 * truncation marker says about the rest, and the smallest cap that can still say it. The answer's shapes (text, JSON)
 * stay in search.ts; this module only measures what they render.
 */
import { countOf } from "./format.ts";

/**
 * Smallest `--max-chars` accepted: room for the shortest answer that can still say what was left out (the JSON
 * envelope with an empty result list and the truncation marker, ~255 characters at most; issue 26: the cap is hard).
 */
export const minMaxChars = 300;

/** What {@link fitToBudget} needs of the render options. */
export interface BudgetOptions {
  /** `full` or `index`: the hint of an answer that fits no result suggests `--format index` when it is `full`. */
  format?: "full" | "index";
  /** Cap on the characters of the whole answer; undefined: no cap. */
  maxChars?: number;
  /** The command that prints `limit` results from the 0-based `offset` (with `maxChars` when given), or absent. */
  more?: (offset: number, limit: number, maxChars?: number) => string;
}

/** What `--max-chars` left out (the JSON `truncated` object; the text marker says the same). */
export interface Truncation {
  results_shown: number;
  results_omitted: number;
  /** Characters of the uncapped answer that were not printed (results left out). */
  chars_omitted: number;
  /** Command printing the left-out results, or null when the caller gave none. */
  next_command: string | null;
  hint: string;
}

/**
 * Render `count` results as one string within `maxChars`: the whole answer when it fits, else the most
 * results that fit together with the truncation marker. When not even the header and the marker fit, `compact`
 * renders the marker in as few characters as it can within the cap (issue 26: the cap is a hard maximum; a
 * 544-character answer came back for --max-chars 200). `render(shown, marker)` must grow with `shown`.
 */
export function fitToBudget(
  count: number,
  render: (shown: number, marker: Truncation | null) => string,
  options: BudgetOptions,
  offset: number,
  compact: (marker: Truncation, maxChars: number) => string,
): string {
  const whole = render(count, null);
  if (options.maxChars === undefined || whole.length <= options.maxChars) return whole;
  const markerFor = (shown: number): Truncation => {
    const omitted = count - shown;
    const charsOmitted = whole.length - render(shown, null).length;
    if (shown > 0) {
      const more = options.more?.(offset + shown, omitted) ?? null;
      return {
        results_shown: shown,
        results_omitted: omitted,
        chars_omitted: charsOmitted,
        next_command: more,
        hint: more ? `the rest: ${more}` : "raise --max-chars for the rest",
      };
    }
    // Not even one result fits: name the cap that fits the first one (and the shorter format).
    const needed = Math.ceil((count === 1 ? whole.length : render(1, markerFor(1)).length) / 100) * 100;
    const more = options.more?.(offset, count, needed) ?? null;
    const index = options.format === "index" ? "" : ", or add --format index (one line per result)";
    return {
      results_shown: 0,
      results_omitted: omitted,
      chars_omitted: charsOmitted,
      next_command: more,
      hint: `the first result alone needs --max-chars ${needed}${more ? `: ${more}` : ""}${index}`,
    };
  };
  let best = 0;
  for (let lo = 1, hi = count - 1; lo <= hi; ) {
    const mid = (lo + hi) >> 1;
    if (render(mid, markerFor(mid)).length <= options.maxChars) {
      best = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  const fitted = render(best, markerFor(best));
  return fitted.length <= options.maxChars ? fitted : compact(markerFor(0), options.maxChars);
}

/** The text marker of a truncated answer (one line). */
export function markerText(marker: Truncation): string {
  const total = marker.results_shown + marker.results_omitted;
  return `[truncated by --max-chars: ${marker.results_omitted} of ${countOf(total, "result")} (${marker.chars_omitted} characters) left out; ${marker.hint}]`;
}
