/**
 * Choosing turns `from`–`to` (1-based, inclusive) of a session read at level 3, with the checks every front
 * end shares (issue 10: `recall show ID:5-9` and the MCP `read_turns` tool answer the same way).
 */
import { UsageError } from "../errors.ts";
import type { Turn } from "../parsers/index.ts";

/** The chosen turns and the range actually covered. */
export interface TurnRange {
  turns: Turn[];
  /** First turn shown (0 for a session without turns). */
  from: number;
  /** Last turn shown: `to` capped at the session's turn count. */
  to: number;
  /** Turns in the whole session. */
  total: number;
}

/**
 * Pick turns `from`..`to` of a session with `total` turns; `to` undefined means "to the end", and a `to` past
 * the end is cut to it.
 * Examples (12 turns): 5,9 → 5–9; 5,undefined → 5–12; 10,40 → 10–12; 13,… → UsageError.
 * @throws UsageError when `from`/`to` are not whole numbers ≥ 1, `to` < `from`, or `from` is past the last turn (any
 *   `from` above 1 for a session without turns)
 */
export function selectTurnRange(
  sessionId: string,
  turns: readonly Turn[],
  total: number,
  from = 1,
  to?: number,
): TurnRange {
  for (const [name, value] of [
    ["from", from],
    ["to", to],
  ] as const) {
    if (value !== undefined && (!Number.isInteger(value) || value < 1))
      throw new UsageError(
        `${name} must be a whole number of at least 1, got ${value}`,
        "turns are numbered from 1, as in 5-9",
      );
  }
  if (to !== undefined && to < from)
    throw new UsageError(`turn range ${from}-${to} is empty`, "turns are numbered from 1, as in 5-9");
  // A session without turns still shows its header for turn 1 (the default); any later turn does not exist.
  if (from > Math.max(total, 1))
    throw new UsageError(
      `session ${sessionId} has ${total} turn${total === 1 ? "" : "s"}; turn ${from} does not exist`,
    );
  const last = Math.min(to ?? total, total);
  return {
    turns: turns.filter((turn) => turn.number >= from && turn.number <= last),
    from: total === 0 ? 0 : from,
    to: last,
    total,
  };
}
