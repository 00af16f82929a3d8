/**
 * The title shown for a session its tool did not title (issue 11: 65 of 90 corpus sessions had none, or a random slug
 * such as `cuddly-floating-comet`): its first real prompt as the person typed it (issue 26: without the wrapper blocks
 * IDE extensions inject, parsers/shared/typed-text.ts), on one line and shortened. Stored in `sessions.derived_title`
 * when the session is written; `sessions.title` keeps the tool's own title (or null), so ranking never sees this text.
 */
import { typedText } from "../../parsers/index.ts";

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

/**
 * The derived title of a session from its main turns' prompts, in turn order: the first prompt with typed text that
 * is not a slash command and has at least 3 characters, else the first with any typed text; null when none has any.
 * Examples: [`/model`, `<ide_opened_file>…</ide_opened_file>fix login`] → `fix login`; [`/init`] → `/init`; [] → null.
 */
export function derivedTitleOf(prompts: readonly string[]): string | null {
  let fallback: string | null = null;
  for (const prompt of prompts) {
    const typed = typedText(prompt);
    if (typed.length === 0) continue;
    if (!typed.startsWith("/") && typed.length >= 3) return titleFromPrompt(typed);
    fallback ??= titleFromPrompt(typed);
  }
  return fallback;
}
