/**
 * The output formats `recall search` and `recall export` accept, in a module of their own: the command definitions
 * name them in their flags, and importing them from the renderers would load every renderer (and the search below
 * them) for any command's start-up, `--help` included (issue 42, cold start).
 */

/** Output formats of `recall search`: `full` (every field; the default) or `index` (tens of tokens per result). */
export const searchFormats = ["full", "index"] as const;
/** One of {@link searchFormats}. */
export type SearchFormat = (typeof searchFormats)[number];

/** Formats of `recall export`: one JSON object per line, or a Markdown transcript. */
export const exportFormats = ["jsonl", "markdown"] as const;
