/**
 * SQLite FTS5's `unicode61 remove_diacritics 2` tokenizer in TypeScript, giving the very tokens the keyword index
 * stores (sqlite ext/fts5/fts5_tokenize.c, fts5UnicodeTokenize, described here, not copied):
 *   - ASCII letters and digits are token characters, every other ASCII character (NUL included) separates;
 *   - from U+0080 up, unicode61-tables.ts (learnt from the linked SQLite) says what separates; 25 diacritics continue a
 *     token but cannot start one; everything else starts or continues a token;
 *   - each token character is folded (lower case, diacritics removed; a removed diacritic leaves nothing);
 *   - a lone surrogate reaches SQLite as U+FFFD and separates.
 * Checked against FTS5 for every code point (test/index/tokens/unicode61.test.ts).
 */
import { continueOnlyCodePoints, foldRuns, separatorRanges } from "./unicode61-tables.ts";

/** What a code point does: separate, start or continue a token, or only continue one. */
const separates = 0;
const startsToken = 1;
const continuesOnly = 2;

/**
 * By BMP code unit: {@link separates}, {@link startsToken} or {@link continuesOnly}. Until a text holds a code unit from
 * U+0080 up, only the ASCII entries are set ({@link loadTables} sets the rest): building the tables takes 3–4 ms in a
 * one-shot process (measured from the compiled binary, 2-core Xeon), which a search of ASCII words never needs.
 */
const basicRole = new Uint8Array(0x10000);
/** By BMP code point: what it folds to (0: nothing); set by {@link loadTables}. */
const basicFold = new Uint32Array(0x10000);
/** Separator ranges from U+10000 up, as [first, last] pairs, flattened; set by {@link loadTables}. */
const supplementarySeparators: number[] = [];
/** Folds that change a code point from U+10000 up; set by {@link loadTables}. */
const supplementaryFold = new Map<number, number>();
let tablesLoaded = false;

for (let code = 0; code < 0x80; code++) {
  const letterOrDigit = (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122);
  basicRole[code] = letterOrDigit ? startsToken : separates;
}

/** Set every table from U+0080 up, from unicode61-tables.ts (once, at the first code unit from U+0080 up). */
function loadTables(): void {
  tablesLoaded = true;
  basicRole.fill(startsToken, 0x80);
  basicRole.fill(separates, 0xd800, 0xe000); // lone surrogates (pairs are read as one code point)
  for (let at = 0; at < separatorRanges.length; at += 2) {
    const first = separatorRanges[at]!;
    const last = separatorRanges[at + 1]!;
    if (first < 0x10000) basicRole.fill(separates, first, Math.min(last, 0xffff) + 1);
    if (last >= 0x10000) supplementarySeparators.push(Math.max(first, 0x10000), last);
  }
  for (const code of continueOnlyCodePoints) basicRole[code] = continuesOnly;
  for (let code = 0; code < 0x10000; code++) basicFold[code] = code >= 65 && code <= 90 ? code + 32 : code;
  for (let at = 0; at < foldRuns.length; at += 4) {
    const [first, count, step, delta] = foldRuns.slice(at, at + 4) as [number, number, number, number];
    for (let index = 0; index < count; index++) {
      const code = first + index * step;
      if (code < 0x10000) basicFold[code] = code + delta;
      else supplementaryFold.set(code, code + delta);
    }
  }
}

/** Whether a code point from U+10000 up starts (and continues) a token: binary search of its separator ranges. */
function supplementaryStartsToken(code: number): boolean {
  let low = 0;
  let high = supplementarySeparators.length / 2 - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    if (code < supplementarySeparators[2 * middle]!) high = middle - 1;
    else if (code > supplementarySeparators[2 * middle + 1]!) low = middle + 1;
    else return false;
  }
  return true;
}

/** Code units per String.fromCharCode call. */
const unitsPerCall = 4096;

/** A string of UTF-16 code units (String.fromCharCode in chunks: one spread of a long token would overflow the stack). */
function fromUnits(units: number[]): string {
  if (units.length <= unitsPerCall) return String.fromCharCode(...units);
  let text = "";
  for (let at = 0; at < units.length; at += unitsPerCall)
    text += String.fromCharCode(...units.slice(at, at + unitsPerCall));
  return text;
}

/** The folded UTF-16 code units of token characters text[start, end), read as unicode61 reads them. */
function foldedToken(text: string, start: number, end: number): string {
  const units: number[] = [];
  for (let at = start; at < end; at++) {
    const unit = text.charCodeAt(at);
    let folded: number;
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const code = ((unit - 0xd800) << 10) + (text.charCodeAt(++at) - 0xdc00) + 0x10000;
      folded = supplementaryFold.get(code) ?? code;
    } else folded = basicFold[unit]!;
    if (folded === 0) continue;
    if (folded >= 0x10000) units.push(0xd800 + ((folded - 0x10000) >> 10), 0xdc00 + ((folded - 0x10000) & 0x3ff));
    else units.push(folded);
  }
  return fromUnits(units);
}

/**
 * Call `onToken` with each token of `text`, in order: `"Café au-lait_2"` → `cafe`, `au`, `lait`, `2`. `isAscii` is
 * true when the token is all ASCII (the porter step uses it). Tokens are not truncated or stemmed here.
 */
export function forEachUnicode61Token(text: string, onToken: (token: string, isAscii: boolean) => void): void {
  const end = text.length;
  let at = 0;
  while (at < end) {
    // skip separators (a diacritic cannot start a token)
    let unit = text.charCodeAt(at);
    if (unit >= 0x80 && !tablesLoaded) loadTables();
    let width = 1;
    let role: number;
    if (unit >= 0xd800 && unit <= 0xdbff && at + 1 < end) {
      const low = text.charCodeAt(at + 1);
      if (low >= 0xdc00 && low <= 0xdfff) {
        width = 2;
        role = supplementaryStartsToken(((unit - 0xd800) << 10) + (low - 0xdc00) + 0x10000) ? startsToken : separates;
      } else role = separates;
    } else role = basicRole[unit]!;
    if (role !== startsToken) {
      at += width;
      continue;
    }
    // run through the token characters
    const start = at;
    let isAscii = true;
    let unchanged = true; // every character folds to itself
    while (at < end) {
      unit = text.charCodeAt(at);
      if (unit < 0x80) {
        const unitRole = basicRole[unit]!;
        if (unitRole === separates) break;
        if (unit <= 90 && unit >= 65) unchanged = false;
        at++;
        continue;
      }
      if (!tablesLoaded) loadTables();
      if (unit >= 0xd800 && unit <= 0xdbff && at + 1 < end) {
        const low = text.charCodeAt(at + 1);
        if (low < 0xdc00 || low > 0xdfff) break;
        const code = ((unit - 0xd800) << 10) + (low - 0xdc00) + 0x10000;
        if (!supplementaryStartsToken(code)) break;
        if (supplementaryFold.has(code)) unchanged = false;
        isAscii = false;
        at += 2;
        continue;
      }
      if (basicRole[unit] === separates) break;
      if (basicFold[unit] !== unit) unchanged = false;
      isAscii = false;
      at++;
    }
    const raw = text.slice(start, at);
    onToken(unchanged ? raw : isAscii ? raw.toLowerCase() : foldedToken(text, start, at), isAscii);
  }
}
