/**
 * The shape of a query (issue 27): how much of it is identifiers and how much is natural language, which decides how
 * far hybrid search leans on the semantic leg. An identifier (a path, a snake_case or camelCase name, a flag, an
 * error code, a hash, a version, a quoted exact phrase) is found by its exact characters, and an embedding of it is
 * near many unrelated texts; a natural-language question is what the semantic leg is for. The rule, one for every
 * model:
 *
 *   semantic share = (1 − identifier share) × length factor
 *   identifier share = identifier-like chunks / content chunks (whitespace-separated, stop words and punctuation left
 *                      out; a quoted span counts as one identifier; a run of Chinese or Japanese as one word per two
 *                      characters)
 *   length factor    = min(1, (content chunks − 1) / 3): 0 for one word, 1/3 for two, 2/3 for three, 1 from four
 *
 * and hybrid fusion uses the model's calibrated vector weight × semantic share (api.ts). So `ERR_MODULE_NOT_FOUND`,
 * `src/index/plan.ts` or `gunicorn` rank as keyword-only (the semantic leg still adds candidates below them), and "how
 * did we stop the container losing its network" gets the model's whole weight. Measured on the labelled queries
 * (scripts/calibrate-confidence.ts prints it): every keyword-kind query there has a share of at most 1/3.
 */
import { stopWords } from "./query.ts";

/** Letters of scripts written without spaces between words (Han, Hiragana, Katakana, Thai…). */
const unsegmented =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/gu;

/** What {@link queryShape} finds. */
export interface QueryShape {
  /** Content chunks: whitespace-separated pieces with a letter or digit, minus stop words; a quoted span is one. */
  chunks: number;
  /** Of those, the identifier-like ones. */
  identifiers: number;
  /** 0–1: the share of the model's vector weight hybrid search gives this query (see the module doc). */
  semanticShare: number;
}

/**
 * True for a chunk written like an identifier rather than a word:
 * `snake_case`, `kebab-case-name`, `camelCase`, `PascalCase2`, `path/to/file.ts`, `file.ts`, `--flag`, `@scope/pkg`,
 * `db:generate`, `Foo::bar`, `E0502`, `TS2345`, `v1.2.3`, `7acd37a` (letters and digits mixed), `ALL_CAPS`, `#1234`.
 * Not: `docker`, `Docker` (one capital), `don't`, `e-mail`-style words of two short letter parts, `2024`, `10:30`.
 */
export function isIdentifierLike(chunk: string): boolean {
  const word = chunk.replace(/^[("'`[{<]+|[)"'`\]}>,;!?.:]+$/g, "");
  if (!/[\p{L}\p{N}]/u.test(word)) return false;
  if (/^#\d+$/.test(word)) return true; // an issue or PR number
  if (/^\d+([:.,/-]\d+)*$/.test(word)) return false; // a number, time or date
  if (/^(--?|@)[\p{L}\p{N}]/u.test(word)) return true; // a flag or a scoped package
  if (/[_/\\]|::|(?<=\p{L}):(?=\p{L})/u.test(word)) return true; // snake_case, a path, a namespace, db:generate
  if (/\p{L}\.\p{L}/u.test(word) && !/^(\p{L}\.)+\p{L}?$/u.test(word)) return true; // file.ts, a.b.c (not e.g.)
  if (/\p{Ll}\p{Lu}/u.test(word)) return true; // camelCase, PascalCase
  if (/\p{L}/u.test(word) && /\d/.test(word) && !/^\d+(st|nd|rd|th|s|k|m|g|gb|mb|kb|ms|px)$/i.test(word)) return true;
  if (/^\p{Lu}{2,}\d*$/u.test(word) && word.length >= 2) return false; // an acronym: API, JSON, SQL
  const parts = word.split("-");
  return parts.length >= 3 && parts.every((part) => /^[\p{L}\p{N}]+$/u.test(part)); // kebab-case of three parts
}

/**
 * The shape of `text` (see the module doc). Examples:
 *   `gunicorn` → chunks 1, identifiers 0, share 0;  `ERR_MODULE_NOT_FOUND` → 1, 1, 0;
 *   `fix src/index/plan.ts` → 2, 1, 0.17;  `how did we stop the container losing its network` → 5, 0, 1.
 */
export function queryShape(text: string): QueryShape {
  const quoted = text.match(/"[^"]+"/g) ?? [];
  const rest = text.replace(/"[^"]+"/g, " ");
  const content = rest
    .split(/\s+/)
    .filter((chunk) => /[\p{L}\p{N}]/u.test(chunk))
    .filter((chunk) => !stopWords.has(chunk.toLowerCase().replace(/[^\p{L}\p{N}']/gu, "")));
  // A run of Chinese or Japanese (no spaces between words) counts as one word per two characters.
  const unsegmentedWords = (chunk: string) => Math.floor((chunk.match(unsegmented) ?? []).length / 2);
  const chunks = content.reduce((sum, chunk) => sum + Math.max(1, unsegmentedWords(chunk)), 0) + quoted.length;
  if (chunks === 0) return { chunks: 0, identifiers: 0, semanticShare: 0 };
  const identifiers =
    content.filter((chunk) => unsegmentedWords(chunk) === 0 && isIdentifierLike(chunk)).length + quoted.length;
  const lengthFactor = Math.min(1, (chunks - 1) / 3);
  return { chunks, identifiers, semanticShare: (1 - identifiers / chunks) * lengthFactor };
}
