/**
 * The resume state of a Codex rollout: enough to continue parsing a file that only grew (rollouts are
 * append-only, codex-rs/rollout recorder). Same prefix check as Claude Code (shared/prefix-hash.ts): the
 * byte offset after the last complete line, a digest of every byte before it (an edit in the parsed prefix
 * is seen and parsed fully), the items of the last turn onward with the grouper state before them, the
 * metadata so far, a hash of the last finished turn, and (`skipped`) what the lines before the offset could not decode
 * plus what the items before the tail could not place (issue 26), so a resumed parse reports the whole file's skips.
 * `codex/v3`: `agent_message` events kept as `reply` items (issue 37); a v2 state parses fully once. `codex/v4`: the
 * grouper state holds the model and token total (usage.ts, issue 38 item 14); a v3 state parses fully once. `codex/v5`:
 * the metadata holds the `compacted` summaries (`compactions`, issue 41); a v4 state parses fully once.
 */
import type { LinePosition } from "../shared/resume-lines.ts";
import type { ResumeState } from "../types.ts";
import type { CodexMeta } from "./meta.ts";
import type { Item } from "./records.ts";
import type { GroupState } from "./turns.ts";

/** Resume state of one rollout (JSON-serializable; `kind` versions the shape, other kinds parse fully). */
export interface CodexResumeState extends ResumeState, LinePosition {
  kind: "codex/v5";
  /** Whether tool outputs are inside `tail` (a parse with the other option parses fully). */
  withOutputs: boolean;
  meta: CodexMeta;
  /** Items from the last turn's first item onward ([] when no turn exists yet). */
  tail: Item[];
  /** Grouper state before `tail[0]` (or after every item when there is no turn yet). */
  tailState: GroupState;
  /** Number of the turn `tail` starts (the next number when there is no turn yet). */
  anchorTurn: number;
  /** SHA-1 of the last finished turn's JSON, or null. */
  lastTurnHash: string | null;
}

/** Type guard: a state this parser wrote, with the same `withOutputs` option. */
export function isUsableState(state: ResumeState | undefined, withOutputs: boolean): state is CodexResumeState {
  if (state?.kind !== "codex/v5") return false;
  const candidate = state as Partial<CodexResumeState>;
  return (
    typeof candidate.offset === "number" &&
    typeof candidate.prefixHash === "string" &&
    Array.isArray(candidate.tail) &&
    typeof candidate.meta === "object" &&
    candidate.withOutputs === withOutputs
  );
}
