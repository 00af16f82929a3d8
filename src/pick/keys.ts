/**
 * The picker's keys, as one table from a key press to an action, and the query line's editing. Pure: the screen
 * (app.tsx) maps Ink's key events through {@link actionOf} and applies the action.
 *
 * Keys (issue 28): typing edits the query; ↑/↓ and Ctrl-P/Ctrl-N move; PgUp/PgDn move a page; Home/End go to the first
 * and last row; Tab shows the selected session's matching turns (level 2) and back; Ctrl-O reads the selected turns in
 * place (level 3), Ctrl-G in $PAGER; Enter resumes; Esc goes back one level and quits from the session list; Ctrl-C
 * quits anywhere. In the query line: ←/→ move the cursor, Ctrl-A/Ctrl-E to its start and end, Backspace and Delete,
 * Ctrl-W deletes the word before the cursor, Ctrl-U the whole query.
 */
import type { Key } from "ink";

/** What a key press asks for. */
export type PickAction =
  | { kind: "edit"; edit: QueryEdit }
  | { kind: "move"; by: number }
  | { kind: "page"; by: -1 | 1 }
  | { kind: "first" }
  | { kind: "last" }
  | { kind: "toggle-turns" }
  | { kind: "read" }
  | { kind: "pager" }
  | { kind: "resume" }
  | { kind: "back" }
  | { kind: "quit" }
  | { kind: "none" };

/** An edit of the query line. */
export type QueryEdit =
  | { kind: "insert"; text: string }
  | { kind: "backspace" }
  | { kind: "delete" }
  | { kind: "delete-word" }
  | { kind: "clear" }
  | { kind: "cursor"; to: "left" | "right" | "start" | "end" };

/** The query line: its text and the cursor's position in it (a UTF-16 index, between 0 and `text.length`). */
export interface QueryLine {
  text: string;
  cursor: number;
}

/**
 * The action of a key press (Ink's `useInput` arguments).
 * Examples: `("n", {ctrl})` → move +1; `("", {tab})` → toggle-turns; `("é", {})` → insert "é"; `("\u001b[Z", …)` → none.
 */
export function actionOf(input: string, key: Key): PickAction {
  if (key.ctrl) {
    switch (input) {
      case "c":
        return { kind: "quit" };
      case "n":
        return { kind: "move", by: 1 };
      case "p":
        return { kind: "move", by: -1 };
      case "o":
        return { kind: "read" };
      case "g":
        return { kind: "pager" };
      case "a":
        return { kind: "edit", edit: { kind: "cursor", to: "start" } };
      case "e":
        return { kind: "edit", edit: { kind: "cursor", to: "end" } };
      case "w":
        return { kind: "edit", edit: { kind: "delete-word" } };
      case "u":
        return { kind: "edit", edit: { kind: "clear" } };
      case "h":
        return { kind: "edit", edit: { kind: "backspace" } };
      default:
        return { kind: "none" };
    }
  }
  if (key.return) return { kind: "resume" };
  if (key.escape) return { kind: "back" };
  if (key.tab) return { kind: "toggle-turns" };
  if (key.upArrow) return { kind: "move", by: -1 };
  if (key.downArrow) return { kind: "move", by: 1 };
  if (key.pageUp) return { kind: "page", by: -1 };
  if (key.pageDown) return { kind: "page", by: 1 };
  if (key.home) return { kind: "first" };
  if (key.end) return { kind: "last" };
  if (key.leftArrow) return { kind: "edit", edit: { kind: "cursor", to: "left" } };
  if (key.rightArrow) return { kind: "edit", edit: { kind: "cursor", to: "right" } };
  if (key.backspace) return { kind: "edit", edit: { kind: "backspace" } };
  if (key.delete) return { kind: "edit", edit: { kind: "delete" } };
  if (key.meta) return { kind: "none" };
  // Printable text only (a paste arrives as one input).
  const text = printableText(input);
  return text ? { kind: "edit", edit: { kind: "insert", text } } : { kind: "none" };
}

/**
 * `text` without control characters (C0, DEL, C1): what may enter the query line, typed, pasted or given on the
 * command line. Example: `"a\u001b[31mb\u0007"` → `"a[31mb"`.
 */
export function printableText(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: removing control characters is the point
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, "");
}

const graphemes = new Intl.Segmenter(undefined, { granularity: "grapheme" });

/** Start of the grapheme before `index` (so ← and Backspace never split an emoji or an accented letter). */
function previousBoundary(text: string, index: number): number {
  let boundary = 0;
  for (const { index: start } of graphemes.segment(text)) {
    if (start >= index) break;
    boundary = start;
  }
  return boundary;
}

/** End of the grapheme at `index`. */
function nextBoundary(text: string, index: number): number {
  for (const { index: start, segment } of graphemes.segment(text)) if (start >= index) return start + segment.length;
  return text.length;
}

/**
 * The query line after an edit. Examples (`|` is the cursor): `do|` + insert "ck" → `dock|`; `docker net|` +
 * delete-word → `docker |`; `a|b` + backspace → `|b`; `|ab` + cursor right → `a|b`.
 */
export function editQuery(line: QueryLine, edit: QueryEdit): QueryLine {
  const { text, cursor } = line;
  switch (edit.kind) {
    case "insert":
      return { text: text.slice(0, cursor) + edit.text + text.slice(cursor), cursor: cursor + edit.text.length };
    case "backspace": {
      if (cursor === 0) return line;
      const start = previousBoundary(text, cursor);
      return { text: text.slice(0, start) + text.slice(cursor), cursor: start };
    }
    case "delete":
      return cursor >= text.length
        ? line
        : { text: text.slice(0, cursor) + text.slice(nextBoundary(text, cursor)), cursor };
    case "delete-word": {
      const before = text.slice(0, cursor).replace(/\S*\s*$/, "");
      return { text: before + text.slice(cursor), cursor: before.length };
    }
    case "clear":
      return { text: "", cursor: 0 };
    case "cursor": {
      const to =
        edit.to === "start"
          ? 0
          : edit.to === "end"
            ? text.length
            : edit.to === "left"
              ? previousBoundary(text, cursor)
              : nextBoundary(text, cursor);
      return { text, cursor: to };
    }
    default:
      return edit satisfies never;
  }
}

/**
 * A selection moved by `by` rows within `count` rows, clamped to the first and last (0 when there are none).
 * Examples: (3, +1, 10) → 4; (0, −1, 10) → 0; (8, +5, 10) → 9.
 */
export function moveSelection(selected: number, by: number, count: number): number {
  return count === 0 ? 0 : Math.min(count - 1, Math.max(0, selected + by));
}
