/**
 * HTML built by tagged templates that escape every interpolated value: `html\`<p>${text}</p>\`` escapes `text`
 * (`&`, `<`, `>`, `"`, `'`), so session text can never become markup; a value that is already {@link SafeHtml}
 * (another template's result, the Markdown renderer's output) is inserted as it is, and an array is joined.
 * Control characters are shown as `\xNN` (render/escapes.ts), as in the terminal.
 */
import { neutralizeControls } from "../render/escapes.ts";

/** Markup that is safe to insert: built by {@link html} or {@link trustedHtml}. */
export class SafeHtml {
  constructor(readonly markup: string) {}
  toString(): string {
    return this.markup;
  }
}

const entities: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };

/** `text` escaped for HTML text and quoted attribute values. Example: `<a href="x">` → `&lt;a href=&quot;x&quot;&gt;`. */
export function escapeHtml(text: string): string {
  return neutralizeControls(text).replace(/[&<>"']/g, (char) => entities[char]!);
}

/** An interpolated value as markup: SafeHtml as is, arrays joined, null/undefined/false empty, the rest escaped. */
function markupOf(value: unknown): string {
  if (value instanceof SafeHtml) return value.markup;
  if (Array.isArray(value)) return value.map(markupOf).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

/** The tag of the templates: literal parts kept, values escaped ({@link markupOf}). */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let out = strings[0]!;
  for (let index = 0; index < values.length; index++) out += markupOf(values[index]) + strings[index + 1]!;
  return new SafeHtml(out);
}

/** Markup produced by a trusted renderer (markdown.ts), inserted unescaped. Never call it on session text. */
export function trustedHtml(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** A URL with query parameters (empty values left out), for links that keep the page's state. */
export function urlWith(path: string, params: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== "") query.set(name, String(value));
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}
