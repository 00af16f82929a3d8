/** True when highlight.js knows `language` (a name or alias: `ts`, `bash`, `python`). */
export function isKnownLanguage(language: string): boolean;
/** `code` highlighted as `language` (known: check first), as HTML with `hljs-*` classes; the text is escaped. */
export function highlightCode(code: string, language: string): string;
