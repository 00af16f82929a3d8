/**
 * A preview's text cut at its match edges (no imports: render/ uses it on every text search result without loading the
 * preview builder or the parsers behind it).
 */
import type { Preview } from "./preview.ts";

/** A run of a preview's text, inside a match or between matches. */
export interface PreviewPiece {
  text: string;
  matched: boolean;
}

/**
 * A preview cut at the edges of its matches, in order (a span that starts inside an earlier one is skipped), for
 * front ends that mark matches their own way (terminal colours, `<mark>`, Ink text). Empty text between matches is
 * left out; every match is a piece.
 * Example: `{text: "the docker bridge", highlights: [[4, 10]]}` → `the ` · `docker` (matched) · ` bridge`.
 */
export function previewPieces(preview: Preview): PreviewPiece[] {
  const pieces: PreviewPiece[] = [];
  const push = (text: string, matched: boolean) => {
    if (text || matched) pieces.push({ text, matched });
  };
  let at = 0;
  for (const [start, end] of preview.highlights) {
    if (start < at) continue;
    push(preview.text.slice(at, start), false);
    push(preview.text.slice(start, end), true);
    at = end;
  }
  push(preview.text.slice(at), false);
  return pieces;
}
