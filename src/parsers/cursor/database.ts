/**
 * Read-only access to Cursor `state.vscdb` files (docs/formats.md §5): VS Code-style SQLite key-value
 * stores with `ItemTable(key TEXT UNIQUE, value BLOB)` and, in newer versions' global database,
 * `cursorDiskKV(key, value)`. Only chat keys are ever read, one key or one key range at a time:
 * `aiService.prompts`, `workbench.panel.aichat.view.aichat.chatdata`, `composer.composerData`,
 * `composerData:<id>` and `bubbleId:<id>:<bubble>`; never `cursorAuth/*` or any `SELECT *`.
 * Opening never writes next to the user's data: a WAL-mode file without a `-wal` is opened
 * `immutable=1`, anything else read-only (runtime-notes §5); a folder SQLite cannot use read-only
 * (missing `-shm` in a read-only folder) falls back to a private temp copy.
 */
import { Database, constants } from "bun:sqlite";
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { SourceError } from "../../errors.ts";
import { errorCode, fsReason, statFingerprint } from "../file-stats.ts";

/** One open Cursor database. `copyDir` is the temp folder of a copy (removed by {@link closeCursorDatabases}). */
export interface CursorDatabase {
  path: string;
  db: Database;
  /** Whether the `cursorDiskKV` table exists (global database of Cursor ≥ 0.4x; formats.md §5). */
  hasDiskKv: boolean;
  copyDir: string | null;
}

/** A file that is not a Cursor state database (no `ItemTable`) or is zero bytes long. */
class NotStateDatabaseError extends Error {}

const handles = new Map<string, { handle: CursorDatabase; fingerprint: string }>();
let isExitHookSet = false;

/** Stats of the db and its `-wal` (`-` when absent): reopen when either changed. */
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

/** True when the header says WAL mode (file format bytes 18–19 == 2, sqlite.org/fileformat2). */
function isWalModeFile(path: string): boolean {
  const header = Buffer.alloc(20);
  const fd = openSync(path, "r");
  try {
    return readSync(fd, header, 0, 20, 0) === 20 && header[18] === 2 && header[19] === 2;
  } finally {
    closeSync(fd);
  }
}

function tableNames(db: Database): Set<string> {
  return new Set(db.query<{ name: string }, []>("select name from sqlite_master where type = 'table'").all().map((row) => row.name));
}

