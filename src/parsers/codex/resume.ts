/**
 * The resume state of a Codex rollout: enough to continue parsing a file that only grew (rollouts are
 * append-only, codex-rs/rollout recorder). Same prefix check as Claude Code (src/parsers/claude-code/resume.ts,
 * whose block-chained wyhash it reuses): the byte offset after the last complete line, a digest of every
 * byte before it (an edit in the parsed prefix is seen and parsed fully), the items of the last turn
 * onward with the grouper state before them, the metadata so far, and a hash of the last finished turn.
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { chainBlocks, hashBlockBytes, prefixDigest } from "../claude-code/resume.ts";
import type { ResumeState } from "../types.ts";
import type { CodexMeta } from "./meta.ts";
import type { Item } from "./records.ts";
import type { GroupState } from "./turns.ts";

/** Resume state of one rollout (JSON-serializable; `kind` versions the shape, other kinds parse fully). */
export interface CodexResumeState extends ResumeState {
  kind: "codex/v1";
  /** Bytes up to and including the last complete line's "\n". */
  offset: number;
  /** Complete lines before `offset` (1-based line numbers in skip reports). */
  lineCount: number;
  /** Digest of bytes [0, offset) (claude-code/resume.ts `prefixDigest`). */
  prefixHash: string;
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
  if (!state || state.kind !== "codex/v1") return false;
  const candidate = state as Partial<CodexResumeState>;
  return typeof candidate.offset === "number" && typeof candidate.prefixHash === "string" && Array.isArray(candidate.tail)
    && typeof candidate.meta === "object" && candidate.withOutputs === withOutputs;
}

/** What a resume read found. */
export interface AppendedBytes {
  /** Bytes [offset, size): the only ones decoded. */
  appended: Buffer;
  /** Digest of [0, offset + n) for n ≤ appended.length (the next state's prefix hash). */
  digestThrough(n: number): string;
}

/**
 * Hash bytes [0, offset) block by block, compare with `prefixHash`, and return the bytes after it.
 * @returns null when the file shrank or its parsed prefix changed (the caller parses fully)
 * @throws the fs error when the file cannot be opened or read (the caller maps it to SourceError)
 */
export function readAppended(path: string, offset: number, prefixHash: string): AppendedBytes | null {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    if (size < offset) return null;
    const whole = offset - (offset % hashBlockBytes);
    let seed = 0n;
    if (whole > 0) {
      const block = Buffer.allocUnsafe(hashBlockBytes);
      for (let at = 0; at < whole; at += hashBlockBytes) {
        if (readFully(fd, block, at) < hashBlockBytes) return null;
        seed = Bun.hash.wyhash(block, seed);
      }
    }
    const tail = Buffer.allocUnsafe(size - whole);
    if (readFully(fd, tail, whole) < tail.length) return null;
    const restLength = offset - whole;
    if (prefixDigest(seed, tail.subarray(0, restLength), offset) !== prefixHash) return null;
    return {
      appended: tail.subarray(restLength),
      digestThrough(n: number): string {
        const end = restLength + n;
        const wholeInTail = end - (end % hashBlockBytes);
        return prefixDigest(chainBlocks(seed, tail.subarray(0, wholeInTail)), tail.subarray(wholeInTail, end), offset + n);
      },
    };
  } finally {
    closeSync(fd);
  }
}

function readFully(fd: number, buffer: Buffer, position: number): number {
  let done = 0;
  while (done < buffer.length) {
    const n = readSync(fd, buffer, done, buffer.length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}
