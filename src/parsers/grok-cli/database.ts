/**
 * Reading a Grok CLI database (docs/formats/grok-cli.md): schema of superagent-ai/grok-cli `src/storage/migrations.ts`
 * (commit fb97af83, `user_version` 3). Only `sessions`, `messages`, `usage_events` and `compactions` are read:
 * - `sessions (id, workspace_id, title, model, mode, cwd_at_start, cwd_last, status, created_at, updated_at, …)`;
 * - `messages (session_id, seq, role, message_json, created_at)`: one AI SDK `ModelMessage` per row, in `seq` order
 *   (`src/storage/transcript.ts` `appendMessages`);
 * - `usage_events (session_id, message_seq, source, model, input_tokens, output_tokens, total_tokens, cost_micros)`.
 * - `compactions (session_id, first_kept_seq, summary, tokens_before, created_at)`: the summaries, the session's
 *   abstract (issue 41; the messages they summarize stay in `messages`).
 * `tool_calls` and `tool_results` repeat what the messages hold.
 * The database is opened read-only with its WAL applied, or from a temp copy (shared/readonly-sqlite.ts).
 */
import type { Database } from "bun:sqlite";
import {
  closeReadonlyDatabase,
  DatabaseContentError,
  openReadonlySqlite,
  type ReadonlyDatabase,
} from "../shared/readonly-sqlite.ts";

/** One session row with its change-key ingredients. */
export interface SessionRow {
  id: string;
  title: string | null;
  model: string;
  cwdAtStart: string;
  createdAt: string;
  updatedAt: string;
  messageCount: number;
  lastSeq: number;
  usageCount: number;
}

/** One message row. */
export interface MessageRow {
  seq: number;
  role: string;
  messageJson: string;
  createdAt: string;
}

/** One compaction row: its summary and creation time (as written, ISO text). */
export interface CompactionRow {
  summary: string;
  createdAt: string;
}

/** One usage row. */
export interface UsageRow {
  messageSeq: number | null;
  model: string;
  inputTokens: number;
  outputTokens: number;
  costMicros: number;
}

/** The tables read must exist (another database, or one created but not migrated, otherwise). */
function checkSchema(tables: Set<string>, _db: Database): Record<string, never> {
  const missing = ["sessions", "messages"].filter((name) => !tables.has(name));
  if (missing.length > 0) throw new DatabaseContentError(`not a grok-cli database (no ${missing.join(", ")} table)`);
  return {};
}

/**
 * Run `read` on the database at `path`, opened read-only, and close it.
 * @throws SourceError `<path>: <phrase>` when it is not a readable Grok CLI database now (shared/readonly-sqlite.ts)
 */
export function withGrokDatabase<T>(path: string, read: (handle: ReadonlyDatabase) => T): T {
  const handle = openReadonlySqlite(path, {
    busyTimeoutMs: 2000,
    tempPrefix: "recall-grok-",
    schemaCheck: checkSchema,
  });
  try {
    return read(handle);
  } finally {
    closeReadonlyDatabase(handle);
  }
}

/** Every session with its message count, last `seq` and usage row count. */
export function listSessions(handle: ReadonlyDatabase): SessionRow[] {
  const hasUsage = hasTable(handle, "usage_events");
  const usage = hasUsage ? "(select count(*) from usage_events u where u.session_id = s.id)" : "0";
  const rows = handle.db
    .query<Record<string, unknown>, []>(
      `select s.id, s.title, s.model, s.cwd_at_start, s.created_at, s.updated_at,
         (select count(*) from messages m where m.session_id = s.id) n,
         (select max(seq) from messages m where m.session_id = s.id) last_seq,
         ${usage} usage_n
       from sessions s order by s.created_at`,
    )
    .all();
  return rows.map((row) => ({
    id: String(row.id),
    title: typeof row.title === "string" && row.title ? row.title : null,
    model: String(row.model ?? ""),
    cwdAtStart: String(row.cwd_at_start ?? ""),
    createdAt: String(row.created_at ?? ""),
    updatedAt: String(row.updated_at ?? ""),
    messageCount: Number(row.n ?? 0),
    lastSeq: Number(row.last_seq ?? -1),
    usageCount: Number(row.usage_n ?? 0),
  }));
}

/**
 * One session's row, messages (by `seq`), usage rows and compactions (by `id`, [] when the table is absent); null when
 * the session is not in the database.
 */
export function loadSession(
  handle: ReadonlyDatabase,
  sessionId: string,
): { session: SessionRow; messages: MessageRow[]; usage: UsageRow[]; compactions: CompactionRow[] } | null {
  const session = listSessions(handle).find((row) => row.id === sessionId);
  if (!session) return null;
  const messages = handle.db
    .query<{ seq: number; role: string; message_json: string; created_at: string }, [string]>(
      "select seq, role, message_json, created_at from messages where session_id = ? order by seq",
    )
    .all(sessionId)
    .map((row) => ({ seq: row.seq, role: row.role, messageJson: row.message_json, createdAt: row.created_at }));
  const usage = hasTable(handle, "usage_events")
    ? handle.db
        .query<
          {
            message_seq: number | null;
            model: string;
            input_tokens: number;
            output_tokens: number;
            cost_micros: number;
          },
          [string]
        >(
          "select message_seq, model, input_tokens, output_tokens, cost_micros from usage_events where session_id = ? order by id",
        )
        .all(sessionId)
        .map((row) => ({
          messageSeq: row.message_seq,
          model: row.model,
          inputTokens: row.input_tokens,
          outputTokens: row.output_tokens,
          costMicros: row.cost_micros,
        }))
    : [];
  const compactions = hasTable(handle, "compactions")
    ? handle.db
        .query<{ summary: string; created_at: string }, [string]>(
          "select summary, created_at from compactions where session_id = ? order by id",
        )
        .all(sessionId)
        .map((row) => ({ summary: row.summary, createdAt: row.created_at }))
    : [];
  return { session, messages, usage, compactions };
}

function hasTable(handle: ReadonlyDatabase, name: string): boolean {
  return (
    handle.db
      .query<{ n: number }, [string]>("select count(*) n from sqlite_master where type = 'table' and name = ?")
      .get(name)?.n === 1
  );
}
