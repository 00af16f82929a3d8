/**
 * Choosing turns `from`–`to` (1-based, inclusive) of a session read at level 3, with the checks every front
 * end shares (issue 10: `recall show ID:5-9` and the MCP `read_turns` tool answer the same way), among its main turns
 * or its rewound ones (issue 26: turns r1, r2, … on branches the user rewound past, stored as -1, -2, …).
 */
import { TurnNotFoundError, UsageError } from "../../errors.ts";
import type { Turn } from "../../parsers/index.ts";

/** Which turns of a session: the conversation, or the branches the user rewound past. */
export type TurnBranch = "main" | "rewound";

/** The chosen turns and the range actually covered. */
export interface TurnRange {
  turns: Turn[];
  /** First turn shown (0 for a session without turns). */
  from: number;
  /** Last turn shown: `to` capped at the session's turn count. */
  to: number;
  /** Turns of the branch in the whole session. */
  total: number;
  /** Which turns: the conversation or the rewound ones (`from`, `to` and `total` count within it). */
  branch: TurnBranch;
}

/**
 * Pick turns `from`..`to` of a session with `total` main turns; `to` undefined means "to the end", and a `to` past
 * the end is cut to it. With `branch` "rewound", `from`..`to` count the rewound turns (r1 = turn -1) and `total` is
 * ignored: the rewound turns among `turns` are counted.
 * Examples (12 turns): 5,9 → 5–9; 5,undefined → 5–12; 10,40 → 10–12; 13,… → TurnNotFoundError.
 * @throws UsageError when `from`/`to` are not whole numbers ≥ 1 or `to` < `from`; TurnNotFoundError (exit 1) when
 *   `from` is past the last turn (any `from` above 1 for a session without turns)
 */
export function selectTurnRange(
  sessionId: string,
  turns: readonly Turn[],
  mainTotal: number,
  from = 1,
  to?: number,
  branch: TurnBranch = "main",
): TurnRange {
  const sign = branch === "rewound" ? -1 : 1;
  const total = branch === "rewound" ? turns.filter((turn) => turn.number < 0).length : mainTotal;
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
    throw new TurnNotFoundError(
      branch === "rewound"
        ? `session ${sessionId} has ${total} rewound turn${total === 1 ? "" : "s"}; turn r${from} does not exist`
        : `session ${sessionId} has ${total} turn${total === 1 ? "" : "s"}; turn ${from} does not exist`,
    );
  const last = Math.min(to ?? total, total);
  return {
    turns: turns
      .filter((turn) => sign * turn.number >= from && sign * turn.number <= last)
      .sort((a, b) => sign * a.number - sign * b.number),
    from: total === 0 ? 0 : from,
    to: last,
    total,
    branch,
  };
}
