/**
 * Output safety for text that came from sessions (issue 9): a transcript can hold terminal control
 * sequences (OSC `ESC ] 0;title BEL` retitles the window, `ESC [2J` clears the screen, C1 `CSI` does the
 * same in one code point), and printing them raw lets a session drive the reader's terminal. Text output
 * shows every C0/C1 control except newline and tab as `\xNN`, the same form `recall export` uses;
 * recall's own colours are added after this, so they still work. JSON output escapes them too.
 * Bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069) are shown as `\uNNNN`: they
 * reorder what a terminal or a page displays, so code can read differently from what it is (Trojan Source,
 * CVE-2021-42574, Boucher and Anderson 2021). Right-to-left letters and the marks U+200E/U+200F stay text.
 */

/** C0 controls except tab and newline, DEL, and C1 controls (U+0080–U+009F). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: neutralizing terminal control characters is this module's job
const controls = /[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g;

/** Bidirectional embeddings, overrides (U+202A–U+202E) and isolates (U+2066–U+2069). */
const bidiControls = /[\u202A-\u202E\u2066-\u2069]/g;

const hexOf = (char: string): string => `\\x${char.charCodeAt(0).toString(16).padStart(2, "0")}`;
const unicodeOf = (char: string): string => `\\u${char.charCodeAt(0).toString(16)}`;

/**
 * `text` with control characters shown as `\xNN` (newline and tab kept; a CR of a CRLF line end dropped) and
 * bidirectional controls as `\uNNNN`.
 * Examples: `"\u001b]0;pwned\u0007"` → `"\x1b]0;pwned\x07"`; `"a\r\nb"` → `"a\nb"`; `"a\rb"` → `"a\x0db"`;
 * `"a\u202eb"` → `"a\u202eb"` (six characters between a and b).
 */
export function neutralizeControls(text: string): string {
  controls.lastIndex = 0;
  bidiControls.lastIndex = 0;
  const hasControls = controls.test(text);
  const hasBidi = bidiControls.test(text);
  if (!hasControls && !hasBidi) return text;
  const plain = hasControls ? text.replace(/\r\n/g, "\n").replace(controls, hexOf) : text;
  return hasBidi ? plain.replace(bidiControls, unicodeOf) : plain;
}

/**
 * A copy of `value` with {@link neutralizeControls} applied to every string inside it (objects and arrays
 * are copied, other values kept), except under the keys in `skip` (e.g. previews whose highlight offsets
 * refer to the raw text; the caller neutralizes those piecewise).
 */
export function neutralizeStrings<T>(value: T, skip: ReadonlySet<string> = new Set()): T {
  if (typeof value === "string") return neutralizeControls(value) as T;
  if (Array.isArray(value)) return value.map((item) => neutralizeStrings(item, skip)) as T;
  if (value !== null && typeof value === "object") {
    const out: Record<string, unknown> = {};
    for (const key in value) {
      const item = (value as Record<string, unknown>)[key];
      out[key] = skip.has(key) ? item : neutralizeStrings(item, skip);
    }
    return out as T;
  }
  return value;
}

/**
 * `JSON.stringify(value)` with DEL, the C1 controls and the bidirectional controls escaped as `\uNNNN` as well:
 * JSON.stringify escapes only U+0000–U+001F, and a terminal that shows the JSON would act on a raw U+009B (CSI) or
 * reorder the line at a U+202E. Still valid JSON with the same value.
 */
export function jsonLine(value: unknown): string {
  return JSON.stringify(value).replace(
    /[\u007F-\u009F\u202A-\u202E\u2066-\u2069]/g,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );
}

/**
 * An error's message as one line for a person (a status line, a page, stderr): its first line, control characters shown
 * as `\xNN` (a message can quote session text or file names); never a stack. Example: `new Error("a\nb")` → `"a"`.
 */
export function errorLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return neutralizeControls(message.split("\n")[0] ?? "");
}
