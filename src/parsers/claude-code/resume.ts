/**
 * The resume state of a Claude Code transcript: enough to continue parsing a file that only grew.
 * It holds the byte offset of the end of the last complete line, a hash of EVERY byte before it (so an
 * edit anywhere in the already-parsed prefix, followed by an append, is seen and re-parsed fully: issue 9;
 * the v1 state hashed only the last 4 KiB), the tree records of the last turn onward (`tail`, starting at
 * that turn's prompt = `anchor`), the metadata so far, and a hash of the last finished turn.
 * The prefix hash and the reads behind it are shared with the other JSONL parsers (shared/prefix-hash.ts).
 */
import type { LinePosition } from "../shared/resume-lines.ts";
import type { ResumeState } from "../types.ts";
import type { MetaState } from "./meta.ts";
import type { Rec } from "./records.ts";

/** Resume state of one transcript (JSON-serializable; `kind` versions the shape, older kinds parse fully). */
export interface ClaudeResumeState extends ResumeState, LinePosition {
  kind: "claude-code/v2";
  /** Whether tool outputs are inside `tail` (a parse with other options re-parses fully). */
  withOutputs: boolean;
  /** Uuid of the last turn's prompt, or null when no turn exists yet (then `tail` holds every record). */
  anchor: string | null;
  /** Number of the anchor's turn (1 when `anchor` is null). */
  anchorTurn: number;
  /** SHA-1 of the last finished turn's JSON, or null. */
  lastTurnHash: string | null;
  tail: Rec[];
  meta: MetaState;
  /** null until the first user/assistant line decides whether the file is a sub-agent transcript. */
  agentMode: boolean | null;
}

/** Type guard: a resume state this parser wrote, with the same `withOutputs` option. */
export function isUsableState(state: ResumeState | undefined, withOutputs: boolean): state is ClaudeResumeState {
  if (state?.kind !== "claude-code/v2") return false;
  const candidate = state as Partial<ClaudeResumeState>;
  return (
    typeof candidate.offset === "number" &&
    typeof candidate.prefixHash === "string" &&
    Array.isArray(candidate.tail) &&
    typeof candidate.meta === "object" &&
    candidate.withOutputs === withOutputs
  );
}
