/**
 * The one allow-list every HTML fragment built from session text passes through before it reaches a page (issue 37):
 * the Markdown renderer's and highlight.js's output (markdown.ts). The renderer already escapes what it does not build
 * itself; this is the second wall, so a renderer bug (marked 18 stopped escaping code spans, and a `<meta
 * http-equiv=refresh>` in a prompt took the tab elsewhere) still cannot emit live markup. sanitize-html (a parser, not
 * a regular expression) keeps only the tags, attributes and classes listed here and escapes every other tag as text;
 * links keep only http, https and mailto targets, in-page anchors and paths of this server. Control characters left
 * in the text are shown as `\xNN` (render/escapes.ts), as `recall show` prints them.
 */
import sanitizeHtml from "sanitize-html";
import { neutralizeControls } from "../render/escapes.ts";
import { SafeHtml } from "./html.ts";

/**
 * What marked (GFM) and highlight.js emit, and nothing else. Classes: highlight.js 11 writes `hljs-<scope>` and
 * sub-scopes with a trailing underscore (`hljs-title function_`, `class_ inherited__`), per its "scopes" reference.
 */
const options: sanitizeHtml.IOptions = {
  allowedTags: [
    "p",
    "br",
    "hr",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "ul",
    "ol",
    "li",
    "input",
    "pre",
    "code",
    "span",
    "em",
    "strong",
    "del",
    "a",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
  ],
  allowedAttributes: {
    a: ["href", "title", "rel", "target"],
    ol: ["start"],
    th: [{ name: "align", multiple: false, values: ["left", "center", "right"] }],
    td: [{ name: "align", multiple: false, values: ["left", "center", "right"] }],
    // A GFM task list item's box: `- [x] done`.
    input: [{ name: "type", multiple: false, values: ["checkbox"] }, "checked", "disabled"],
    pre: ["class"],
    code: ["class"],
    span: ["class"],
  },
  allowedClasses: {
    pre: ["code"],
    code: ["hljs", "language-*"],
    span: ["hljs-*", "*_"],
  },
  allowedSchemes: ["http", "https", "mailto"],
  allowedSchemesAppliedToAttributes: ["href"],
  allowProtocolRelative: false,
  // Anything else is shown as the text it was, as the renderer shows raw HTML.
  disallowedTagsMode: "escape",
};

/**
 * `markup` cut down to the allow-list above, as {@link SafeHtml}. Example: `<code><meta http-equiv="refresh"></code>`
 * → `<code>&lt;meta http-equiv="refresh"&gt;</code>`; `<a href="javascript:x">y</a>` → `<a>y</a>`. Never throws.
 */
export function sanitizedHtml(markup: string): SafeHtml {
  return new SafeHtml(neutralizeControls(sanitizeHtml(markup, options)));
}
