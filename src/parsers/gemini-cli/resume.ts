/**
 * The resume state of a Gemini CLI session and the byte-level reads behind it. Two modes, chosen by
 * the format of the session's newest file (docs/formats.md §4.2, §4.3):
 *  - `whole` (JSON format, rewritten on every message): no offset can be trusted, so the file is parsed
 *    whole and the state keeps a hash per turn; the result starts at the first turn that differs.
 *  - `append` (JSONL, append-only): byte offset of the last complete line, a hash of every byte before
 *    it (an edit in the prefix forces a full parse), the messages from the last turn's prompt onward
 *    (`tail`) and the ids before it (`priorIds`: a record touching one forces a full parse).
 * Either way `ParseResult.skipped` covers the whole session (issue 26): an `append` state keeps what the bytes it does
 * not read again could not place (`skipped`: records of every file's complete lines; `prefixSkipped`: what the
 * messages before the anchor hold that no turn does).
 * The prefix hash and the read that checks it are shared with the other JSONL parsers (shared/prefix-hash.ts).
 */
import type { LinePosition } from "../shared/resume-lines.ts";
import type { ResumeState, SkipReport } from "../types.ts";
import type { ChatMeta, GeminiMessage } from "./records.ts";

/**
 * The `kind` of the current state shape (older states parse fully: v1 had no skips and synthetic ids, v2 no usage of
 * the messages, issue 38 item 14; v3 no `abstract` in the headers, issue 41).
 */
export const geminiStateKind = "gemini-cli/v4";

/** Resume state of one session (JSON-serializable; `kind` versions the shape, other kinds parse fully). */
export interface GeminiResumeState extends ResumeState, LinePosition {
  kind: typeof geminiStateKind;
  mode: "whole" | "append";
  /** Whether tool outputs were decoded (a parse with the other option parses fully). */
  withOutputs: boolean;
  /** Every file of the session in merge order, the newest (the one resumed) last. */
  files: string[];
  /** Stats fingerprint (file-stats.ts) of each file but the last, when the state was written. */
  olderFingerprints: string[];
  /** whole: SHA-1 of each turn's JSON, turn 1 first. */
  turnHashes: string[];
  /* append: `offset`, `lineCount`, `prefixHash` (LinePosition) are those of the newest file; 0, 0, "" in whole mode. */
  /** append: id of the last turn's prompt, or null when there is no turn yet (then `tail` holds all). */
  anchor: string | null;
  /** append: number of the anchor's turn (1 when `anchor` is null). */
  anchorTurn: number;
  /** append: SHA-1 of the last turn's JSON, or null. */
  lastTurnHash: string | null;
  /** append: ordered messages from the anchor onward. */
  tail: GeminiMessage[];
  /**
   * append: records of the complete lines of every file (older files whole, the newest up to `offset`) that became no
   * message (not JSON, unknown record, message without type); empty in whole mode.
   */
  skipped: SkipReport;
  /** append: what the messages before the anchor hold that no turn does (turns.ts `unplaced`); empty in whole mode. */
  prefixSkipped: SkipReport;
  /** append: ids of the messages before the anchor. */
  priorIds: string[];
  /**
   * Rewound turns the last full parse made (records.ts `rewoundValues`); absent in states written before them (0). A
   * resumed parse never changes them (a `$rewindTo` parses fully), and one that would start at turn 1 parses fully
   * instead: the index replaces a session's rewound turns with those of a parse from turn 1 (index/write/writer.ts).
   */
  rewoundTurns?: number;
  /** append: header of the newest file so far; `olderMetas`: headers of the other files. */
  meta: ChatMeta;
  olderMetas: ChatMeta[];
}

/** Type guard: a state this parser wrote, for the same `withOutputs` option. */
export function isUsableState(state: ResumeState | undefined, withOutputs: boolean): state is GeminiResumeState {
  return state?.kind === geminiStateKind && (state as GeminiResumeState).withOutputs === withOutputs;
}
