/**
 * The resume state of a Claude Code transcript: enough to continue parsing a file that only grew,
 * reading only the appended bytes plus a fixed window before the old end to check the prefix.
 * It holds the byte offset of the end of the last complete line, a SHA-1 of the window before it,
 * the tree records of the last turn onward (`tail`, starting at that turn's prompt = `anchor`), the
 * metadata so far, and a hash of the last finished turn (to tell whether it changed).
 */
import { createHash } from "node:crypto";
import { closeSync, openSync, readSync } from "node:fs";
import type { ResumeState } from "../types.ts";
import type { MetaState } from "./meta.ts";
import type { Rec } from "./records.ts";

/** Bytes before the resume offset that must be unchanged (hashed); 4 KiB. */
export const tailWindowBytes = 4096;

/** Resume state of one transcript (JSON-serializable; `kind` versions the shape). */
export interface ClaudeResumeState extends ResumeState {
  kind: "claude-code/v1";
  /** Bytes up to and including the last complete line's "\n". */
  offset: number;
  /** Complete lines before `offset` (for 1-based line numbers in skip reports). */
  lineCount: number;
  /** SHA-1 hex of bytes [max(0, offset − 4096), offset). */
  windowHash: string;
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

/** SHA-1 hex of bytes or text. */
export function hashOf(data: Uint8Array | string): string {
  return createHash("sha1").update(data).digest("hex");
}

/** Type guard: a resume state this parser wrote, with the same `withOutputs` option. */
export function isUsableState(state: ResumeState | undefined, withOutputs: boolean): state is ClaudeResumeState {
  if (!state || state.kind !== "claude-code/v1") return false;
  const candidate = state as Partial<ClaudeResumeState>;
  return (
    typeof candidate.offset === "number" &&
    typeof candidate.windowHash === "string" &&
    Array.isArray(candidate.tail) &&
    typeof candidate.meta === "object" &&
    candidate.withOutputs === withOutputs
  );
}

/** Hash of the window that ends at `offset` inside `bytes` (which start at file offset `bytesStart`). */
export function windowHashAt(bytes: Uint8Array, bytesStart: number, offset: number): string {
  const start = Math.max(0, offset - tailWindowBytes) - bytesStart;
  return hashOf(bytes.subarray(start, offset - bytesStart));
}

/**
 * Read bytes [from, sizeBytes) of a file with one positioned read.
 * @throws the fs error when the file cannot be opened or read (the caller maps it to SourceError)
 */
export function readRange(path: string, from: number, sizeBytes: number): Buffer {
  const length = Math.max(0, sizeBytes - from);
  const buffer = Buffer.allocUnsafe(length);
  const fd = openSync(path, "r");
  try {
    let done = 0;
    while (done < length) {
      const n = readSync(fd, buffer, done, length - done, from + done);
      if (n === 0) break;
      done += n;
    }
    return done === length ? buffer : buffer.subarray(0, done);
  } finally {
    closeSync(fd);
  }
}
