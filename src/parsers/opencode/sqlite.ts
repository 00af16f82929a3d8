/**
 * OpenCode SQLite access (docs/formats.md §2.1, runtime-notes §5): the transcript-table check and
 * the session/message/part queries. Opening a live database read-only with its WAL applied (or
 * `immutable`, or from a temp copy) and the one cached connection per database per process are
 * shared with Cursor (shared/readonly-sqlite.ts, shared/sqlite-cache.ts).
 * Only the `session`, `project`, `message` and `part` tables are ever read — never `account`,
 * `control_account`, `credential` or `account_state`. Turn building is left to messages.ts.
 * A database that cannot be read now (locked, empty, not a database, no transcript tables) is
 * reported with one phrase (describeSqliteError); the parser calls it "unavailable" (issue 9).
 */
import type { Database } from "bun:sqlite";
import { DatabaseContentError, openReadonlySqlite, type ReadonlyDatabase } from "../shared/readonly-sqlite.ts";
import { ReadonlyDatabaseCache } from "../shared/sqlite-cache.ts";
import { noteSkip } from "../shared/skips.ts";
import { asObject, type RawConversation, type RawMessage, type RawSession } from "./messages.ts";

/** One open OpenCode database (its temp copy, if any, is deleted by {@link closeOpencodeDatabases}). */
export interface DatabaseHandle extends ReadonlyDatabase {
  /** Older schemas might lack `part.session_id`; then parts are found through `message`. */
  hasPartSessionId: boolean;
  /** Whether `part.time_updated` exists (every schema seen has it; the change key uses it when present). */
  hasPartTimeUpdated: boolean;
}

/** What {@link checkOpencodeSchema} learns about the schema. */
interface SchemaInfo {
  hasPartSessionId: boolean;
  hasPartTimeUpdated: boolean;
}

/** Options of {@link openOpencodeDatabase}. */
export interface OpenOptions {
  /** How long a read waits for a writer's lock, ms (runtime-notes §5: set busy_timeout on readers too). */
  busyTimeoutMs: number;
  /** Skip the in-place attempt and read a temp copy (tests exercise the fallback with it). */
  forceCopy?: boolean;
}

const databases = new ReadonlyDatabaseCache<DatabaseHandle>();

/** The transcript tables must exist (not OpenCode's, or created but not yet migrated, otherwise); reads `part`'s columns. */
function checkOpencodeSchema(tables: Set<string>, db: Database): SchemaInfo {
  const missing = ["session", "message", "part"].filter((name) => !tables.has(name));
  if (missing.length > 0) throw new DatabaseContentError(`not an opencode database (no ${missing.join(", ")} table)`);
  const partColumns = new Set(
    db
      .query<{ name: string }, []>("pragma table_info(part)")
      .all()
      .map((column) => column.name),
  );
  return { hasPartSessionId: partColumns.has("session_id"), hasPartTimeUpdated: partColumns.has("time_updated") };
}

/**
 * Open (or reuse) the process-wide connection to one OpenCode database. A cached connection is reused
 * while the db and WAL stats are unchanged and reopened after a change (shared/sqlite-cache.ts).
 * @returns the cached handle; the same object for every later call while the database is unchanged
 * @throws SourceError `<path>: <phrase>` (describeSqliteError, shared/readonly-sqlite.ts) when the file is
 *   not a readable OpenCode database now (empty, corrupt, locked past `busyTimeoutMs`, missing tables,
 *   permission denied); the listing reports the database unavailable, a parse fails (and the index retries it)
 */
export function openOpencodeDatabase(path: string, options: OpenOptions): DatabaseHandle {
  return databases.reuseOrOpen(path, () =>
    openReadonlySqlite(path, {
      busyTimeoutMs: options.busyTimeoutMs,
      forceCopy: options.forceCopy,
      tempPrefix: "recall-opencode-",
      schemaCheck: checkOpencodeSchema,
    }),
  );
}

/** Close every cached connection and delete temp copies. Safe to call repeatedly; also runs at process exit. */
export function closeOpencodeDatabases(): void {
  databases.closeAll();
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
  const conversation: RawConversation = {
    session: toRawSession(row),
    messages: [],
    location: handle.path,
    bytesRead: 0,
    skipped: { count: 0 },
  };
  const byId = new Map<string, RawMessage>();
  const messageRows = handle.db
    .query<{ id: string; time_created: number; data: string }, [string]>(
      "select id, time_created, data from message where session_id = ? order by time_created, id",
    )
    .all(sessionId);
  for (const message of messageRows) {
    conversation.bytesRead += message.data.length;
    const data = parseJsonObject(message.data);
    if (!data) {
      noteSkip(conversation.skipped, `${handle.path}: message ${message.id}`, "not a JSON object");
      continue;
    }
    const raw: RawMessage = { id: message.id, timeCreated: Number(message.time_created) || 0, data, parts: [] };
    conversation.messages.push(raw);
    byId.set(raw.id, raw);
  }
  for (const part of selectParts(handle, sessionId)) {
    conversation.bytesRead += part.data.length;
    const data = parseJsonObject(part.data);
    if (!data) noteSkip(conversation.skipped, `${handle.path}: part ${part.id}`, "not a JSON object");
    else byId.get(part.message_id)?.parts.push({ id: part.id, data });
  }
  return conversation;
}

function selectParts(
  handle: DatabaseHandle,
  sessionId: string,
): Array<{ id: string; message_id: string; data: string }> {
  const where = handle.hasPartSessionId
    ? "session_id = ?"
    : "message_id in (select id from message where session_id = ?)";
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
