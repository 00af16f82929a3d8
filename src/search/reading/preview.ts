/**
 * Previews: the best window of a document's text around the query words, with the match spans,
 * for the "preview" field and the highlighted line in text output. Matching is by word prefix so
 * stemmed forms count (`migrat` finds "migration", "migrating"); a query word in a script written without spaces
 * (Chinese, Japanese, Thai…: index/write/cjk.ts) is found as a substring of the text's runs, where it sits inside a
 * longer run (issue 26: `调度器` in `调度器介入时` was not found, so the preview showed another part, unhighlighted).
 * The window is taken from what the person typed when the match is there (issue 26: wrapper blocks IDE extensions
 * inject, parsers/shared/typed-text.ts), from the whole text otherwise. Only the first {@link previewScanChars}
 * characters are read (issue 37: a 50 MB prompt took seconds and a gigabyte to preview). A document's preview is taken
 * from its prose (prompt or title, reply, prompts) when that holds a query word, from its tool lines and files only
 * otherwise (issue 38: `Bash rg -n "PodGroup.*not found|…` was shown where the reply said far more).
 */
import { unsegmentedLetter } from "../../index/write/cjk.ts";
import { segmentedWordCharacter } from "../../index/write/script-boundary.ts";
import { searchableChars, type DocumentText } from "../../index/write/documents.ts";
import { typedText } from "../../parsers/index.ts";

/** A preview: plain text (one line, ≤ maxChars) and the [start, end) character spans that matched. */
export interface Preview {
  text: string;
  highlights: Array<[number, number]>;
}

/** A word: letters and digits, ending where Latin letters or digits meet Chinese, Japanese, Korean or Thai (issue 38). */
const wordPattern = new RegExp(`${segmentedWordCharacter}+`, "gu");

/**
 * Characters of a text a preview reads (issue 37): four times a document field's searchable part
 * (index/write/documents.ts searchableChars), so every keyword match of a turn's field, or of a session document's
 * title, prompts and files up to 800,000 characters, is seen; a match past it is not (the preview then shows the
 * text's start). Reading 800,000 characters costs tens of milliseconds, not the seconds of a 50 MB prompt.
 */
export const previewScanChars = 4 * searchableChars;

/** Stem-insensitive key of a word: its first 5 characters, lower-case (the whole word when shorter). */
const stemKey = (word: string): string => word.toLowerCase().slice(0, 5);

/** A regular-expression source that matches `text` literally. */
const literal = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/**
 * The [start, end) spans of the query words in `flat`, in text order. Candidate words are found by one
 * case-insensitive pattern of the stem keys at a word start, then each is checked by {@link stemKey}; the pattern
 * finds every word the check accepts (a character's lower case and its case folding agree) except for U+0130 İ,
 * whose lower case is two characters (a combining mark in the key), and a key cut inside a surrogate pair: then the
 * text is read word by word (4x slower at 150k characters).
 */
function findMatches(flat: string, queryWords: readonly string[]): Array<[number, number]> {
  const words = queryWords.filter((word) => word.length > 1);
  // A key holding anything but letters, digits, marks or half a surrogate pair can never be a word's (`(b)`).
  const keys = new Set(
    words
      .filter((word) => !unsegmentedLetter.test(word))
      .map(stemKey)
      .filter((key) => /^[\p{L}\p{N}\p{M}\uD800-\uDFFF]+$/u.test(key)),
  );
  const matches: Array<[number, number]> = [];
  if (keys.size > 0) {
    const byPattern = !flat.includes("\u0130") && [...keys].every((key) => /^[\p{L}\p{N}]+$/u.test(key));
    const candidates = byPattern
      ? new RegExp(
          `(?<!${segmentedWordCharacter})(?:${[...keys].map(literal).join("|")})${segmentedWordCharacter}*`,
          "giu",
        )
      : wordPattern;
    for (const match of flat.matchAll(candidates)) {
      if (keys.has(stemKey(match[0]))) matches.push([match.index, match.index + match[0].length]);
    }
  }
  const unsegmented = words.filter((word) => unsegmentedLetter.test(word));
  const lower = unsegmented.length > 0 ? flat.toLowerCase() : "";
  for (const word of unsegmented) {
    const needle = word.toLowerCase();
    for (let at = lower.indexOf(needle); at >= 0; at = lower.indexOf(needle, at + needle.length)) {
      matches.push([at, at + needle.length]);
    }
  }
  return matches.sort((a, b) => a[0] - b[0]);
}

/**
 * Build a preview of `text` of at most `maxChars` characters, centred on the densest cluster of
 * query words. Whitespace is collapsed; `…` marks cuts. Wrapper blocks the person did not type are left out unless
 * the only matches are inside them.
 */
export function makePreview(text: string, queryWords: readonly string[], maxChars = 240): Preview {
  const scanned = text.length > previewScanChars ? text.slice(0, previewScanChars) : text;
  const whole = scanned.replace(/\s+/g, " ").trim();
  const typed = typedText(scanned).replace(/\s+/g, " ").trim();
  let flat = whole;
  let matches = findMatches(whole, queryWords);
  if (typed !== whole && typed.length > 0) {
    const typedMatches = findMatches(typed, queryWords);
    if (typedMatches.length > 0 || matches.length === 0) {
      flat = typed;
      matches = typedMatches;
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
  // Start after a space (a word boundary) when one is near; unspaced scripts start where the window does.
  if (start > 0) {
    const space = flat.indexOf(" ", start);
    if (space >= 0 && space < bestStart) start = space + 1;
  }
  const end = Math.min(flat.length, start + maxChars - 2);
  const prefix = start > 0 ? "…" : "";
  const suffix = end < flat.length || scanned.length < text.length ? "…" : "";
  const shift = prefix.length - start;
  return {
    text: prefix + flat.slice(start, end) + suffix,
    highlights: matches.filter(([s, e]) => s >= start && e <= end).map(([s, e]) => [s + shift, e + shift]),
  };
}

/** Joins a document's columns in a preview: prompt — reply — tool lines. */
const columnSeparator = " — ";

/**
 * The preview of a search result's document (index/write/documents.ts: `heading` is a turn's prompt or a session's
 * title, `body` the reply or the session's prompts, `extra` the tool lines and files): the {@link makePreview} of
 * heading and body when they hold a query word, even if the tool lines hold more of them; else of all three columns,
 * as before (a match only in a tool line or a file path, or none: then the text's start, the prompt).
 *   heading "why is PodGroup not found", extra `Bash rg -n "PodGroup.*not found"`, words `podgroup found` →
 *   "why is PodGroup not found"
 */
export function makeDocumentPreview(
  document: Pick<DocumentText, "heading" | "body" | "extra">,
  queryWords: readonly string[],
  maxChars = 240,
): Preview {
  const prose = [document.heading, document.body].filter(Boolean).join(columnSeparator);
  const fromProse = makePreview(prose, queryWords, maxChars);
  if (fromProse.highlights.length > 0 || !document.extra) return fromProse;
  return makePreview([prose, document.extra].filter(Boolean).join(columnSeparator), queryWords, maxChars);
}
