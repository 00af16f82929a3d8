// highlight.js behind a small typed surface (code-highlight.d.ts): its own type declarations pull the DOM library
// into the whole TypeScript program (`/// <reference lib="dom" />`), which clashes with Bun's types, so TypeScript
// sees only the declaration file beside this one.
import hljs from "highlight.js/lib/common";

/** True when highlight.js knows `language` (a name or alias: `ts`, `bash`, `python`). */
export function isKnownLanguage(language) {
  return hljs.getLanguage(language) !== undefined;
}

/** `code` highlighted as `language` (known: check first), as HTML with `hljs-*` classes; the text is escaped. */
export function highlightCode(code, language) {
  return hljs.highlight(code, { language, ignoreIllegals: true }).value;
}
