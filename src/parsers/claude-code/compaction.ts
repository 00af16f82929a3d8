/**
 * What Claude Code writes about a session besides its title (issue 41; docs/formats.md §1.3, §1.7, §1.8), as abstract
 * parts: the compaction summary (a `user` line with `isCompactSummary: true` after a `compact_boundary`, 2.x), the
 * summary an `agent-acompact-*` run answered with, and `away_summary` recaps (a `system` line, 2.1.8x+, "… (disable
 * recaps in /config)"). The summary texts are wrapped in instructions to the model, cut here: the corpus file
 * (2.1.88) reads "This session is being continued from a previous conversation that ran out of context. The summary
 * below covers the earlier portion of the conversation.\n\nSummary:\n…", then "If you need specific details from
 * before compaction … read the full transcript at: <path>" and "Continue the conversation from where it left off …";
 * an acompact run answers `<analysis>…</analysis>\n\n<summary>…</summary>`.
 */
import { asObject, timeOf } from "../shared/fields.ts";
import type { AbstractPart } from "../types.ts";

const continuedPreamble = /^This session is being continued from a previous conversation[^\n]*\n+/;
const summaryLabel = /^Summary:\s*\n/;
/** The trailing instructions, each starting a paragraph: from the first of them to the end is cut. */
const trailingInstructions =
  /\n+(?:If you need specific details from before compaction|Continue the conversation from where|Please continue the conversation from where)[\s\S]*$/;
const recapSuffix = /\s*\(disable recaps in \/config\)\s*$/;

/** Text of a `message.content`: a string, or its text blocks joined by blank lines. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts: string[] = [];
  for (const item of content) {
    const block = asObject(item);
    if (block?.type === "text" && typeof block.text === "string") texts.push(block.text);
  }
  return texts.join("\n\n");
}

/**
 * The summary inside a compaction text, without the instructions around it: the `<summary>` element when there is
 * one, else the text without its `<analysis>` element, continuation preamble, `Summary:` label and trailing
 * instructions. Example: "This session is being continued …\n\nSummary:\n1. Fixed CI\n\nContinue the conversation
 * from where it left off …" → "1. Fixed CI". Returns "" when nothing is left.
 */
export function compactionSummaryText(text: string): string {
  const element = /<summary>([\s\S]*?)<\/summary>/.exec(text);
  if (element) return element[1]!.trim();
  return text
    .replace(/<analysis>[\s\S]*?<\/analysis>/, "")
    .trim()
    .replace(continuedPreamble, "")
    .replace(summaryLabel, "")
    .replace(trailingInstructions, "")
    .trim();
}

/**
 * The abstract part one decoded line holds, or null: a compaction summary (`isCompactSummary` user line) or a recap
 * (`system` line with `subtype: "away_summary"`, its "(disable recaps in /config)" hint cut). Times are the line's.
 */
export function abstractPartOf(value: Record<string, unknown>): AbstractPart | null {
  if (value.type === "user" && value.isCompactSummary === true) {
    const text = compactionSummaryText(contentText(asObject(value.message)?.content));
    return text ? { source: "compaction", text, at: timeOf(value.timestamp) } : null;
  }
  if (value.type === "system" && value.subtype === "away_summary" && typeof value.content === "string") {
    const text = value.content.replace(recapSuffix, "").trim();
    return text ? { source: "recap", text, at: timeOf(value.timestamp) } : null;
  }
  return null;
}
