/**
 * Terminal column arithmetic for the picker: how many cells a text takes (CJK and emoji take two), cutting a text to
 * a width with `…`, padding to a width, and the short relative dates of the rows ("3 d ago").
 * Widths come from `Bun.stringWidth` (Unicode East Asian Width and emoji presentation, as terminals draw them);
 * cuts fall between grapheme clusters (`Intl.Segmenter`), never inside one.
 */

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Cells `text` takes in a terminal: `"ab"` → 2, `"调度"` → 4, `"🐳"` → 2. Control characters count 0. */
export function cellWidth(text: string): number {
  return Bun.stringWidth(text);
}

/**
 * `text` cut to at most `width` cells, ending with `…` when cut; whitespace runs (newlines included) become one space.
 * Examples: `("docker network", 8)` → `"docker …"`; `("调度器介入", 5)` → `"调度…"`; `("ab", 0)` → `""`.
 */
export function fitWidth(text: string, width: number): string {
  const flat = text.replace(/\s+/g, " ");
  if (width <= 0) return "";
  if (cellWidth(flat) <= width) return flat;
  let used = 0;
  let out = "";
  for (const { segment } of graphemes.segment(flat)) {
    const cells = cellWidth(segment);
    if (used + cells > width - 1) break;
    out += segment;
    used += cells;
  }
  return `${out}…`;
}

/** `text` fitted to `width` cells ({@link fitWidth}) and padded with spaces to exactly `width` cells. */
export function padWidth(text: string, width: number): string {
  const fitted = fitWidth(text, width);
  return fitted + " ".repeat(Math.max(0, width - cellWidth(fitted)));
}

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

/**
 * How long ago `thenMs` was, in at most 8 cells: `now`, `5 min ago`, `3 h ago`, `3 d ago`, `5 w ago`, `8 mo ago`,
 * `2 y ago` (months of 30 days, years of 365; a time in the future reads `now`).
 * @param thenMs, nowMs epoch ms
 */
export function relativeDate(thenMs: number, nowMs: number): string {
  const elapsed = Math.max(0, nowMs - thenMs);
  if (elapsed < minute) return "now";
  if (elapsed < hour) return `${Math.floor(elapsed / minute)} min ago`;
  if (elapsed < day) return `${Math.floor(elapsed / hour)} h ago`;
  if (elapsed < 14 * day) return `${Math.floor(elapsed / day)} d ago`;
  if (elapsed < 60 * day) return `${Math.floor(elapsed / (7 * day))} w ago`;
  if (elapsed < 365 * day) return `${Math.floor(elapsed / (30 * day))} mo ago`;
  return `${Math.floor(elapsed / (365 * day))} y ago`;
}

/** Spaces at the end of a row, before any colour escapes that close it. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: colour escapes are what the spaces sit before
const trailingSpaces = / +((?:\u001b\[[0-9;]*m)*)$/;

/** Spaces at the start of a row, after any colour escapes that open it. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: colour escapes are what the spaces sit after
const leadingSpaces = /^((?:\u001b\[[0-9;]*m)*) +/;

/**
 * Lines cut into rows of at most `columns` cells, for reading in place: long lines wrap at spaces (hard-wrapped when a
 * word is longer than a row), colour escapes carried over to each row (`Bun.wrapAnsi`, as wrap-ansi does). A line's
 * indentation stays on its first row; no row it continues on starts or ends with a space.
 * Examples: `["one two three"]`, 8 → `["one two", "three"]`; `["one two three"]`, 7 → `["one two", "three"]`.
 */
export function wrapToWidth(lines: readonly string[], columns: number): string[] {
  const width = Math.max(1, columns);
  // trim: false keeps a line's indentation (tool calls are indented); the spaces a break leaves go, at a row's end
  // or, when the word before the break filled its row exactly, at the next row's start.
  return lines.flatMap((line) =>
    cellWidth(line) <= width
      ? [line]
      : Bun.wrapAnsi(line, width, { hard: true, trim: false })
          .split("\n")
          .map((row, index) => (index === 0 ? row : row.replace(leadingSpaces, "$1")).replace(trailingSpaces, "$1")),
  );
}
