/**
 * `node:util`'s `inspect` as cmd-ts's `oneOf` sees it in the binary (./plugin.ts): a plain word (letters, digits, `_`,
 * `-`, `.`, `:`, `/`, space) is quoted as `inspect` quotes it, `'word'`; anything else, which would need escapes or
 * another quote, goes to `inspect` itself, loaded then.
 */

const plainWord = /^[\w .:/-]*$/;

/** `util.inspect(value)` (see the file comment). */
export function inspect(value: unknown): string {
  if (typeof value === "string" && plainWord.test(value)) return `'${value}'`;
  return (require("node:util") as typeof import("node:util")).inspect(value);
}
