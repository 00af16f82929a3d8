/**
 * File-stat helpers shared by the parsers: stats-only fingerprints that see every content change a
 * user-space program can make, file identity (device + inode) for cycle and duplicate detection, and
 * the one-phrase reason of a file-system error ("permission denied") used for unavailable paths and
 * SourceError messages. No content reads here.
 */
import { statSync, type Stats } from "node:fs";

/**
 * Stats-only fingerprint of one file: `<size>:<mtimeMs>:<ctimeMs>:<ino>` (bytes, epoch ms, epoch ms, inode).
 * ctime is part of it because it cannot be set from user space: a same-size rewrite whose mtime was put
 * back (`touch -d`, `cp -p`) still moves ctime, on Linux and macOS (issue 9). The inode catches a file
 * replaced by another one (editor save by rename). mtime stays the second field (tie-break readers).
 *   `statFingerprint(statSync("a.jsonl"))` → `"5449:1764000000000.123:1764000000000.456:1234567"`
 */
export function statFingerprint(stats: Stats): string {
  return `${stats.size}:${stats.mtimeMs}:${stats.ctimeMs}:${stats.ino}`;
}

/** Identity of a file or folder across paths (symlinks, hard links, overlapping roots): `<dev>:<ino>`. */
export function fileIdentity(stats: Stats): string {
  return `${stats.dev}:${stats.ino}`;
}

/** The errno code of a file-system error (`EACCES`), or undefined for anything else. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** True when the error says the path does not exist (ENOENT, or ENOTDIR for a path through a file). */
export function isMissingError(error: unknown): boolean {
  const code = errorCode(error);
  return code === "ENOENT" || code === "ENOTDIR";
}

/**
 * One lower-case phrase for a file-system error, for "unavailable" reports and error messages.
 *   EACCES/EPERM → "permission denied"; ELOOP → "symbolic link loop"; EIO → "i/o error";
 *   ENOENT → "not found"; anything else → its code in lower case, or its message.
 */
export function fsReason(error: unknown): string {
  const code = errorCode(error);
  switch (code) {
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "ELOOP":
      return "symbolic link loop";
    case "EIO":
      return "i/o error";
    case "ENOENT":
      return "not found";
    case undefined:
      return String((error as Error | null)?.message ?? error).toLowerCase();
    default:
      return code.toLowerCase();
  }
}

/**
 * Commutative digest of many file stats (order-independent, so readdir order does not matter): entry
 * count, total size in bytes, newest mtime, newest ctime, and modular sums of mtimes, ctimes and inodes
 * (so a same-size rewrite with its mtime put back, or a file replaced by another, still changes it).
 * Paths that do not exist are left out; other stat errors are thrown (the caller reports "unavailable").
 *   `digest.add("/s/a.json"); digest.add("/s/b.json"); digest.toString()` → `"n2:s812:m…:c…:h…"`
 */
export class StatsDigest {
  private count = 0;
  private sizeBytes = 0;
  private maxMtimeMs = 0;
  private maxCtimeMs = 0;
  private sum = 0;

  /** Add one path's stats; returns them, or undefined when the path does not exist. */
  add(path: string): Stats | undefined {
    let stats: Stats;
    try {
      stats = statSync(path);
    } catch (error) {
      if (isMissingError(error)) return undefined;
      throw error;
    }
    this.addStats(stats);
    return stats;
  }

  /** Add stats already taken. */
  addStats(stats: Stats): void {
    const modulus = 1_000_000_007;
    this.count += 1;
    this.sizeBytes += stats.isDirectory() ? 0 : stats.size;
    this.maxMtimeMs = Math.max(this.maxMtimeMs, stats.mtimeMs);
    this.maxCtimeMs = Math.max(this.maxCtimeMs, stats.ctimeMs);
    const mix =
      (Math.round(stats.mtimeMs * 1000) % modulus) +
      3 * (Math.round(stats.ctimeMs * 1000) % modulus) +
      7 * (stats.ino % modulus);
    this.sum = (this.sum + mix) % modulus;
  }

  toString(): string {
    return `n${this.count}:s${this.sizeBytes}:m${this.maxMtimeMs}:c${this.maxCtimeMs}:h${this.sum}`;
  }
}
