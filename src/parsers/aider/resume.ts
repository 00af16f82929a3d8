/**
 * The resume state of the last session of an aider history file (the only one that grows: aider appends
 * to the file and starts each run with a new header, aider/io.py `append_chat_history`). It holds the byte
 * offset after the block's last complete line, a digest of the block's bytes before it (so any change to
 * the already-parsed part of this session is seen and parsed fully), and the lines of the last turn (or of the
 * two last, while the last prompt may still grow), from which the turns are re-grouped with the appended lines.
 * The text before a file's first header is a block too (start 0): it grows only while the file has no header.
 * Older sessions of the file never get a state: their blocks only change when the file is rewritten, and then
 * they are parsed fully (a few KiB each).
 */
import type { ResumeState } from "../types.ts";
import type { PromptClock } from "./input-history.ts";

/** Resume state of one session block (JSON-serializable; another `kind` parses fully). */
export interface AiderResumeState extends ResumeState {
  kind: "aider/v2";
  /** Whether tool outputs were kept (a parse with the other option parses fully). */
  withOutputs: boolean;
  sessionId: string;
  /** Byte offset of the block's header line in the file (a block that moved is parsed fully). */
  blockStart: number;
  /** Byte offset after the last complete line parsed (absolute, > blockStart). */
  offset: number;
  /** prefix-hash.ts `prefixHashOf` digest of the block's bytes [blockStart, offset). */
  prefixHash: string;
  /**
   * Complete lines from the first line of the last turn (of the one before it while the last turn's prompt may still
   * grow) to `offset`; from the block's first line after the header when no turn yet.
   */
  tailLines: string[];
  /** Block-relative 1-based line number of `tailLines[0]` (the header is line 1). */
  tailLine: number;
  /** Number of the turn `tailLines` starts (the next number when there is no turn yet). */
  anchorTurn: number;
  /** Prompt-time clock before the turn `tailLines` starts (input-history.ts). */
  clock: PromptClock;
  /** SHA-1 of the JSON of each turn from the one `tailLines` starts to the last, as last returned ([] with no turn). */
  turnHashes: string[];
}

/** Type guard: a state this parser wrote for `sessionId`, with the same `withOutputs` option. */
export function isUsableState(
  state: ResumeState | undefined,
  sessionId: string,
  withOutputs: boolean,
): state is AiderResumeState {
  if (state?.kind !== "aider/v2") return false;
  const candidate = state as Partial<AiderResumeState>;
  return (
    candidate.sessionId === sessionId &&
    candidate.withOutputs === withOutputs &&
    typeof candidate.blockStart === "number" &&
    typeof candidate.offset === "number" &&
    typeof candidate.prefixHash === "string" &&
    Array.isArray(candidate.tailLines) &&
    typeof candidate.tailLine === "number" &&
    typeof candidate.anchorTurn === "number" &&
    typeof candidate.clock?.cursor === "number" &&
    Array.isArray(candidate.turnHashes)
  );
}
