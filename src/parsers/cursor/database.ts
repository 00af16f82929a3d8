/**
 * Read-only access to Cursor `state.vscdb` files (docs/formats.md §5): VS Code-style SQLite key-value
 * stores with `ItemTable(key TEXT UNIQUE, value BLOB)` and, in newer versions' global database,
 * `cursorDiskKV(key, value)`. Only chat keys are ever read, one key or one key range at a time:
 * `aiService.prompts`, `workbench.panel.aichat.view.aichat.chatdata`, `composer.composerData`,
 * `composerData:<id>` and `bubbleId:<id>:<bubble>`; never `cursorAuth/*` or any `SELECT *`.
 * Opening never writes next to the user's data (shared/readonly-sqlite.ts: `immutable=1` for a
 * WAL-mode file without a `-wal`, else read-only, else a private temp copy); one cached connection per
 * database per process (shared/sqlite-cache.ts).
 */
import { DatabaseContentError, openReadonlySqlite, type ReadonlyDatabase } from "../shared/readonly-sqlite.ts";
import { ReadonlyDatabaseCache } from "../shared/sqlite-cache.ts";

/** One open Cursor database (its temp copy, if any, is removed by {@link closeCursorDatabases}). */
export interface CursorDatabase extends ReadonlyDatabase {
  /** Whether the `cursorDiskKV` table exists (global database of Cursor ≥ 0.4x; formats.md §5). */
  hasDiskKv: boolean;
}

const databases = new ReadonlyDatabaseCache<CursorDatabase>();

/** A state database has `ItemTable`; `cursorDiskKV` is optional. */
function checkCursorSchema(tables: Set<string>): { hasDiskKv: boolean } {
  if (!tables.has("ItemTable")) throw new DatabaseContentError("not a cursor state database (no ItemTable table)");
  return { hasDiskKv: tables.has("cursorDiskKV") };
}

/**
 * Open (or reuse while its db and WAL stats are unchanged) the read-only connection to one `state.vscdb`.
 * @param busyTimeoutMs how long a read waits for Cursor's write lock, ms
 * @throws SourceError `<path>: <phrase>` (describeSqliteError, shared/readonly-sqlite.ts) when it cannot be
 *   read now: zero bytes, locked, malformed, no `ItemTable` ("not a cursor state database (no ItemTable table)")
 */
export function openCursorDatabase(path: string, busyTimeoutMs = 2000): CursorDatabase {
  return databases.reuseOrOpen(path, () =>
    openReadonlySqlite(path, { busyTimeoutMs, tempPrefix: "recall-cursor-", schemaCheck: checkCursorSchema }),
  );
}

/** Close every cached connection and remove temp copies; safe to call repeatedly (also runs at exit). */
export function closeCursorDatabases(): void {
  databases.closeAll();
}

/** A stored value as text: values are TEXT in some versions and BLOB (UTF-8 JSON) in others. */
export function valueText(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (value instanceof Uint8Array)
    return Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString("utf8");
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
    .query<{ key: string; value: unknown }, [string, string]>(
      "select key, value from cursorDiskKV where key >= ? and key < ? order by key",
    )
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
