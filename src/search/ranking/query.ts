/**
 * User text → FTS5 MATCH expressions. Queries are user text, never FTS5 syntax: every token is
 * emitted inside double quotes, so `AND`, `NEAR`, `*`, `:`, `-`, `(` and quotes are plain text.
 * The tokens mirror the index tokenizer (`unicode61`: letters and digits are token characters,
 * everything else separates), so an identifier becomes a phrase of its parts and matches exactly
 * where those parts stand side by side:
 *   `ERR_MODULE_NOT_FOUND`          → "err" "module" "not" "found" as one phrase
 *   `src/path/file.ts`              → "src path file ts" (phrase)
 *   `--no-verify`                   → "no verify" (phrase)
 *   `7acd37a`                       → "7acd37a"* (id-like words also match as prefixes)
 *   `how did we fix the login test` → all terms: "fix" "login" "test"; any term: "fix" OR "login" OR "test"
 *   `安装了kimi-cli`                 → "安装了" and "kimi cli": Latin letters or digits glued to Chinese, Japanese,
 *                                    Korean or Thai are a word of their own, as the index splits them (issue 38)
 * Stop words (function words only) are dropped from loose words (not from phrases or user-quoted text)
 * unless the query has nothing else; possessives lose their `'s` (`Caroline's` → "caroline"). Invisible format characters (U+200B zero-width space, U+FEFF BOM, U+00AD soft
 * hyphen, bidi controls, other Cf / default-ignorable code points) are removed first, so
 * `dock\u200Ber` searches for `docker`; ZWJ/ZWNJ stay (they join or split letters in Indic and
 * Persian words, and the index tokenizer splits at them too).
 */
import { spaceScriptBoundaries } from "../../index/write/script-boundary.ts";

import { UsageError } from "../../errors.ts";

/** A parsed query: its terms as FTS5 fragments, and the two MATCH strings built from them. */
export interface LexicalQuery {
  /** Terms as FTS5 fragments, each already quoted (`"fix"` or `"src path file ts"`). */
  terms: string[];
  /** Every term must match (FTS5 implicit AND); empty string when there are no terms. */
  allTerms: string;
  /** Any term may match (OR), ranked by BM25; equal to `allTerms` for a single term. */
  anyTerm: string;
  /** Plain words for highlighting previews (lower-case, unique). */
  highlightWords: string[];
}

/** Longest query text considered, in characters; the rest of a 10 KB paste is ignored. */
export const maxQueryChars = 2000;
/** Most terms kept; FTS5 query cost grows with terms, and 32 words already pin a topic. */
export const maxQueryTerms = 32;

/**
 * English stop words dropped from natural-language questions: only true function words (issue 13).
 * Content words a question may hinge on stay searchable: `find`, `found`, `show` ("which show did she
 * go to"), `tell`, `remember`, `recall`, `session(s)`, `please`, `ever`, and the particles and negations
 * `up`, `out`, `down`, `off`, `over`, `own`, `not`, `no` (`sign up`, `time out`, `not found`).
 */
export const stopWords: ReadonlySet<string> = new Set(
  `a about above after again all am an and any are as at be because been before being below between both but by can
  could did do does doing during each few for from further had has have having he her here hers him his how i if
  in into is it its itself just me more most my nor now of on once only or other our ours same
  she should so some such than that the their theirs them then there these they this those through to too under until
  very was we were what when where which while who whom why will with would you your yours yourself yourselves`
    .split(/\s+/)
    .filter(Boolean),
);

const tokenCharacters = /[\p{L}\p{N}]+/gu;

/**
 * Split text into index tokens (lower-case letter/digit runs), like FTS5 `unicode61` over a document's searched text,
 * which has a space where Latin letters or digits meet an unsegmented script (index/write/script-boundary.ts).
 *   `"Kimi-CLI"` → `["kimi", "cli"]`;  `"打开vim就"` → `["打开", "vim", "就"]`
 */
export function tokenize(text: string): string[] {
  return (spaceScriptBoundaries(text.normalize("NFKC").toLowerCase()).match(tokenCharacters) ?? []).slice(0, 256);
}

const quote = (tokens: string[]): string => `"${tokens.join(" ")}"`;

/** The plain words of one term fragment as {@link parseLexicalQuery} writes it: `"src path file ts"*` → `src path file ts`. */
export const termWords = (term: string): string => term.replace(/^"|"\*?$/g, "");

/** Id-like words (6+ characters mixing letters and digits, e.g. a hex id prefix `7acd37a`) also match as prefixes. */
const isIdentifierPrefix = (token: string): boolean => token.length >= 6 && /\d/.test(token) && /[a-z]/.test(token);

/** Invisible format characters removed from queries, except ZWNJ/ZWJ (U+200C, U+200D), which are meaningful inside words. */
const invisibleCharacters = /(?![\u200c\u200d])[\p{Cf}\p{Default_Ignorable_Code_Point}]/gu;

