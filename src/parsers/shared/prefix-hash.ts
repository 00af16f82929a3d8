/**
 * The prefix check behind every byte-offset resume of an append-only file (Claude Code transcripts,
 * Codex rollouts, Gemini CLI JSONL chats): a digest of EVERY byte before the resume offset, so an edit
 * anywhere in the already-parsed prefix, followed by an append, is seen and the file parsed fully (issue 9).
 * The digest is wyhash (Bun.hash, ~7 GB/s measured on the 2-core dev VM, 2026-11-23) chained over 1 MiB
 * blocks, so a resume reads the prefix block by block and only decodes the appended bytes.
 * Digest text: `<length in bytes, hex>-<wyhash hex>`; a stored state with another text simply mismatches
 * (the caller then parses fully).
 */
import { closeSync, fstatSync, openSync, readSync } from "node:fs";

/** Block size of the chained prefix hash, bytes (1 MiB). */
export const hashBlockBytes = 1 << 20;

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
 * Read a file for a resumed parse: hash bytes [0, offset) block by block and compare with `prefixHash`
 * (a {@link prefixDigest}); when equal, return the bytes after it.
 * @returns null when the file shrank or its already-parsed prefix changed (the caller parses fully)
 * @throws the fs error when the file cannot be opened or read (the caller maps it to SourceError)
 */
export function readAppended(path: string, offset: number, prefixHash: string): AppendedRead | null {
  const fd = openSync(path, "r");
  try {
    const size = fstatSync(fd).size;
    if (size < offset) return null;
    const whole = offset - (offset % hashBlockBytes);
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
    const restLength = offset - whole;
    if (prefixDigest(seed, tail.subarray(0, restLength), offset) !== prefixHash) return null;
    return {
      appended: tail.subarray(restLength),
      digestThrough(n: number): string {
        const end = restLength + n;
        const wholeInTail = end - (end % hashBlockBytes);
        return prefixDigest(
          chainBlocks(seed, tail.subarray(0, wholeInTail)),
          tail.subarray(wholeInTail, end),
          offset + n,
        );
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
