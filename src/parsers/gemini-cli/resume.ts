/**
 * The resume state of a Gemini CLI session and the byte-level reads behind it. Two modes, chosen by
 * the format of the session's newest file (docs/formats.md §4.2, §4.3):
 *  - `whole` (JSON format, rewritten on every message): no offset can be trusted, so the file is parsed
 *    whole and the state keeps a hash per turn; the result starts at the first turn that differs.
 *  - `append` (JSONL, append-only): byte offset of the last complete line, a hash of every byte before
 *    it (an edit in the prefix forces a full parse), the messages from the last turn's prompt onward
 *    (`tail`) and the ids before it (`priorIds`: a record touching one forces a full parse).
 * The prefix hash is wyhash (Bun.hash) chained over 1 MiB blocks, the scheme of claude-code/resume.ts.
 */
import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import type { ResumeState } from "../types.ts";
import type { ChatMeta, GeminiMessage } from "./records.ts";

/** Block size of the chained prefix hash, bytes (1 MiB). */
export const hashBlockBytes = 1 << 20;

/** Resume state of one session (JSON-serializable; `kind` versions the shape, other kinds parse fully). */
export interface GeminiResumeState extends ResumeState {
  kind: "gemini-cli/v1";
  mode: "whole" | "append";
  /** Whether tool outputs were decoded (a parse with the other option parses fully). */
  withOutputs: boolean;
  /** Every file of the session in merge order, the newest (the one resumed) last. */
  files: string[];
  /** Stats fingerprint (file-stats.ts) of each file but the last, when the state was written. */
  olderFingerprints: string[];
  /** whole: SHA-1 of each turn's JSON, turn 1 first. */
  turnHashes: string[];
  /** append: bytes of the newest file up to and including its last complete line's "\n". */
  offset: number;
  /** append: complete lines before `offset` (for 1-based line numbers in skip reports). */
  lineCount: number;
  /** append: {@link prefixDigest} of bytes [0, offset). */
  prefixHash: string;
  /** append: id of the last turn's prompt, or null when there is no turn yet (then `tail` holds all). */
  anchor: string | null;
  /** append: number of the anchor's turn (1 when `anchor` is null). */
  anchorTurn: number;
  /** append: SHA-1 of the last turn's JSON, or null. */
  lastTurnHash: string | null;
  /** append: ordered messages from the anchor onward. */
  tail: GeminiMessage[];
  /** append: ids of the messages before the anchor. */
  priorIds: string[];
  /** append: header of the newest file so far; `olderMetas`: headers of the other files. */
  meta: ChatMeta;
  olderMetas: ChatMeta[];
}

/** SHA-1 hex of text. */
export function hashOf(text: string): string {
  return createHash("sha1").update(text).digest("hex");
}

/** Type guard: a state this parser wrote, for the same `withOutputs` option. */
export function isUsableState(state: ResumeState | undefined, withOutputs: boolean): state is GeminiResumeState {
  return state?.kind === "gemini-cli/v1" && (state as GeminiResumeState).withOutputs === withOutputs;
}

function chainBlocks(seed: bigint, bytes: Uint8Array): bigint {
  let hash = seed;
  for (let at = 0; at < bytes.length; at += hashBlockBytes) hash = Bun.hash.wyhash(bytes.subarray(at, at + hashBlockBytes), hash);
  return hash;
}

function prefixDigest(seed: bigint, rest: Uint8Array, length: number): string {
  return `${length}:${Bun.hash.wyhash(rest, seed).toString(16)}`;
}

/** Digest of bytes [0, length) of a buffer holding the whole file. */
export function prefixHashOf(bytes: Uint8Array, length: number): string {
  const whole = length - (length % hashBlockBytes);
  return prefixDigest(chainBlocks(0n, bytes.subarray(0, whole)), bytes.subarray(whole, length), length);
}

/** What a resume read found: the bytes after the verified prefix, and how to hash further. */
export interface AppendedRead {
  /** Bytes [offset, size): the only ones decoded. */
  appended: Buffer;
  /** Digest of [0, offset + n) for n ≤ appended.length. */
  digestThrough(n: number): string;
}

/**
 * Read the newest file for a resumed parse: hash bytes [0, offset) block by block, compare with
 * `prefixHash`, and return the bytes after it.
 * @returns null when the file shrank or a byte of its prefix changed (the caller parses fully)
 * @throws the fs error when the file cannot be opened or read
 */
export function readAppended(path: string, offset: number, prefixHash: string): AppendedRead | null {
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
