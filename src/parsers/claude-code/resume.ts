/**
 * The resume state of a Claude Code transcript: enough to continue parsing a file that only grew.
 * It holds the byte offset of the end of the last complete line, a hash of EVERY byte before it (so an
 * edit anywhere in the already-parsed prefix, followed by an append, is seen and re-parsed fully: issue 9;
 * the v1 state hashed only the last 4 KiB), what those bytes held that could not be decoded (issue 26), the tree
 * records of the last turn onward (`tail`, starting at that turn's prompt = `anchor`, sidechain lines included), the
 * metadata so far, the queued prompts not sent yet, and a hash of the last finished turn.
 * The prefix hash and the reads behind it are shared with the other JSONL parsers (shared/prefix-hash.ts).
 */
import type { LinePosition } from "../shared/resume-lines.ts";
import type { ResumeState } from "../types.ts";
import type { MetaState } from "./meta.ts";
import type { QueuedPrompts } from "./queue.ts";
import type { Rec } from "./records.ts";

/**
 * Resume state of one transcript (JSON-serializable; `kind` versions the shape, older kinds parse fully: v3 keeps
 * sidechain lines and rewound branches, which v2 dropped; v4 records keep their usage, issue 38 item 14; v5 metadata keeps the abstract's parts, issue 41).
 */
export interface ClaudeResumeState extends ResumeState, LinePosition {
  kind: "claude-code/v5";
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
  /** A user/assistant line without `isSidechain: true` was seen: the file is a main conversation (parse.ts). */
  sawMainLine: boolean;
  /** A user/assistant line with `isSidechain: true` was seen (with no main line: a sub-agent transcript). */
  sawSidechainLine: boolean;
  /** Prompts queued while the agent was busy and not seen sent yet (queue.ts). */
  queued: QueuedPrompts;
}

/** Type guard: a resume state this parser wrote, with the same `withOutputs` option. */
export function isUsableState(state: ResumeState | undefined, withOutputs: boolean): state is ClaudeResumeState {
  if (state?.kind !== "claude-code/v5") return false;
  const candidate = state as Partial<ClaudeResumeState>;
  return (
    typeof candidate.offset === "number" &&
    typeof candidate.prefixHash === "string" &&
    Array.isArray(candidate.tail) &&
    typeof candidate.meta === "object" &&
    typeof candidate.sawMainLine === "boolean" &&
    typeof candidate.sawSidechainLine === "boolean" &&
    Array.isArray(candidate.queued) &&
    candidate.withOutputs === withOutputs
  );
}
