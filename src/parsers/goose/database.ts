/**
 * Goose's `sessions.db` (docs/formats/goose.md), read-only and cached as OpenCode's databases are
 * (shared/readonly-sqlite.ts, shared/sqlite-cache.ts). Tables as `crates/goose/src/session/session_manager.rs` creates
 * and migrates them (schema versions 1–5 at 01643006, later ones add `provider_name`, `model_config_json`,
 * `message_id`, … at dbec1655): `sessions (id, name, description, session_type, working_dir, created_at, updated_at,
 * accumulated_input_tokens, accumulated_output_tokens, …)` and `messages (id autoincrement, session_id, role,
 * content_json, created_timestamp, metadata_json, …)`. Only these two tables are read; columns a version lacks are
 * read as null (`pragma table_info`).
 */
import type { Database } from "bun:sqlite";
import { DatabaseContentError, openReadonlySqlite, type ReadonlyDatabase } from "../shared/readonly-sqlite.ts";
import { ReadonlyDatabaseCache } from "../shared/sqlite-cache.ts";

/** One open Goose database and which of the optional columns its schema has. */
export interface GooseDatabase extends ReadonlyDatabase {
  /** `sessions` columns present (the optional ones are selected only when there). */
  sessionColumns: Set<string>;
}

/** One `sessions` row as recall reads it; optional columns are null when the schema lacks them. */
export interface GooseSessionRow {
  id: string;
  name: string | null;
  description: string | null;
  session_type: string | null;
  working_dir: string | null;
  created_at: string | number | null;
  updated_at: string | number | null;
  accumulated_input_tokens: number | null;
  accumulated_output_tokens: number | null;
  model_config_json: string | null;
  /** Messages of the session, and the largest message row id (the change key's ingredients). */
  message_count: number;
  last_message_row: number | null;
}

/** One `messages` row, in row order. */
export interface GooseMessageRow {
  id: number;
  role: string;
  content_json: string;
  /** Unix seconds (`Message.created`, chrono `Utc::now().timestamp()`). */
  created_timestamp: number | null;
  metadata_json: string | null;
}

const databases = new ReadonlyDatabaseCache<GooseDatabase>();

const optionalSessionColumns = [
  "name",
  "description",
  "session_type",
  "accumulated_input_tokens",
  "accumulated_output_tokens",
  "model_config_json",
];

function checkGooseSchema(tables: Set<string>, db: Database): { sessionColumns: Set<string> } {
  const missing = ["sessions", "messages"].filter((name) => !tables.has(name));
  if (missing.length > 0) throw new DatabaseContentError(`not a goose database (no ${missing.join(", ")} table)`);
  const columns = (table: string) =>
    new Set(
      db
        .query<{ name: string }, []>(`pragma table_info(${table})`)
        .all()
        .map((column) => column.name),
    );
  const sessionColumns = columns("sessions");
  const needed = ["id", "working_dir", "created_at", "updated_at"].filter((name) => !sessionColumns.has(name));
  const messageColumns = columns("messages");
  needed.push(
    ...["id", "session_id", "role", "content_json", "created_timestamp"].filter((name) => !messageColumns.has(name)),
  );
  if (needed.length > 0) throw new DatabaseContentError(`not a goose database (no ${needed.join(", ")} column)`);
  if (messageColumns.has("metadata_json")) sessionColumns.add("messages.metadata_json");
  return { sessionColumns };
}

/**
 * Open (or reuse while unchanged) the read-only connection to one Goose database.
 * @throws SourceError `<path>: <phrase>` when it cannot be read now (locked, empty, corrupt, not Goose's tables)
 */
export function openGooseDatabase(path: string, busyTimeoutMs = 2000): GooseDatabase {
  return databases.reuseOrOpen(path, () =>
    openReadonlySqlite(path, { busyTimeoutMs, tempPrefix: "recall-goose-", schemaCheck: checkGooseSchema }),
  );
}

/** The session rows, all or (with `sessionId`) one, with their message counts and last message row ids. */
function selectSessions(handle: GooseDatabase, sessionId?: string): GooseSessionRow[] {
  const optional = optionalSessionColumns
    .map((name) => (handle.sessionColumns.has(name) ? `s.${name}` : `null as ${name}`))
    .join(", ");
  const sql = `select s.id, s.working_dir, s.created_at, s.updated_at, ${optional},
       coalesce(m.n, 0) as message_count, m.last as last_message_row
     from sessions s
     left join (select session_id, count(*) n, max(id) last from messages group by session_id) m
       on m.session_id = s.id`;
  if (sessionId === undefined) return handle.db.query<GooseSessionRow, []>(sql).all();
  return handle.db.query<GooseSessionRow, [string]>(`${sql} where s.id = ?`).all(sessionId);
}

/** Every session of the database with its message count and last message row id. */
export function listGooseSessions(handle: GooseDatabase): GooseSessionRow[] {
  return selectSessions(handle);
}

/** One session's row, or undefined when it is gone. */
export function loadGooseSession(handle: GooseDatabase, sessionId: string): GooseSessionRow | undefined {
  return selectSessions(handle, sessionId)[0];
}

/** One session's messages in the order Goose wrote them (row id: `replace_conversation` rewrites them in order). */
export function loadGooseMessages(handle: GooseDatabase, sessionId: string): GooseMessageRow[] {
  const metadata = handle.sessionColumns.has("messages.metadata_json") ? "metadata_json" : "null as metadata_json";
  return handle.db
    .query<GooseMessageRow, [string]>(
      `select id, role, content_json, created_timestamp, ${metadata} from messages where session_id = ? order by id`,
    )
    .all(sessionId);
}
