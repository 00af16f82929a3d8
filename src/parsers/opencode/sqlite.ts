/**
 * OpenCode SQLite access (docs/formats.md §2.1, runtime-notes §5): opening a live database
 * read-only with its WAL applied, one cached connection per database per process, the
 * copy-to-temp fallback for folders we cannot write to, and the session/message/part queries.
 * Only the `session`, `project`, `message` and `part` tables are ever read — never `account`,
 * `control_account`, `credential` or `account_state`. Turn building is left to messages.ts.
 * A database that cannot be read now (locked, empty, not a database, no transcript tables) is
 * reported with one phrase ({@link describeDatabaseError}); the parser calls it "unavailable" (issue 9).
 */
import { Database, constants } from "bun:sqlite";
import { closeSync, copyFileSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { SourceError } from "../../errors.ts";
import { errorCode, fsReason } from "../file-stats.ts";
import { fingerprintDatabase } from "./scan.ts";
import { asObject, noteSkip, type RawConversation, type RawMessage, type RawSession } from "./messages.ts";

/** How a database was opened: in place, in place as `immutable` (no WAL file exists), or from a temp copy. */
export type OpenMode = "readonly" | "immutable" | "copy";

/** One open database. `copyDir` is the temp folder holding a copy (deleted by {@link closeOpencodeDatabases}). */
export interface DatabaseHandle {
  path: string;
  db: Database;
  mode: OpenMode;
  copyDir: string | null;
  /** Older schemas might lack `part.session_id`; then parts are found through `message`. */
  hasPartSessionId: boolean;
  /** Whether `part.time_updated` exists (every schema seen has it; the change key uses it when present). */
  hasPartTimeUpdated: boolean;
}

/** What {@link prepareConnection} learns about the schema. */
interface SchemaInfo {
  hasPartSessionId: boolean;
  hasPartTimeUpdated: boolean;
}

/** A database without the transcript tables (not OpenCode's, or created but not yet migrated). */
class MissingTablesError extends Error {}

/** A zero-byte database file: OpenCode is creating it, or it was truncated. */
class EmptyDatabaseError extends Error {}

/** Options of {@link openOpencodeDatabase}. */
export interface OpenOptions {
  /** How long a read waits for a writer's lock, ms (runtime-notes §5: set busy_timeout on readers too). */
  busyTimeoutMs: number;
  /** Skip the in-place attempt and read a temp copy (tests exercise the fallback with it). */
  forceCopy?: boolean;
}

/** Cached connections by path, with the db + WAL fingerprint they were opened at. */
const handles = new Map<string, { handle: DatabaseHandle; fingerprint: string }>();
let isExitHookSet = false;

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

/** Apply busy_timeout and touch the schema so lock / format / shm errors surface now, not mid-parse. */
function prepareConnection(db: Database, busyTimeoutMs: number): SchemaInfo {
  db.run(`pragma busy_timeout = ${Math.max(0, Math.floor(busyTimeoutMs))}`);
  const tables = new Set(db.query<{ name: string }, []>("select name from sqlite_master where type = 'table'").all().map((row) => row.name));
  const missing = ["session", "message", "part"].filter((name) => !tables.has(name));
  if (missing.length > 0) throw new MissingTablesError(`not an opencode database (no ${missing.join(", ")} table)`);
  const partColumns = new Set(db.query<{ name: string }, []>("pragma table_info(part)").all().map((column) => column.name));
  return { hasPartSessionId: partColumns.has("session_id"), hasPartTimeUpdated: partColumns.has("time_updated") };
}

/**
 * One lower-case phrase for why a database cannot be read now, for "unavailable" reports:
 *   SQLITE_BUSY → "database is locked"; SQLITE_NOTADB → "file is not a database";
 *   SQLITE_CORRUPT → "database disk image is malformed"; missing tables → "not an opencode database (no part table)";
 *   EACCES → "permission denied"; a SourceError from {@link openOpencodeDatabase} → the phrase it was built from.
 */
export function describeDatabaseError(error: unknown): string {
  const cause = error instanceof SourceError && error.cause !== undefined ? error.cause : error;
  const code = errorCode(cause) ?? "";
  if (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED")) return "database is locked";
  if (code.startsWith("SQLITE_NOTADB")) return "file is not a database";
  if (code.startsWith("SQLITE_CORRUPT")) return "database disk image is malformed";
  if (code.startsWith("SQLITE_")) return String((cause as Error).message).toLowerCase();
  if (cause instanceof MissingTablesError || cause instanceof EmptyDatabaseError) return cause.message;
  if (code) return fsReason(cause);
  return String((cause as Error | null)?.message ?? cause).toLowerCase();
}

/**
 * Open in place. With a `-wal` file present a writer may be live: a plain read-only connection
 * applies the WAL. Without one, a WAL-mode db is opened `immutable=1` (a URI, which bun:sqlite
 * accepts with numeric flags incl. SQLITE_OPEN_URI) so no `-wal`/`-shm` files are created beside
 * the user's data (runtime-notes §5: a read-only open otherwise leaves them behind).
 */
function openInPlace(path: string, busyTimeoutMs: number): DatabaseHandle {
  const hasWal = existsSync(`${path}-wal`);
  const mode: OpenMode = !hasWal && isWalModeFile(path) ? "immutable" : "readonly";
  const db =
    mode === "immutable"
      ? new Database(`file:${encodeURI(path).replace(/[?#]/g, encodeURIComponent)}?immutable=1`, constants.SQLITE_OPEN_READONLY | constants.SQLITE_OPEN_URI)
      : new Database(path, { readonly: true });
  try {
    return { path, db, mode, copyDir: null, ...prepareConnection(db, busyTimeoutMs) };
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Copy the db and its `-wal` (never `-shm`) into a fresh 0700 temp folder and open the copy.
 * For folders we cannot write to (SQLITE_READONLY_DIRECTORY / CANTOPEN when `-shm` is missing,
 * runtime-notes §5). The copy holds the whole file, credential tables included, so it lives only
 * in the private temp folder until {@link closeOpencodeDatabases} or process exit removes it.
 */
export function openCopy(path: string, busyTimeoutMs: number): DatabaseHandle {
  const copyDir = mkdtempSync(join(tmpdir(), "recall-opencode-"));
  try {
    const copyPath = join(copyDir, basename(path));
    copyFileSync(path, copyPath);
    if (existsSync(`${path}-wal`)) copyFileSync(`${path}-wal`, `${copyPath}-wal`);
    const db = new Database(copyPath, { readonly: true });
    try {
      return { path, db, mode: "copy", copyDir, ...prepareConnection(db, busyTimeoutMs) };
    } catch (error) {
      db.close();
      throw error;
    }
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

/**
 * Open (or reuse) the process-wide connection to one OpenCode database. A cached connection is reused
 * while the db and WAL stats are unchanged; after a change it is reopened, because an `immutable` or
 * `copy` connection never sees later writes and a replaced file keeps the old one open (long-lived
 * processes, and tests that index twice in one process).
 * @returns the cached handle; the same object for every later call while the database is unchanged
 * @throws SourceError `<path>: <phrase>` when the file is not a readable OpenCode database now (empty,
 *   corrupt, locked past `busyTimeoutMs`, missing tables, permission denied); the listing reports the
 *   database unavailable, a parse fails (and the index retries it)
 */
export function openOpencodeDatabase(path: string, options: OpenOptions): DatabaseHandle {
  const fingerprint = fingerprintDatabase(path);
  const cached = handles.get(path);
  if (cached?.fingerprint === fingerprint) return cached.handle;
  if (cached) closeHandle(cached.handle);
  handles.delete(path);
  let handle: DatabaseHandle;
  try {
    // SQLite opens a zero-byte file as an empty database; say what it is instead of "no tables".
    if (statSync(path).size === 0) throw new EmptyDatabaseError("empty database file (0 bytes)");
    if (options.forceCopy) handle = openCopy(path, options.busyTimeoutMs);
    else {
      try {
        handle = openInPlace(path, options.busyTimeoutMs);
      } catch (error) {
        if (!isPlacementError(error)) throw error;
        handle = openCopy(path, options.busyTimeoutMs);
      }
    }
  } catch (error) {
    throw new SourceError(`${path}: ${describeDatabaseError(error)}`, path, { cause: error });
  }
  handles.set(path, { handle, fingerprint });
  if (!isExitHookSet) {
    isExitHookSet = true;
    process.on("exit", closeOpencodeDatabases);
  }
  return handle;
}

/** Close every cached connection and delete temp copies. Safe to call repeatedly; also runs at process exit. */
export function closeOpencodeDatabases(): void {
  for (const { handle } of handles.values()) closeHandle(handle);
  handles.clear();
}

function closeHandle(handle: DatabaseHandle): void {
  try {
    handle.db.close();
  } catch {
    // closing a broken connection must not stop the others from closing
  }
  if (handle.copyDir) rmSync(handle.copyDir, { recursive: true, force: true });
}

/** One listed db session plus its cheap change key ingredients. */
export interface DbSessionRow extends RawSession {
  messageCount: number;
  lastMessageUpdatedMs: number;
  /** Parts of the session, and the newest `part.time_updated` (0 when the column is absent). */
  partCount: number;
  lastPartUpdatedMs: number;
}

interface SessionRowRecord {
  id: string;
  parent_id: string | null;
  directory: string | null;
  title: string | null;
  time_created: number | null;
  time_updated: number | null;
  worktree: string | null;
  n: number | null;
  mu: number | null;
  pn: number | null;
  pu: number | null;
}

function toRawSession(row: SessionRowRecord): RawSession {
  return {
    id: row.id,
    parentId: row.parent_id || null,
    directory: row.directory ?? "",
    worktree: row.worktree ?? "",
    title: row.title || null,
    timeCreated: Number(row.time_created ?? 0),
    timeUpdated: Number(row.time_updated ?? 0),
  };
}

const sessionSelect = `select s.id, s.parent_id, s.directory, s.title, s.time_created, s.time_updated, p.worktree
  from session s left join project p on p.id = s.project_id`;

/**
 * Every session of a database with its change key ingredients: message count and newest message
 * `time_updated`, part count and newest part `time_updated`. Parts matter on their own: OpenCode adds
 * and updates parts of the newest message without moving `message.time_updated` or
 * `session.time_updated` (6 of 91 messages of the real 1.17.3 corpus db; issue 9).
 * Cost, measured 2026-11-23 on the 2-core dev VM, warm cache, generated db of 5,000 sessions / 47,716
 * messages / 150,518 parts (362 MB): message stats alone 33–42 ms; with part count + newest part time
 * about 90 ms more (the part times need a table scan; the count alone is a 20 ms index scan).
 */
export function listDbSessions(handle: DatabaseHandle): DbSessionRow[] {
  const partUpdated = handle.hasPartTimeUpdated ? "max(p.time_updated)" : "0";
  const partStats = handle.hasPartSessionId
    ? `select p.session_id, count(*) pn, ${partUpdated} pu from part p group by p.session_id`
    : `select m.session_id, count(*) pn, ${partUpdated} pu from part p join message m on m.id = p.message_id group by m.session_id`;
  const rows = handle.db
    .query<SessionRowRecord, []>(
      `select x.*, m.n, m.mu, p.pn, p.pu from (${sessionSelect}) x
       left join (select session_id, count(*) n, max(time_updated) mu from message group by session_id) m on m.session_id = x.id
       left join (${partStats}) p on p.session_id = x.id`,
    )
    .all();
  return rows.map((row) => ({
    ...toRawSession(row),
    messageCount: Number(row.n ?? 0),
    lastMessageUpdatedMs: Number(row.mu ?? 0),
    partCount: Number(row.pn ?? 0),
    lastPartUpdatedMs: Number(row.pu ?? 0),
  }));
}

/** Parts whose JSON we need (prose and tools); other types (file data URLs can be MBs) are not fetched. */
const wantedPartTypes = "('text', 'tool')";

/**
 * Load one session's messages (ordered by time_created, id) and wanted parts (ordered by id).
 * @returns null when the session id is not in this database
 */
export function loadDbConversation(handle: DatabaseHandle, sessionId: string): RawConversation | null {
  const row = handle.db.query<SessionRowRecord, [string]>(`${sessionSelect} where s.id = ?`).get(sessionId);
  if (!row) return null;
  const conversation: RawConversation = { session: toRawSession(row), messages: [], location: handle.path, bytesRead: 0, skipped: { count: 0 } };
  const byId = new Map<string, RawMessage>();
  const messageRows = handle.db
    .query<{ id: string; time_created: number; data: string }, [string]>("select id, time_created, data from message where session_id = ? order by time_created, id")
    .all(sessionId);
  for (const message of messageRows) {
    conversation.bytesRead += message.data.length;
    const data = parseJsonObject(message.data);
    if (!data) {
      noteSkip(conversation.skipped, `${handle.path}: message ${message.id}: not a JSON object`);
      continue;
    }
    const raw: RawMessage = { id: message.id, timeCreated: Number(message.time_created) || 0, data, parts: [] };
    conversation.messages.push(raw);
    byId.set(raw.id, raw);
  }
  for (const part of selectParts(handle, sessionId)) {
    conversation.bytesRead += part.data.length;
    const data = parseJsonObject(part.data);
    if (!data) noteSkip(conversation.skipped, `${handle.path}: part ${part.id}: not a JSON object`);
    else byId.get(part.message_id)?.parts.push({ id: part.id, data });
  }
  return conversation;
}

function selectParts(handle: DatabaseHandle, sessionId: string): Array<{ id: string; message_id: string; data: string }> {
  const where = handle.hasPartSessionId ? "session_id = ?" : "message_id in (select id from message where session_id = ?)";
  return handle.db
    .query<{ id: string; message_id: string; data: string }, [string]>(
      `select id, message_id, data from part where ${where}
       and (case when json_valid(data) then json_extract(data, '$.type') in ${wantedPartTypes} else 1 end) order by id`,
    )
    .all(sessionId);
}

/** JSON.parse to a plain object, or undefined for anything else (broken rows are counted, never thrown). */
export function parseJsonObject(text: string): Record<string, unknown> | undefined {
  try {
    return asObject(JSON.parse(text));
  } catch {
    return undefined;
  }
}
