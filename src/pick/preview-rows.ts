/**
 * The preview pane's texts as terminal rows: a turn's prompt or answer with the query's words highlighted (SGR
 * escapes), word-wrapped to the pane's width by {@link wrapToWidth}. Wrapped here, not by Ink's `wrap="wrap"`: that
 * one starts a row with the space its break fell on whenever a word fills the row above exactly.
 */
import type { Preview } from "../search/index.ts";
import { previewPieces } from "../search/reading/preview-pieces.ts";
import { wrapToWidth } from "./columns.ts";

/** How a matched word is marked: yellow and bold with colours, bold and underlined without (NO_COLOR). */
const marks = {
  colors: { open: "\u001b[1;33m", close: "\u001b[22;39m" },
  plain: { open: "\u001b[1;4m", close: "\u001b[22;24m" },
} as const;

/** What {@link highlightedRows} draws besides the preview itself. */
export interface RowsOptions {
  /** Terminal cells per row (at least 1). */
  width: number;
  /** Colours on (else matches are bold and underlined, the prefix plain). */
  colors: boolean;
  /** Most characters of the preview's text shown (the pane shows a few rows; a long answer is cut here first). */
  limit: number;
  /** Text before the preview on its first row, drawn cyan with colours (the prompt's `› `). */
  prefix?: string;
}

/**
 * `preview`'s first `limit` characters with its matches marked, cut into rows of at most `width` cells; no row but
 * the first starts with a space. Example: `{text: "one two three", highlights: []}`, width 7 → `["one two", "three"]`.
 */
export function highlightedRows(preview: Preview, options: RowsOptions): string[] {
  const mark = options.colors ? marks.colors : marks.plain;
  let text = "";
  let used = 0;
  for (const piece of previewPieces(preview)) {
    if (used >= options.limit) break;
    const part = piece.text.slice(0, options.limit - used);
    text += piece.matched ? `${mark.open}${part}${mark.close}` : part;
    used += part.length;
  }
  const prefix = options.prefix && options.colors ? `\u001b[36m${options.prefix}\u001b[39m` : (options.prefix ?? "");
  return wrapToWidth((prefix + text).split("\n"), options.width);
}
