/**
 * Opening a user's SQLite database for reading without ever writing next to it (runtime-notes §5),
 * shared by the OpenCode (`opencode*.db`, docs/formats.md §2.1) and Cursor (`state.vscdb`, §5) parsers.
 * With a `-wal` file present a writer may be live: a plain read-only connection applies the WAL.
 * Without one, a WAL-mode file is opened `immutable=1`, so no `-wal`/`-shm` files are created beside
 * the user's data (a read-only open otherwise leaves them behind). A folder where SQLite cannot open
 * read-only (SQLITE_READONLY_DIRECTORY / CANTOPEN when `-shm` is missing) falls back to a private temp
 * copy. Also the one-phrase description of why a database cannot be read now ("unavailable", issue 9).
 * The process-wide cache of open connections is sqlite-cache.ts; table checks and queries stay with
 * each parser.
 */
import { Database, constants } from "bun:sqlite";
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { SourceError } from "../../errors.ts";
import { errorCode, fsReason } from "../file-stats.ts";

/** How a database was opened: in place, in place as `immutable` (WAL mode, no `-wal` file), or from a temp copy. */
export type OpenMode = "readonly" | "immutable" | "copy";

/** One open read-only connection. */
export interface ReadonlyDatabase {
  /** The user's database file (also for a copy). */
  path: string;
  db: Database;
  mode: OpenMode;
  /** The private temp folder holding a copy (removed when the connection is closed), null in place. */
  copyDir: string | null;
}

/**
 * The file opened but is not a database the parser reads: zero bytes long, or without the parser's
 * tables. Its message is the lower-case phrase {@link describeSqliteError} reports, e.g.
 * "empty database file (0 bytes)" or "not an opencode database (no part table)".
 */
export class DatabaseContentError extends Error {}

/**
 * A parser's schema check, run on every fresh connection after `busy_timeout` is set.
 * @param tables names of the database's tables (`sqlite_master`)
 * @returns what the parser keeps about the schema; merged into the {@link ReadonlyDatabase}
 * @throws DatabaseContentError when the tables are not the parser's
 */
export type SchemaCheck<Schema> = (tables: Set<string>, db: Database) => Schema;

/** Options of {@link openReadonlySqlite}. */
export interface ReadonlyOpenOptions<Schema> {
  /** How long a read waits for a writer's lock, ms (runtime-notes §5: readers set busy_timeout too). */
  busyTimeoutMs: number;
  /** Start of the temp folder name of a copy, e.g. "recall-cursor-" (mkdtemp appends 6 random characters). */
  tempPrefix: string;
  schemaCheck: SchemaCheck<Schema>;
  /** Skip the in-place attempt and read a temp copy (tests exercise the fallback with it). */
  forceCopy?: boolean;
}

/**
 * One lower-case phrase for why a database cannot be read now, for "unavailable" reports:
 *   SQLITE_BUSY / SQLITE_LOCKED → "database is locked"; SQLITE_NOTADB → "file is not a database";
 *   SQLITE_CORRUPT → "database disk image is malformed"; other SQLITE_* → SQLite's message;
 *   {@link DatabaseContentError} → its message; EACCES → "permission denied" (other fs codes: fsReason);
 *   a SourceError from {@link openReadonlySqlite} → the phrase it was built from.
 */
export function describeSqliteError(error: unknown): string {
  const cause = error instanceof SourceError && error.cause !== undefined ? error.cause : error;
  const code = errorCode(cause) ?? "";
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "database is locked";
  if (code.startsWith("SQLITE_NOTADB")) return "file is not a database";
  if (code.startsWith("SQLITE_CORRUPT")) return "database disk image is malformed";
  if (code.startsWith("SQLITE_")) return String((cause as Error).message).toLowerCase();
  if (cause instanceof DatabaseContentError) return cause.message;
  if (code) return fsReason(cause);
  return String((cause as Error | null)?.message ?? cause).toLowerCase();
}

/**
 * Open one database read-only: in place, or from a temp copy when the folder does not allow it (or
 * `forceCopy`). `busy_timeout` is set and the schema checked now, so lock / format / `-shm` errors
 * surface at open time rather than mid-parse.
 * @returns the connection with the schema check's result merged in; the caller closes it with
 *   {@link closeReadonlyDatabase}
 * @throws SourceError `<path>: <phrase>` ({@link describeSqliteError}, the original error as `cause`)
 *   when the file cannot be read now: zero bytes, corrupt, locked past `busyTimeoutMs`, not the
 *   parser's tables, permission denied
 */
