/**
 * Reading Zed's thread database, `threads.db` (docs/formats/zed.md), read-only (shared/readonly-sqlite.ts). One table
 * (zed-industries/zed crates/agent/src/db.rs @3991ce85): `threads(id TEXT PRIMARY KEY, summary TEXT, updated_at TEXT
 * (RFC 3339), data_type TEXT ("json" or "zstd"), data BLOB)`; `data` is the thread as JSON, zstd-compressed (level 3)
 * when `data_type` is `zstd` (every save since the table has that column), decompressed here with Bun's zstd.
 */
import { DatabaseContentError, openReadonlySqlite, type ReadonlyDatabase } from "../shared/readonly-sqlite.ts";
import { ReadonlyDatabaseCache } from "../shared/sqlite-cache.ts";

const databases = new ReadonlyDatabaseCache<ReadonlyDatabase>();

function checkSchema(tables: Set<string>): Record<string, never> {
  if (!tables.has("threads")) throw new DatabaseContentError("not a zed threads database (no threads table)");
  return {};
}

/**
 * Open (or reuse while the db and its `-wal` are unchanged) one `threads.db`.
 * @throws SourceError `<path>: <phrase>` when it cannot be read now (zero bytes, locked, malformed, no `threads` table)
 */
export function openThreadsDatabase(path: string, busyTimeoutMs = 2000): ReadonlyDatabase {
  return databases.reuseOrOpen(path, () =>
    openReadonlySqlite(path, { busyTimeoutMs, tempPrefix: "recall-zed-", schemaCheck: checkSchema }),
  );
}

/** Close every cached connection (also runs at exit). */
export function closeThreadsDatabases(): void {
  databases.closeAll();
}

/** One row's listing: id, title, last update (RFC 3339 text) and stored size in bytes. */
export interface ThreadRow {
  id: string;
  summary: string;
  updatedAt: string;
  size: number;
}

/** Every thread's listing, without its data. */
export function listThreads(handle: ReadonlyDatabase): ThreadRow[] {
  return handle.db
    .query<{ id: string; summary: string; updated_at: string; size: number }, []>(
      "select id, summary, updated_at, length(data) size from threads order by id",
    )
    .all()
    .map((row) => ({
      id: String(row.id),
      summary: String(row.summary ?? ""),
      updatedAt: String(row.updated_at ?? ""),
      size: Number(row.size ?? 0),
    }));
}

/**
 * One thread's JSON text, decompressed; null when the row is gone.
 * @throws Error when `data_type` is neither `json` nor `zstd`, or the zstd frame is corrupt
 */
export function readThreadJson(handle: ReadonlyDatabase, id: string): { text: string; bytes: number } | null {
  const row = handle.db
    .query<{ data_type: string; data: unknown }, [string]>("select data_type, data from threads where id = ?")
    .get(id);
  if (!row) return null;
  const data = row.data instanceof Uint8Array ? row.data : Buffer.from(String(row.data ?? ""), "utf8");
  if (row.data_type === "zstd")
    return { text: Buffer.from(Bun.zstdDecompressSync(data)).toString("utf8"), bytes: data.length };
  if (row.data_type === "json") return { text: Buffer.from(data).toString("utf8"), bytes: data.length };
  throw new Error(`unknown data_type ${JSON.stringify(row.data_type)}`);
}