/** Busy timeout and a schema read, so lock / format errors surface at open time. */
function prepare(path: string, db: Database, busyTimeoutMs: number, copyDir: string | null): CursorDatabase {
  db.run(`pragma busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  const tables = tableNames(db);
  if (!tables.has("ItemTable")) throw new NotStateDatabaseError("not a cursor state database (no ItemTable table)");
  return { path, db, hasDiskKv: tables.has("cursorDiskKV"), copyDir };
}

function openInPlace(path: string, busyTimeoutMs: number): CursorDatabase {
  const immutable = !existsSync(`${path}-wal`) && isWalModeFile(path);
  const db = immutable
    ? new Database(`file:${encodeURI(path).replace(/[?#]/g, encodeURIComponent)}?immutable=1`, constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI)
    : new Database(path, { readonly: true });
  try {
    return prepare(path, db, busyTimeoutMs, null);
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Copy the db and its `-wal` (never `-shm`) to a private 0700 temp folder and open the copy read-only. */
function openCopy(path: string, busyTimeoutMs: number): CursorDatabase {
  const copyDir = mkdtempSync(join(tmpdir(), "recall-cursor-"));
  try {
    const copyPath = join(copyDir, basename(path));
    copyFileSync(path, copyPath);
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copyPath}-wal`);
    const db = new Database(copyPath, { readonly: true });
    try {
      return prepare(path, db, busyTimeoutMs, copyDir);
    } catch (error) {
      db.close();
      throw error;
    }
  } catch (error) {
    rmSync(copyDir, { recursive: true, force: true });
    throw error;
  }
}

function isPlacementError(error: unknown): boolean {
  const code = String((error as { code?: unknown }).code ?? "");
  return /^SQLITE_(CANTOPEN|READONLY)/.test(code) || /readonly|unable to open/i.test(String((error as Error).message));
}

/**
 * One lower-case phrase for why a database cannot be read now (the "unavailable" reason):
 * SQLITE_BUSY/LOCKED → "database is locked"; SQLITE_NOTADB → "file is not a database";
 * SQLITE_CORRUPT → "database disk image is malformed"; zero bytes → "empty database file (0 bytes)";
 * no ItemTable → "not a cursor state database (no ItemTable table)"; EACCES → "permission denied".
 */
export function describeCursorDatabaseError(error: unknown): string {
  const cause = error instanceof SourceError && error.cause !== undefined ? error.cause : error;
  const code = errorCode(cause) ?? "";
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "database is locked";
  if (code.startsWith("SQLITE_NOTADB")) return "file is not a database";
  if (code.startsWith("SQLITE_CORRUPT")) return "database disk image is malformed";
  if (code.startsWith("SQLITE_")) return String((cause as Error).message).toLowerCase();
  if (cause instanceof NotStateDatabaseError) return cause.message;
  if (code) return fsReason(cause);
  return String((cause as Error | null)?.message ?? cause).toLowerCase();
}

/**
 * Open (or reuse while its db and WAL stats are unchanged) the read-only connection to one `state.vscdb`.
 * @throws SourceError `<path>: <phrase>` ({@link describeCursorDatabaseError}) when it cannot be read now
 */
export function openCursorDatabase(path: string, busyTimeoutMs = 2000): CursorDatabase {
  const fingerprint = databaseStamp(path);
  const cached = handles.get(path);
  if (cached?.fingerprint === fingerprint) return cached.handle;
  if (cached) closeHandle(cached.handle);
  handles.delete(path);
  let handle: CursorDatabase;
  try {
    if (statSync(path).size === 0) throw new NotStateDatabaseError("empty database file (0 bytes)");
    try {
      handle = openInPlace(path, busyTimeoutMs);
    } catch (error) {
      if (!isPlacementError(error)) throw error;
      handle = openCopy(path, busyTimeoutMs);
    }
  } catch (error) {
    throw new SourceError(`${path}: ${describeCursorDatabaseError(error)}`, path, { cause: error });
  }
  handles.set(path, { handle, fingerprint });
  if (!isExitHookSet) {
    isExitHookSet = true;
    process.on("exit", closeCursorDatabases);
  }
  return handle;
}

/** Close every cached connection and remove temp copies; safe to call repeatedly (also runs at exit). */
export function closeCursorDatabases(): void {
  for (const { handle } of handles.values()) closeHandle(handle);
  handles.clear();
}

function closeHandle(handle: CursorDatabase): void {
  try {
    handle.db.close();
  } catch {
    // a broken connection must not keep the others open
  }
  if (handle.copyDir) rmSync(handle.copyDir, { recursive: true, force: true });
}

/** A stored value as text: values are TEXT in some versions and BLOB (UTF-8 JSON) in others. */
export function valueText(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (value instanceof Uint8Array) return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("utf8");
  return null;
}

/** One `ItemTable` value by exact key, as text; null when absent. Only chat keys are passed here. */
export function readItem(handle: CursorDatabase, key: string): string | null {
  const row = handle.db.query<{ value: unknown }, [string]>("select value from ItemTable where key = ?").get(key);
  return row ? valueText(row.value) : null;
}

/** One `cursorDiskKV` value by exact key, as text; null when absent or the table does not exist. */
export function readDiskValue(handle: CursorDatabase, key: string): string | null {
  if (!handle.hasDiskKv) return null;
  const row = handle.db.query<{ value: unknown }, [string]>("select value from cursorDiskKV where key = ?").get(key);
  return row ? valueText(row.value) : null;
}

/**
 * `cursorDiskKV` rows whose key starts with `prefix` (e.g. `composerData:`), through the key's unique
 * index: `key >= prefix and key < prefix-with-last-char-incremented` (no LIKE wildcards to escape).
 */
export function readDiskRange(handle: CursorDatabase, prefix: string): Array<{ key: string; value: string | null }> {
  if (!handle.hasDiskKv) return [];
  const upper = prefix.slice(0, -1) + String.fromCharCode(prefix.charCodeAt(prefix.length - 1) + 1);
  return handle.db
    .query<{ key: string; value: unknown }, [string, string]>("select key, value from cursorDiskKV where key >= ? and key < ? order by key")
    .all(prefix, upper)
    .map((row) => ({ key: row.key, value: valueText(row.value) }));
}

/**
 * Per composer: how many `bubbleId:<composerId>:*` rows exist and their total stored length, for the
 * change key (one index scan, no JSON decoding). Map keyed by composer id.
 */
export function bubbleStatsByComposer(handle: CursorDatabase): Map<string, { count: number; length: number }> {
  const stats = new Map<string, { count: number; length: number }>();
  if (!handle.hasDiskKv) return stats;
  const rows = handle.db
    .query<{ composer: string; n: number; total: number | null }, []>(
      `select substr(key, 10, instr(substr(key, 10), ':') - 1) composer, count(*) n, sum(length(value)) total
       from cursorDiskKV where key >= 'bubbleId:' and key < 'bubbleId;' group by composer`,
    )
    .all();
  for (const row of rows) stats.set(row.composer, { count: Number(row.n), length: Number(row.total ?? 0) });
  return stats;
}
