/**
 * HTML built by tagged templates that escape every interpolated value: `html\`<p>${text}</p>\`` escapes `text`
 * (`&`, `<`, `>`, `"`, `'`), so session text can never become markup; a value that is already {@link SafeHtml}
 * (another template's result, the Markdown renderer's output) is inserted as it is, and an array is joined.
 * Control characters are shown as `\xNN` (render/escapes.ts), as in the terminal.
 */
import { jsonLine, neutralizeControls } from "../render/escapes.ts";

/** Markup that is safe to insert: built by {@link html}, {@link jsonScriptData} or sanitize.ts's `sanitizedHtml`. */
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

/**
 * `value` as JSON for the inside of a `<script type="application/json">` block: `<` written as `\u003c`, so no text in
 * the data (a project named `</script>`) can end the block, and every control character as `\u00NN` (JSON.stringify
 * leaves DEL and U+0080–U+009F raw; render/escapes.ts jsonLine escapes them). The block is data: the
 * Content-Security-Policy never runs it.
 */
export function jsonScriptData(value: unknown): SafeHtml {
  return new SafeHtml(jsonLine(value).replace(/</g, "\\u003c"));
}

/** A URL with query parameters (empty values left out), for links that keep the page's state. */
export function urlWith(path: string, params: Record<string, string | number | undefined>): string {
  const query = new URLSearchParams();
  for (const [name, value] of Object.entries(params))
    if (value !== undefined && value !== "") query.set(name, String(value));
  const text = query.toString();
  return text ? `${path}?${text}` : path;
}
