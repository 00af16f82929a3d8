/**
 * The resume state of a Claude Code transcript: enough to continue parsing a file that only grew.
 * It holds the byte offset of the end of the last complete line, a hash of EVERY byte before it (so an
 * edit anywhere in the already-parsed prefix, followed by an append, is seen and re-parsed fully: issue 9;
 * the v1 state hashed only the last 4 KiB), the tree records of the last turn onward (`tail`, starting at
 * that turn's prompt = `anchor`), the metadata so far, and a hash of the last finished turn.
 * The prefix hash is wyhash (Bun.hash, ~7 GB/s measured on the 2-core dev VM, 2026-11-23) chained over
 * 1 MiB blocks, so a resume reads the prefix block by block and only decodes the appended bytes.
 */
import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { ResumeState } from "../types.ts";
import type { MetaState } from "./meta.ts";
import type { Rec } from "./records.ts";

/** Block size of the chained prefix hash, bytes (1 MiB). */
export const hashBlockBytes = 1 << 20;

/** Resume state of one transcript (JSON-serializable; `kind` versions the shape, older kinds parse fully). */
export interface ClaudeResumeState extends ResumeState {
  kind: "claude-code/v2";
  /** Bytes up to and including the last complete line's "\n". */
  offset: number;
  /** Complete lines before `offset` (for 1-based line numbers in skip reports). */
  lineCount: number;
  /** {@link prefixDigest} of bytes [0, offset). */
  prefixHash: string;
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
  if (!state || state.kind !== "claude-code/v2") return false;
  const candidate = state as Partial<ClaudeResumeState>;
  return (
    typeof candidate.offset === "number" &&
    typeof candidate.prefixHash === "string" &&
    Array.isArray(candidate.tail) &&
    typeof candidate.meta === "object" &&
    candidate.withOutputs === withOutputs
  );
}

/** Continue a block chain: `blocks.length` must be a multiple of {@link hashBlockBytes}. */
export function chainBlocks(seed: bigint, blocks: Uint8Array): bigint {
  let chained = seed;
  for (let start = 0; start < blocks.length; start += hashBlockBytes) {
    chained = Bun.hash.wyhash(blocks.subarray(start, start + hashBlockBytes), chained);
  }
  return chained;
}

/**
 * Digest of a prefix of `length` bytes whose whole blocks chained to `seed` and whose last partial
 * block is `rest`: `<length hex>-<wyhash hex>`.
 */
export function prefixDigest(seed: bigint, rest: Uint8Array, length: number): string {
  return `${length.toString(16)}-${Bun.hash.wyhash(rest, seed).toString(16)}`;
}

/** {@link prefixDigest} of bytes [0, length) of an in-memory file. */
export function prefixHashOf(bytes: Uint8Array, length: number): string {
  const whole = length - (length % hashBlockBytes);
  return prefixDigest(chainBlocks(0n, bytes.subarray(0, whole)), bytes.subarray(whole, length), length);
}

/** What a resume read found: the bytes after the verified prefix, and what the next state needs. */
export interface AppendedRead {
  /** Bytes [offset, size) of the file: the only ones decoded. */
  appended: Buffer;
  /**
   * Digest of [0, offset + n) for any n ≤ appended.length (for the new state's prefix hash).
   * Re-hashes at most the last partial block plus n bytes.
   */
  digestThrough(n: number): string;
}

/**
 * Read a transcript for a resumed parse: hash bytes [0, state.offset) block by block and compare with
 * `state.prefixHash`; when equal, return the bytes after it.
 * @returns null when the file shrank or its already-parsed prefix changed (the caller parses fully)
 * @throws the fs error when the file cannot be opened or read (the caller maps it to SourceError)
 */
export function readAppended(path: string, state: ClaudeResumeState): AppendedRead | null {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    if (size < state.offset) return null;
    const whole = state.offset - (state.offset % hashBlockBytes);
    let seed = 0n;
    if (whole > 0) {
      const block = (reusableBlock ??= Buffer.allocUnsafe(hashBlockBytes));
      for (let at = 0; at < whole; at += hashBlockBytes) {
        if (readFully(fd, block, at) < hashBlockBytes) return null;
        seed = Bun.hash.wyhash(block, seed);
      }
    }
    // The last partial block of the prefix and everything appended, read in one go.
    const tail = Buffer.allocUnsafe(size - whole);
    if (readFully(fd, tail, whole) < tail.length) return null;
    const restLength = state.offset - whole;
    if (prefixDigest(seed, tail.subarray(0, restLength), state.offset) !== state.prefixHash) return null;
    return {
      appended: tail.subarray(restLength),
      digestThrough(n: number): string {
        const end = restLength + n;
        const wholeInTail = end - (end % hashBlockBytes);
        return prefixDigest(chainBlocks(seed, tail.subarray(0, wholeInTail)), tail.subarray(wholeInTail, end), state.offset + n);
      },
    };
  } finally {
    closeSync(fd);
  }
}

/** One block buffer per thread, reused by every resume (parses are synchronous). */
let reusableBlock: Buffer | undefined;

/** Positioned read until `buffer` is full or the file ends; returns the bytes read. */
function readFully(fd: number, buffer: Buffer, position: number): number {
  let done = 0;
  while (done < buffer.length) {
    const n = readSync(fd, buffer, done, buffer.length - done, position + done);
    if (n === 0) break;
    done += n;
  }
  return done;
}
