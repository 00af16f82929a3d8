/**
 * A session's abstract (issue 41): what the agent wrote about the session, put in one order for every parser.
 * Parsers collect {@link AbstractPart}s as they read records and hand them, with the session, to {@link withAbstract}.
 */
import type { AbstractPart, AbstractSource, Session } from "../types.ts";

/** Rank of each source in the abstract: compactions describe the most of a session, titles the least. */
const sourceRank: Record<AbstractSource, number> = {
  summary: 0,
  compaction: 1,
  recap: 2,
  agent_summary: 3,
  agent_title: 4,
};

/** Whitespace-collapsed, lower-cased text: two parts with the same key say the same thing. */
const keyOf = (text: string): string => text.replace(/\s+/g, " ").trim().toLowerCase();

/**
 * The parts in abstract order: by source (compaction, recap, agent summary, agent title), the newest first within a
 * source (of two with the same time, the one read later), each text trimmed. A part is dropped when it is empty,
 * repeats an earlier part (ignoring case and whitespace) or repeats the session's `title`, which is shown already.
 * Example: `[agent_title "Fix CI" at 1, compaction "A" at 2, compaction "B" at 5, agent_title "fix  ci" at 3]` with
 * title "Other" → `[compaction "B", compaction "A", agent_title "fix  ci"]` (of the two equal titles, the newer).
 * @returns a new array (the input is not changed); empty when nothing is left
 */
function orderAbstract(parts: readonly AbstractPart[], title: string | null): AbstractPart[] {
  const indexed = parts.map((part, index) => ({ part: { ...part, text: part.text.trim() }, index }));
  indexed.sort(
    (a, b) => sourceRank[a.part.source] - sourceRank[b.part.source] || b.part.at - a.part.at || b.index - a.index,
  );
  const seen = new Set<string>(title ? [keyOf(title)] : []);
  const ordered: AbstractPart[] = [];
  for (const { part } of indexed) {
    const key = keyOf(part.text);
    if (!key || seen.has(key)) continue;
    seen.add(key);
    ordered.push(part);
  }
  return ordered;
}

/**
 * `session` with its abstract: `parts` in abstract order ({@link orderAbstract}, the session's own title left out), or
 * `session` itself when none is left. A new object when it has one; `session` is not changed.
 */
export function withAbstract(session: Session, parts: readonly AbstractPart[]): Session {
  const abstract = orderAbstract(parts, session.title);
  return abstract.length > 0 ? { ...session, abstract } : session;
}
