/**
 * One process-wide read-only connection per database file (OpenCode and Cursor parsers), reused while
 * the db and its `-wal` are unchanged and reopened after a change: an `immutable` or `copy` connection
 * never sees later writes, and a replaced file keeps the old one open (long-lived processes, and tests
 * that index twice in one process). Every connection and temp copy is closed at process exit.
 */
import { statSync } from "node:fs";
import { statFingerprint } from "../file-stats.ts";
import { closeReadonlyDatabase, type ReadonlyDatabase } from "./readonly-sqlite.ts";

/**
 * Stats of the db and of its `-wal`, `-` for one that cannot be statted (absent):
 * `<size>:<mtimeMs>:<ctimeMs>:<ino>|<same for -wal or ->`. Two equal stamps mean "unchanged".
 */
function databaseStamp(path: string): string {
  const stamp = (file: string) => {
    try {
      return statFingerprint(statSync(file));
    } catch {
      return "-";
    }
  };
  return `${stamp(path)}|${stamp(`${path}-wal`)}`;
}

/** The open connections of one parser, by database path (one instance per parser, module-level). */
export class ReadonlyDatabaseCache<Handle extends ReadonlyDatabase> {
  private readonly handles = new Map<string, { handle: Handle; stamp: string }>();
  private isExitHookSet = false;

  /**
   * The cached connection to `path` while its db and `-wal` stats are unchanged; otherwise the old one
   * is closed and `open()` called. The first successful open registers {@link closeAll} at process exit.
   * @returns the same object for every later call while the database is unchanged
   * @throws whatever `open` throws (nothing is cached then)
   */
  reuseOrOpen(path: string, open: () => Handle): Handle {
    const stamp = databaseStamp(path);
    const cached = this.handles.get(path);
    if (cached?.stamp === stamp) return cached.handle;
    if (cached) closeReadonlyDatabase(cached.handle);
    this.handles.delete(path);
    const handle = open();
    this.handles.set(path, { handle, stamp });
    if (!this.isExitHookSet) {
      this.isExitHookSet = true;
      process.on("exit", () => this.closeAll());
    }
    return handle;
  }

  /** Close every cached connection and delete temp copies. Safe to call repeatedly. */
  closeAll(): void {
    for (const { handle } of this.handles.values()) closeReadonlyDatabase(handle);
    this.handles.clear();
  }
}