export function openReadonlySqlite<Schema>(
  path: string,
  options: ReadonlyOpenOptions<Schema>,
): ReadonlyDatabase & Schema {
  try {
    // SQLite opens a zero-byte file as an empty database; say what it is instead of "no tables".
    if (statSync(path).size === 0) throw new DatabaseContentError("empty database file (0 bytes)");
    if (options.forceCopy) return openCopy(path, options);
    try {
      return openInPlace(path, options);
    } catch (error) {
      if (!isPlacementError(error)) throw error;
      return openCopy(path, options);
    }
  } catch (error) {
    throw new SourceError(`${path}: ${describeSqliteError(error)}`, path, { cause: error });
  }
}

/** Close the connection and remove its temp copy; never throws for a broken connection. */
export function closeReadonlyDatabase(handle: ReadonlyDatabase): void {
  try {
    handle.db.close();
  } catch {
    // a broken connection must not keep the copy (or the caller's other connections) around
  }
  if (handle.copyDir) rmSync(handle.copyDir, { recursive: true, force: true });
}

/** True when the db header says WAL mode (file format bytes 18–19 == 2, sqlite.org/fileformat2). */
function isWalModeFile(path: string): boolean {
  const header = Buffer.alloc(20);
  const fd = openSync(path, "r");
  try {
    return readSync(fd, header, 0, 20, 0) === 20 && header[18] === 2 && header[19] === 2;
  } finally {
    closeSync(fd);
  }
}

/** Set busy_timeout, read the table names and run the parser's check; closes the connection on failure. */
function prepare<Schema>(
  path: string,
  db: Database,
  mode: OpenMode,
  copyDir: string | null,
  options: ReadonlyOpenOptions<Schema>,
): ReadonlyDatabase & Schema {
  try {
    db.run(`pragma busy_timeout = ${Math.max(0, Math.floor(options.busyTimeoutMs))}`);
    const tables = new Set(
      db
        .query<{ name: string }, []>("select name from sqlite_master where type = 'table'")
        .all()
        .map((row) => row.name),
    );
    return { path, db, mode, copyDir, ...options.schemaCheck(tables, db) };
  } catch (error) {
    db.close();
    throw error;
  }
}

/** Open in place: `immutable=1` (a URI; bun:sqlite accepts it with numeric flags incl. SQLITE_OPEN_URI) or read-only. */
function openInPlace<Schema>(path: string, options: ReadonlyOpenOptions<Schema>): ReadonlyDatabase & Schema {
  const mode: OpenMode = !existsSync(`${path}-wal`) && isWalModeFile(path) ? "immutable" : "readonly";
  const db =
    mode === "immutable"
      ? new Database(
          `file:${encodeURI(path).replace(/[?#]/g, encodeURIComponent)}?immutable=1`,
          constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI,
        )
      : new Database(path, { readonly: true });
  return prepare(path, db, mode, null, options);
}

/**
 * Copy the db and its `-wal` (never `-shm`) into a fresh 0700 temp folder and open the copy read-only.
 * The copy holds the whole file (credential tables included), so it lives only in that private folder
 * until the connection is closed.
 */
function openCopy<Schema>(path: string, options: ReadonlyOpenOptions<Schema>): ReadonlyDatabase & Schema {
  const copyDir = mkdtempSync(join(tmpdir(), options.tempPrefix));
  try {
    const copyPath = join(copyDir, basename(path));
    copyFileSync(path, copyPath);
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copyPath}-wal`);
    return prepare(path, new Database(copyPath, { readonly: true }), "copy", copyDir, options);
  } catch (error) {
    rmSync(copyDir, { recursive: true, force: true });
    throw error;
  }
}

/** Errors that mean "this folder will not let SQLite create its side files" → try a copy. */
function isPlacementError(error: unknown): boolean {
  const code = String((error as { code?: unknown }).code ?? "");
  return /^SQLITE_(CANTOPEN|READONLY)/.test(code) || /readonly|unable to open/i.test(String((error as Error).message));
}
