/**
 * One writer at a time: `recall index` (explicit or automatic before a search) holds
 * `RECALL_HOME/index.lock`, a file created with O_EXCL that holds the owner's pid. A lock whose
 * pid is no longer alive (the owner was `kill -9`ed) is taken over. Readers never take the lock:
 * SQLite WAL lets a search read the last committed state while an index run writes.
 */
import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";
import { IndexError } from "../errors.ts";

/** A held lock; `release()` is idempotent. */
export interface IndexLock {
  release(): void;
}

function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Try once to take the lock; returns null when another live process holds it. */
export function tryAcquireIndexLock(path: string): IndexLock | null {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return {
        release() {
          if (released) return;
          released = true;
          try {
            if (readFileSync(path, "utf8") === String(process.pid)) unlinkSync(path);
          } catch {
            // already gone: nothing to release
          }
        },
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      let owner = Number.NaN;
      try {
        owner = Number.parseInt(readFileSync(path, "utf8"), 10);
      } catch {
        // vanished between open and read: retry
      }
      if (owner === process.pid || isAlive(owner)) return null;
      try {
        unlinkSync(path); // stale lock of a dead process
      } catch {
        // another process removed it first: retry
      }
    }
  }
  return null;
}

/**
 * Take the lock, waiting up to `waitMs` (polling every 100 ms).
 * @throws IndexError INDEX_LOCKED when another live `recall index` still holds it after `waitMs`
 */
export async function acquireIndexLock(path: string, waitMs: number): Promise<IndexLock> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const lock = tryAcquireIndexLock(path);
    if (lock) return lock;
    if (Date.now() >= deadline) {
      let owner = "another process";
      try {
        owner = `process ${readFileSync(path, "utf8").trim()}`;
      } catch {
        // unreadable: keep the generic wording
      }
      throw new IndexError("INDEX_LOCKED", `another recall index run (${owner}) is updating the index`, {
        hint: "wait for it to finish, or run the command again in a moment",
      });
    }
    await Bun.sleep(100);
  }
}
