/**
 * Which part of a read_turns range fits one answer (issue 26): the range's text is its turns' texts joined by
 * newlines; a page is a run of it from a position (turn, character), sized so that header, body and marker
 * together stay within the budget. Nothing is skipped: the next page starts exactly where this one stopped.
 * Rendering the pieces is turns-text.ts.
 */

/** Characters [from, to) of the text of turn `index` (an index into the range's turns). */
export interface PagePiece {
  index: number;
  from: number;
  to: number;
}

/** What {@link fillPage} chose. */
export interface Page {
  pieces: PagePiece[];
  /** Where the next page starts (turn index, character in its text); undefined when the range is done. */
  next: { index: number; char: number } | undefined;
  /** Characters of the range's text after this page (the newlines between turns counted). */
  moreChars: number;
}

/**
 * Where to cut text between `start` and `limit` (exclusive, `limit` < text.length), so the page ends on a whole
 * line or word where one is near: just after the last newline in the second half of the room, else just after
 * the last space in its last quarter, else at `limit` (stepping back off a surrogate pair's high half).
 * Always > start. Examples (start 0, limit 10): "aaaaaa\nbbbbbbbb" → 7; "aaaaaaaa bbbbb" → 9; "a".repeat(20) → 10.
 */
function cutAt(text: string, start: number, limit: number): number {
  const newline = text.lastIndexOf("\n", limit - 1);
  if (newline >= start + (limit - start) / 2) return newline + 1;
  const space = text.lastIndexOf(" ", limit - 1);
  if (space >= start + ((limit - start) * 3) / 4) return space + 1;
  const code = text.charCodeAt(limit - 1);
  const isHighSurrogate = code >= 0xd800 && code <= 0xdbff;
  return isHighSurrogate && limit - 1 > start ? limit - 1 : limit;
}

/**
 * The page of `texts` (the rendered turns of a range) that starts at character `fromChar` of the first, with
 * `roomChars` characters for a newline and the body, and, when not all of it fits, for a newline and a marker
 * of at most `markerChars`. Each piece costs `pieceChars` more than its text (the fence lines around its session
 * text, turns-text.ts).
 * 1. Whole turns while they fit.
 * 2. A turn that does not fit is shown in part when it would come first on the page, or when at least a quarter
 *    of the room is still free (so a page is not mostly empty); the cut falls after a line where one is near.
 * Examples (room 100, marker 30): texts of 40 and 40 → both, no next; texts of 40 and 200 → the first, then
 *   characters 0-27 of the second (68 - 40 - 1 = 27 left ≥ a quarter), next (1, 27); one text of 500 → 0-68.
 */
export function fillPage(
  texts: readonly string[],
  fromChar: number,
  roomChars: number,
  markerChars: number,
  pieceChars = 0,
): Page {
  const total = texts.reduce((sum, text) => sum + text.length, 0) + Math.max(0, texts.length - 1);
  const offsetOf = (index: number, char: number) =>
    texts.slice(0, index).reduce((sum, text) => sum + text.length + 1, 0) + char;
  if (texts.length === 0) return { pieces: [], next: undefined, moreChars: 0 };
  if (1 + total - fromChar + texts.length * pieceChars <= roomChars)
    return {
      pieces: texts.map((text, index) => ({ index, from: index === 0 ? fromChar : 0, to: text.length })),
      next: undefined,
      moreChars: 0,
    };
  const fullRoom = roomChars - 1 - 1 - markerChars;
  let room = fullRoom;
  const pieces: PagePiece[] = [];
  let index = 0;
  let char = fromChar;
  while (index < texts.length) {
    const text = texts[index]!;
    const separator = (pieces.length > 0 ? 1 : 0) + pieceChars;
    if (separator + text.length - char <= room) {
      pieces.push({ index, from: char, to: text.length });
      room -= separator + text.length - char;
      index++;
      char = 0;
      continue;
    }
    const free = room - separator;
    if (free > 0 && (pieces.length === 0 || free >= fullRoom / 4)) {
      const end = cutAt(text, char, char + free);
      pieces.push({ index, from: char, to: end });
      char = end;
    }
    break;
  }
  if (index === texts.length) return { pieces, next: undefined, moreChars: 0 };
  return { pieces, next: { index, char }, moreChars: total - offsetOf(index, char) };
}
