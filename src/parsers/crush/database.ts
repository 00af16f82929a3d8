/**
 * A Crush `crush.db` (docs/formats/crush.md), read-only and cached as the other databases are
 * (shared/readonly-sqlite.ts, shared/sqlite-cache.ts). Tables as charmbracelet/crush `internal/db/migrations/` creates
 * them (37f36e93): `sessions (id, parent_session_id, title, message_count, prompt_tokens, completion_tokens, cost,
 * updated_at, created_at, summary_message_id, todos)` and `messages (id, session_id, role, parts, model, provider,
 * is_summary_message, created_at, updated_at, finished_at)`; times in Unix seconds (`strftime('%s', 'now')`). Only
 * these two tables are read (`files` holds file snapshots, `read_files` read times); columns a version lacks are read
 * as null.
 */
import type { Database } from "bun:sqlite";
import { DatabaseContentError, openReadonlySqlite, type ReadonlyDatabase } from "../shared/readonly-sqlite.ts";
import { ReadonlyDatabaseCache } from "../shared/sqlite-cache.ts";

/** One open Crush database and which optional columns its schema has. */
export interface CrushDatabase extends ReadonlyDatabase {
  /** Optional columns present, as `<table>.<column>`. */
  columns: Set<string>;
}

/** One `sessions` row with its change key ingredients. */
export interface CrushSessionRow {
  id: string;
  parent_session_id: string | null;
  title: string | null;
  prompt_tokens: number | null;
  completion_tokens: number | null;
  cost: number | null;
  created_at: number | null;
  updated_at: number | null;
  /** Messages in the table, their newest `updated_at` and the total length of their parts (streamed updates). */
  message_count: number;
  last_message_update: number | null;
  parts_length: number | null;
}

/** One `messages` row, in conversation order. */
export interface CrushMessageRow {
  id: string;
  role: string;
  parts: string;
  model: string | null;
  provider: string | null;
  is_summary_message: number | null;
  created_at: number | null;
}

const databases = new ReadonlyDatabaseCache<CrushDatabase>();

const optional = ["messages.provider", "messages.is_summary_message"];

function checkCrushSchema(tables: Set<string>, db: Database): { columns: Set<string> } {
  const missing = ["sessions", "messages"].filter((name) => !tables.has(name));
  if (missing.length > 0) throw new DatabaseContentError(`not a crush database (no ${missing.join(", ")} table)`);
  const columns = new Set<string>();
  for (const table of ["sessions", "messages"]) {
    for (const { name } of db.query<{ name: string }, []>(`pragma table_info(${table})`).all()) {
      columns.add(`${table}.${name}`);
    }
  }
  const needed = [
    "sessions.id",
    "sessions.parent_session_id",
    "sessions.title",
    "messages.session_id",
    "messages.role",
    "messages.parts",
    "messages.created_at",
  ].filter((name) => !columns.has(name));
  if (needed.length > 0) throw new DatabaseContentError(`not a crush database (no ${needed.join(", ")} column)`);
  return { columns };
}

/**
 * Open (or reuse while unchanged) the read-only connection to one Crush database.
 * @throws SourceError `<path>: <phrase>` when it cannot be read now (locked, empty, corrupt, not Crush's tables)
 */
export function openCrushDatabase(path: string, busyTimeoutMs = 2000): CrushDatabase {
  return databases.reuseOrOpen(path, () =>
    openReadonlySqlite(path, { busyTimeoutMs, tempPrefix: "recall-crush-", schemaCheck: checkCrushSchema }),
  );
}

const sessionSelect = `select s.id, s.parent_session_id, s.title, s.prompt_tokens, s.completion_tokens, s.cost,
    s.created_at, s.updated_at, coalesce(m.n, 0) as message_count, m.last as last_message_update,
    m.size as parts_length
  from sessions s
  left join (select session_id, count(*) n, max(updated_at) last, sum(length(parts)) size from messages
    group by session_id) m
    on m.session_id = s.id`;

/** Every session of the database with its change key ingredients. */
export function listCrushSessions(handle: CrushDatabase): CrushSessionRow[] {
  return handle.db.query<CrushSessionRow, []>(sessionSelect).all();
}

/** One session's row, or undefined when it is gone. */
export function loadCrushSession(handle: CrushDatabase, sessionId: string): CrushSessionRow | undefined {
  return handle.db.query<CrushSessionRow, [string]>(`${sessionSelect} where s.id = ?`).get(sessionId) ?? undefined;
}

/** The sessions started from `sessionId` (its sub-agents), by id, with the cost each recorded (USD). */
export function childSessions(handle: CrushDatabase, sessionId: string): Map<string, number> {
  const rows = handle.db
    .query<{ id: string; cost: number | null }, [string]>("select id, cost from sessions where parent_session_id = ?")
    .all(sessionId);
  return new Map(rows.map((row) => [row.id, row.cost ?? 0]));
}

/**
 * One session's messages in Crush's order (`ListMessagesBySession`: `created_at`, whole seconds, then the row order
 * they were written in).
 */
export function loadCrushMessages(handle: CrushDatabase, sessionId: string): CrushMessageRow[] {
  const column = (name: string) => (handle.columns.has(`messages.${name}`) ? name : `null as ${name}`);
  return handle.db
    .query<CrushMessageRow, [string]>(
      `select id, role, parts, model, ${optional.map((name) => column(name.split(".")[1]!)).join(", ")}, created_at
       from messages where session_id = ? order by created_at, rowid`,
    )
    .all(sessionId);
}