/**
 * Anything a reader can see: not whitespace, not a control or format character, not default-ignorable, and not
 * U+FFFD, which stands for bytes that were not UTF-8 (Bun decodes an argument of invalid UTF-8 to it).
 */
const visibleCharacter = /[^\s\p{Cc}\p{Cf}\p{Default_Ignorable_Code_Point}\ufffd]/u;

/**
 * Remove control characters and lone surrogates (→ space), remove invisible format characters, and cap
 * the length at {@link maxQueryChars}.
 *   `"a\u0000b"` → `"a b"`;  `"dock\u200Ber"` → `"docker"`;  `"\uFEFF\u200B"` → `""`
 */
export function sanitizeQueryText(text: string): string {
  return (
    text
      .slice(0, maxQueryChars)
      // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters in a query become spaces before FTS5 sees them
      .replace(/[\u0000-\u001f\u007f]/g, " ")
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, " ")
      .replace(invisibleCharacters, "")
  );
}

/**
 * The text the vector leg embeds: {@link sanitizeQueryText} with whitespace runs collapsed and trimmed,
 * or null when nothing visible is left (a query of only U+200B, BOMs or bidi marks: embedding it fails or
 * means nothing, so the search runs keyword-only; issue 9).
 *   `"  docker\u200B  network "` → `"docker network"`;  `"\u200B\u200B"` → null;  `"🐳"` → `"🐳"`
 */
export function embeddableQueryText(text: string): string | null {
  const clean = sanitizeQueryText(text).replace(/\s+/gu, " ").trim();
  return visibleCharacter.test(clean) ? clean : null;
}

/**
 * The query's {@link embeddableQueryText}, checked once for every front end (issue 38): an empty query, spaces,
 * invisible characters only, or bytes that were not UTF-8 all get the same one-line usage error.
 *   `" docker "` → `"docker"`;  `"   "`, `"\u200b"`, `"\ufffd"` → UsageError
 * @throws UsageError "the search query is empty: it has no visible characters"
 */
export function requireQueryText(text: string): string {
  const embeddable = embeddableQueryText(text);
  if (embeddable === null)
    throw new UsageError(
      "the search query is empty: it has no visible characters",
      'pass some words, e.g. recall search "docker network"',
    );
  return embeddable;
}

/** An English possessive ending on a word: `'s`, `’s` (s, S), or a bare apostrophe after s (`friends'`). */
const possessiveEnding = /(?<=\p{L})(?:['\u2019\u02bc][sS]|(?<=[sS])['\u2019\u02bc])(?=[^\p{L}\p{N}]*$)/u;

/**
 * Drop an English possessive ending from one whitespace-separated chunk, so `Caroline's` searches for
 * `caroline` (not the phrase "caroline s", which misses "Caroline went …"); trailing punctuation may follow.
 *   `"Caroline's"` → `"Caroline"`;  `"Melanie’s?"` → `"Melanie?"`;  `"friends'"` → `"friends"`;  `"it's"` → `"it"`;
 *   `"rock'n'roll"` → unchanged (the apostrophe is inside the word)
 */
export function stripPossessive(chunk: string): string {
  return chunk.replace(possessiveEnding, "");
}

/**
 * Parse user text into a {@link LexicalQuery}.
 * User-quoted spans ("exact words") become phrases; whitespace-separated chunks that split into
 * several tokens (identifiers, paths, flags) become phrases; single words become terms.
 * Returns empty `terms` when the text has no letters or digits at all.
 */
export function parseLexicalQuery(text: string): LexicalQuery {
  const clean = sanitizeQueryText(text);
  const phrases: string[][] = [];
  const words: string[] = [];
  const quotedSpan = /"([^"]*)"/g;
  let rest = clean;
  for (const match of clean.matchAll(quotedSpan)) {
    const tokens = tokenize(match[1] ?? "");
    if (tokens.length > 0) phrases.push(tokens);
    rest = rest.replace(match[0], " ");
  }
  for (const chunk of spaceScriptBoundaries(rest).split(/\s+/)) {
    const tokens = tokenize(stripPossessive(chunk));
    if (tokens.length === 1) words.push(tokens[0]!);
    else if (tokens.length > 1) phrases.push(tokens);
  }
  const contentWords = words.filter((word) => !stopWords.has(word));
  const keptWords = contentWords.length > 0 || phrases.length > 0 ? contentWords : words;
  const seen = new Set<string>();
  const terms: string[] = [];
  for (const tokens of [...phrases, ...keptWords.map((word) => [word])]) {
    const term = tokens.length === 1 && isIdentifierPrefix(tokens[0]!) ? `${quote(tokens)}*` : quote(tokens);
    if (seen.has(term) || terms.length >= maxQueryTerms) continue;
    seen.add(term);
    terms.push(term);
  }
  const highlightWords = [...new Set([...phrases.flat(), ...keptWords])];
  return { terms, allTerms: terms.join(" "), anyTerm: terms.join(" OR "), highlightWords };
}
