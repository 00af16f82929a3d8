/**
 * Word boundaries between scripts (issue 38, item 1). FTS5 `unicode61` treats every letter and digit as a token
 * character, so Latin glued to Chinese text (`我本地安装了kimi-cli`, `前端为什么一打开vim就会退出`) is indexed as one
 * token (`我本地安装了kimi`) and a search for `kimi-cli` or `vim` finds nothing. A run of Latin letters or digits is
 * a word wherever it stands, so document text (index/write/documents.ts) and query text (search/ranking/query.ts) both get a
 * space where such a run meets a letter of a script written without spaces.
 */

/** The scripts written without spaces between words (or, for Hangul, with particles glued on), as a class body. */
const unsegmentedScripts =
  "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}\\p{Script=Thai}\\p{Script=Lao}\\p{Script=Khmer}\\p{Script=Myanmar}\\p{Script=Tibetan}";

/** One letter of a script written without spaces between words (or, for Hangul, with particles glued on). */
export const unsegmentedLetter = new RegExp(`[${unsegmentedScripts}]`, "u");

/**
 * A letter on the unsegmented side of a boundary: a letter of those scripts, or the katakana prolonged sound mark
 * (`ー` U+30FC, half-width `ｰ` U+FF70: Unicode gives them the Common script, and they end words such as `サーバー`).
 * Digits of those scripts (Thai `๒`) are not letters: they sit on the other side.
 */
const unsegmentedSide = `(?=\\p{L})[${unsegmentedScripts}\\u30fc\\uff70]`;

/** A Latin letter (full-width ones too) or a decimal digit of any script. */
const latinSide = "[\\p{Script=Latin}\\p{Nd}]";

/**
 * Regular-expression source of one character of a word that ends at a script boundary: a letter or digit that is not
 * on the unsegmented side. `(?<!X)word(X)*` with X this finds `vim` in `一打开vim就会退出` (search/reading/preview.ts).
 */
export const segmentedWordCharacter = `(?:(?!${unsegmentedSide})[\\p{L}\\p{N}])`;

const boundary = new RegExp(`(?<=${unsegmentedSide})(?=${latinSide})|(?<=${latinSide})(?=${unsegmentedSide})`, "gu");

/**
 * `text` with a space inserted wherever a Latin letter or digit meets a letter of an unsegmented script; text
 * without such a letter is returned as it is (one scan). Combining marks are neither side, so `café` and Thai vowel
 * signs are not split.
 *   `"我本地安装了kimi-cli 帮我"` → `"我本地安装了 kimi-cli 帮我"`;  `"前端为什么一打开vim就会退出"` →
 *   `"前端为什么一打开 vim 就会退出"`;  `"サーバーnginx"` → `"サーバー nginx"`;  `"第3章"` → `"第 3 章"`;
 *   `"plain English 42"` → unchanged
 */
export function spaceScriptBoundaries(text: string): string {
  return unsegmentedLetter.test(text) ? text.replace(boundary, " ") : text;
}
