/**
 * The keyword index's tokens (FTS5 `porter unicode61 remove_diacritics 2`, index/schema.ts keywordTokenizer) computed
 * in TypeScript, exactly as FTS5 stores them: unicode61.ts splits and folds, porter.ts stems, and a token over 32,768
 * UTF-8 bytes keeps its first 32,768 (FTS5_MAX_TOKEN_SIZE, sqlite ext/fts5/fts5_storage.c; a character cut in half
 * reads back as U+FFFD). Every token counts towards a column's length, as FTS5's xColumnSize counts it.
 *   `"Running the src/a_b.ts tests"` → `run`, `the`, `src`, `a`, `b`, `ts`, `test`
 */
import { maxStemmedBytes, porterStem } from "./porter.ts";
import { forEachUnicode61Token } from "./unicode61.ts";

/** Longest token FTS5 stores, in UTF-8 bytes (FTS5_MAX_TOKEN_SIZE). */
const maxTokenBytes = 32_768;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** `token` cut to {@link maxTokenBytes} UTF-8 bytes, as FTS5 cuts it. */
function truncated(token: string): string {
  if (token.length <= maxTokenBytes / 3) return token; // at most 3 UTF-8 bytes per UTF-16 code unit
  const bytes = encoder.encode(token);
  return bytes.length <= maxTokenBytes ? token : decoder.decode(bytes.subarray(0, maxTokenBytes));
}

/** Slots of the stem cache (a power of 2): a token's slot is a hash of its characters. */
const cacheSlots = 1 << 14;
/** The token last stemmed in each slot, and its stem: a text repeats most of its words, and a stem costs ~300 ns. */
const cachedTokens: string[] = new Array(cacheSlots).fill("");
const cachedStems: string[] = new Array(cacheSlots).fill("");

/** {@link porterStem} through a direct-mapped cache of {@link cacheSlots} tokens. */
function stemOf(token: string, isAscii: boolean): string {
  const length = token.length;
  if (length > maxStemmedBytes) return token; // porter passes it through: no slot spent on it
  let hash = length;
  for (let at = 0; at < length; at++) hash = (Math.imul(hash, 31) + token.charCodeAt(at)) | 0;
  const slot = hash & (cacheSlots - 1);
  if (cachedTokens[slot] === token) return cachedStems[slot]!;
  const stem = porterStem(token, isAscii);
  cachedTokens[slot] = token;
  cachedStems[slot] = stem;
  return stem;
}

/**
 * The keyword term of one unicode61 token (a token as unicode61.ts gives it: split and folded): stemmed, then cut to
 * {@link maxTokenBytes}. Uncached: a caller that meets the same tokens again keeps its own dictionary
 * (index/postings/term-counter.ts).
 */
export function keywordTermOf(token: string, isAscii: boolean): string {
  return truncated(porterStem(token, isAscii));
}

/** `text`'s keyword tokens, in order (see the file comment); stems through the stem cache. */
export function keywordTokens(text: string): string[] {
  const tokens: string[] = [];
  forEachUnicode61Token(text, (token, isAscii) => tokens.push(truncated(stemOf(token, isAscii))));
  return tokens;
}
