/**
 * Markdown of prompts and answers as safe HTML (marked, with highlight.js for fenced code). Nothing from a session can
 * become live markup or script: raw HTML blocks, inline tags and code spans are shown as text, links keep only http(s), mailto and
 * in-page targets (a `javascript:` or `data:` link, or a file path, becomes its text), images become links (no request leaves the
 * machine: the page's Content-Security-Policy would block them anyway), and code is highlighted only for a language
 * highlight.js knows by the fence's name (no guessing, which is slow on long outputs). Every fragment then passes
 * through the allow-list of sanitize.ts, so a renderer that escapes less than it should still emits no live markup.
 */
import { highlightCode, isKnownLanguage } from "./code-highlight.js";
import { Marked, type Tokens } from "marked";
import { escapeHtml, type SafeHtml } from "./html.ts";
import { sanitizedHtml } from "./sanitize.ts";

/**
 * Link targets kept as links: web pages, mail and anchors within the page. Any other target becomes its text: a path
 * (`/Users/me/x.go#L307`, `../README.md`) names a file on the user's disk, and as a link it resolved against the web
 * view and opened its 404 page (issue 38).
 */
const safeHref = /^(https?:|mailto:|#)/i;

const marked = new Marked({
  gfm: true,
  breaks: false,
  renderer: {
    html(token: Tokens.HTML | Tokens.Tag): string {
      return escapeHtml(token.text);
    },
    link(token: Tokens.Link): string {
      const text = this.parser.parseInline(token.tokens);
      const href = token.href.trim();
      if (!safeHref.test(href)) return text;
      return `<a href="${escapeHtml(href)}" rel="noopener noreferrer nofollow" target="_blank">${text}</a>`;
    },
    image(token: Tokens.Image): string {
      const href = token.href.trim();
      const label = escapeHtml(token.text || href);
      return safeHref.test(href)
        ? `<a href="${escapeHtml(href)}" rel="noopener noreferrer nofollow" target="_blank">[image: ${label}]</a>`
        : `[image: ${label}]`;
    },
    code(token: Tokens.Code): string {
      const language = (token.lang ?? "").trim().split(/\s+/)[0]!.toLowerCase();
      const known = language && isKnownLanguage(language) ? language : undefined;
      const body = known ? highlightCode(token.text, known) : escapeHtml(token.text);
      return `<pre class="code"><code class="hljs${known ? ` language-${escapeHtml(known)}` : ""}">${body}</code></pre>`;
    },
    codespan(token: Tokens.Codespan): string {
      // marked 18 hands the code span's text as it was written, not escaped.
      return `<code>${escapeHtml(token.text)}</code>`;
    },
  },
});

/** `text` (Markdown) as HTML; a text marked cannot read is shown escaped in a paragraph. */
export function markdownHtml(text: string): SafeHtml {
  try {
    return sanitizedHtml(marked.parse(text, { async: false }) as string);
  } catch {
    return sanitizedHtml(`<p>${escapeHtml(text)}</p>`);
  }
}

/** Code as highlighted HTML (a tool's input or output), in `language` when highlight.js knows it, else plain. */
export function codeHtml(text: string, language?: string): SafeHtml {
  const known = language && isKnownLanguage(language) ? language : undefined;
  const body = known ? highlightCode(text, known) : escapeHtml(text);
  return sanitizedHtml(`<pre class="code"><code class="hljs">${body}</code></pre>`);
}
