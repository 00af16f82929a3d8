/**
 * Secret redaction (issue 9): every text recall stores, embeds, sends to a remote endpoint or prints passes
 * through here first. The redaction layer sits beside the parsers (it knows the normalized model, nothing
 * above it) and is applied by the index's parse pipeline and by the level-3 reader.
 *
 * Placeholder surface, fixed so the archive and the parse pipeline can be built against it at the same
 * time; the secret-pattern library and the entropy rule land behind these two functions.
 */
import type { ParseResult } from "../parsers/index.ts";

/** Returns `text` with every secret replaced by a `[REDACTED:<kind>]` marker; unchanged when there is none. */
export function redactText(text: string): string {
  return text;
}

/**
 * Returns a copy of a parse result whose title, prompts, responses, tool inputs and tool outputs are
 * redacted with {@link redactText}; the input is not modified.
 */
export function redactParseResult(result: ParseResult): ParseResult {
  return result;
}
