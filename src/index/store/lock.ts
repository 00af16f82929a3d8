/**
 * One writer at a time: `recall index` (explicit or automatic before a search) holds an exclusive flock(2) on
 * `RECALL_HOME/index.lock` for its whole run. The kernel drops the lock when the holder exits or dies (`kill -9`,
 * crash, reboot), so a dead holder never blocks anyone; the pid written into the file only names the holder in
 * messages. Issue 9: the former O_EXCL pid file blocked forever when its pid was reused by an unrelated process.
 * flock comes from libc through bun:ffi (no dependency). Locks belong to an open file description, so two opens in
 * one process exclude each other too; the descriptor is close-on-exec, so no child process inherits it. The file is
 * never unlinked (a waiter could otherwise lock an orphaned inode while a newcomer locks a new file).
 * Readers never take the lock: SQLite WAL lets a search read the last committed state while an index run writes.
 */
import { dlopen, FFIType, read, type Pointer } from "bun:ffi";
import { closeSync, constants, fchmodSync, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
import { IndexError } from "../../errors.ts";

/** A held lock; `release()` is idempotent. */
export interface IndexLock {
  release(): void;
}

const LOCK_SH = 1;
const LOCK_EX = 2;
const LOCK_NB = 4;
/** EWOULDBLOCK (= EAGAIN): Linux 11, macOS/BSD 35. EINTR is 4 on both. */
const EWOULDBLOCK = process.platform === "linux" ? 11 : 35;
const EINTR = 4;

interface Libc {
  flock(fd: number, operation: number): number;
  errno(): number | undefined;
}

let libc: Libc | undefined;

/**
 * Returns flock(2) and errno from the C library, loaded once (about 0.2 ms).
 * @throws IndexError INTERNAL when no C library with flock can be loaded on this platform
 */
function loadLibc(): Libc {
  if (libc) return libc;
  const darwin = process.platform === "darwin";
  const names = darwin ? ["libc.dylib", "/usr/lib/libSystem.B.dylib"] : ["libc.so.6", "libc.so"];
  const errnoSymbol = darwin ? "__error" : "__errno_location";
  for (const name of names) {
    try {
      const lib = dlopen(name, {
        flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
        [errnoSymbol]: { args: [], returns: FFIType.ptr },
      });
      const errnoAt = lib.symbols[errnoSymbol] as () => Pointer | null;
      libc = {
        flock: lib.symbols.flock as (fd: number, operation: number) => number,
        errno: () => {
          const pointer = errnoAt();
          return pointer ? read.i32(pointer, 0) : undefined;
        },
      };
      return libc;
    } catch {
      // try the next name
    }
  }
  throw new IndexError(
    "INTERNAL",
    `cannot lock the index: flock(2) is not available on ${process.platform}-${process.arch}`,
    {
      hint: "report it with the output of `uname -a`",
    },
  );
}

/**
 * Tries flock(fd, operation | LOCK_NB); returns true when granted, false when another open file holds a
 * conflicting lock. Retries EINTR.
 * @throws IndexError INTERNAL when the filesystem refuses locks (e.g. ENOLCK on some network filesystems)
 */
function tryFlock(fd: number, operation: number, path: string): boolean {
  const { flock, errno } = loadLibc();
  for (;;) {
    if (flock(fd, operation | LOCK_NB) === 0) return true;
    const code = errno();
    if (code === EINTR) continue;
    if (code === undefined || code === EWOULDBLOCK) return false;
    throw new IndexError("INTERNAL", `cannot lock ${path}: flock failed with errno ${code}`, {
      hint: "put RECALL_HOME on a local filesystem that supports file locks",
    });
  }
}

/** Opens the lock file read-write, creating it 0600 (whatever the umask) when absent; an existing file keeps its mode. */
function openLockFile(path: string): number {
  try {
    const fd = openSync(path, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL, 0o600);
    fchmodSync(fd, 0o600);
    return fd;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw lockFileError(path, error);
  }
  try {
    return openSync(path, constants.O_RDWR);
  } catch (error) {
    throw lockFileError(path, error);
  }
}

function lockFileError(path: string, error: unknown): IndexError {
  return new IndexError(
    "HOME_UNUSABLE",
    `cannot open the index lock ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    {
      hint: "check that you own RECALL_HOME and can write to it",
      cause: error,
    },
  );
}

/**
 * Tries once to take the lock (a few retries within ~6 ms absorb a concurrent `readIndexLockHolder` probe).
 * Returns the held lock (this pid is written into the file), or null when another open of the file holds it,
 * in this process or another live one. A holder that died holds nothing: the kernel released its lock.
 * @throws IndexError HOME_UNUSABLE when the lock file cannot be opened, INTERNAL when locks are unsupported
 */
export function tryAcquireIndexLock(path: string): IndexLock | null {
  const fd = openLockFile(path);
  let granted = false;
  try {
    for (let attempt = 0; attempt < 3 && !granted; attempt++) {
      if (attempt > 0) Bun.sleepSync(3);
      granted = tryFlock(fd, LOCK_EX, path);
    }
  } finally {
    if (!granted) closeSync(fd);
  }
  if (!granted) return null;
  ftruncateSync(fd, 0);
  writeSync(fd, `${process.pid}\n`, 0);
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      try {
        ftruncateSync(fd, 0); // the pid names a holder only while the lock is held
      } finally {
        closeSync(fd); // closing the last descriptor releases the flock
      }
    },
  };
}

/**
 * Returns the pid of the process holding the lock (as written in the file; undefined when unreadable), or
 * null when nobody holds it or the file does not exist. Probes with a shared lock taken and dropped at once.
 */
export function readIndexLockHolder(path: string): { pid: number | undefined } | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY);
  } catch {
    return null;
  }
  try {
    if (tryFlock(fd, LOCK_SH, path)) return null; // closing below drops the probe's lock
    const pid = Number.parseInt(readFileSync(path, "utf8"), 10);
    return { pid: Number.isInteger(pid) && pid > 0 ? pid : undefined };
  } finally {
    closeSync(fd);
  }
}

/** Names the holder for a message: "process 1234", or "another process" when its pid is not readable. */
export function describeIndexLockHolder(path: string): string {
  const pid = readIndexLockHolder(path)?.pid;
  return pid === undefined ? "another process" : `process ${pid}`;
}

/**
 * Takes the lock, waiting up to `waitMs` (ms; polls every 100 ms). A holder that exits or is killed releases
 * the lock at once, so the wait ends within ~100 ms of its death.
 * @throws IndexError INDEX_LOCKED when another live `recall index` still holds it after `waitMs`
 */
export async function acquireIndexLock(path: string, waitMs: number): Promise<IndexLock> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    const lock = tryAcquireIndexLock(path);
    if (lock) return lock;
    if (Date.now() >= deadline) {
      throw new IndexError(
        "INDEX_LOCKED",
        `another recall index run (${describeIndexLockHolder(path)}) is updating the index`,
        {
          hint: "wait for it to finish (`recall index --wait`), or run the command again in a moment",
        },
      );
    }
    await Bun.sleep(100);
  }
}
