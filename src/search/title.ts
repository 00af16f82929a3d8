/**
 * The title shown for a session its tool did not title (issue 11: 65 of 90 corpus sessions had none, or a random slug
 * such as `cuddly-floating-comet`): its first real prompt, on one line and shortened. The index keeps the tool's own
 * title (or null) in `sessions.title`, so ranking never sees this derived text.
 */

/** Longest derived title, in characters (UTF-16 code units); longer prompts are cut at a word boundary with "…". */
export const derivedTitleChars = 80;

/**
 * One-line, shortened title from a prompt: whitespace runs (newlines included) become one space; longer than
 * {@link derivedTitleChars} → cut at the last space after half the limit (or hard, for unspaced scripts) plus "…".
 * Returns null for an empty prompt.
 * Examples: `fix the\nlogin bug` → `fix the login bug`; 120 × `a ` → 39 × `a ` trimmed + `…`; `` → null.
 */
export function titleFromPrompt(prompt: string): string | null {
  const line = prompt.replace(/\s+/g, " ").trim();
  if (line.length === 0) return null;
  if (line.length <= derivedTitleChars) return line;
  const cut = line.slice(0, derivedTitleChars - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space >= derivedTitleChars / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}
