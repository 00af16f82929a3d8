/**
 * Previews: the best window of a document's text around the query words, with the match spans,
 * for the "preview" field and the highlighted line in text output. Matching is by word prefix so
 * stemmed forms count (`migrat` finds "migration", "migrating").
 */

/** A preview: plain text (one line, ≤ maxChars) and the [start, end) character spans that matched. */
export interface Preview {
  text: string;
  highlights: Array<[number, number]>;
}

const wordPattern = /[\p{L}\p{N}]+/gu;

/** Stem-insensitive key of a word: its first 5 characters, lower-case (the whole word when shorter). */
const stemKey = (word: string): string => word.toLowerCase().slice(0, 5);

/**
 * Build a preview of `text` of at most `maxChars` characters, centred on the densest cluster of
 * query words. Whitespace is collapsed; `…` marks cuts.
 */
export function makePreview(text: string, queryWords: readonly string[], maxChars = 240): Preview {
  const flat = text.replace(/\s+/g, " ").trim();
  const keys = new Set(queryWords.filter((word) => word.length > 1).map(stemKey));
  const matches: Array<[number, number]> = [];
  if (keys.size > 0) {
    for (const match of flat.matchAll(wordPattern)) {
      if (keys.has(stemKey(match[0]))) matches.push([match.index, match.index + match[0].length]);
    }
  }
  if (flat.length <= maxChars) return { text: flat, highlights: matches };
  let bestStart = 0;
  let bestCount = 0;
  for (let i = 0, j = 0; i < matches.length; i++) {
    while (j < matches.length && matches[j]![1] - matches[i]![0] <= maxChars * 0.8) j++;
    if (j - i > bestCount) {
      bestCount = j - i;
      bestStart = matches[i]![0];
    }
  }
  let start = Math.max(0, bestStart - Math.floor(maxChars * 0.2));
  if (start > 0) start = flat.indexOf(" ", start) + 1 || start;
  const end = Math.min(flat.length, start + maxChars - 2);
  const prefix = start > 0 ? "…" : "";
  const suffix = end < flat.length ? "…" : "";
  const shift = prefix.length - start;
  return {
    text: prefix + flat.slice(start, end) + suffix,
    highlights: matches.filter(([s, e]) => s >= start && e <= end).map(([s, e]) => [s + shift, e + shift]),
  };
}
