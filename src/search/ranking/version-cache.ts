/**
 * Answers that depend only on what the index holds, kept per connection until the index changes: SQLite's
 * `PRAGMA data_version` changes on a connection whenever another connection commits (sqlite.org/pragma.html
 * #pragma_data_version), so a long-lived reader (the MCP server, `recall ui`) counts the sessions searched or the
 * documents indexed once per index state instead of once per search (a full scan each: ~5 ms at 20k sessions).
 */
import type { Database } from "bun:sqlite";

interface VersionedAnswers {
  version: number;
  answers: Map<string, unknown>;
}

const caches = new WeakMap<Database, VersionedAnswers>();

/** `compute()`, or its answer from an earlier call on this connection with the same `key` and index state. */
export function cachedUntilChange<T>(db: Database, key: string, compute: () => T): T {
  const version = db.query<{ data_version: number }, []>("PRAGMA data_version").get()?.data_version ?? -1;
  let cache = caches.get(db);
  if (!cache || cache.version !== version) {
    cache = { version, answers: new Map() };
    caches.set(db, cache);
  }
  if (cache.answers.has(key)) return cache.answers.get(key) as T;
  const answer = compute();
  cache.answers.set(key, answer);
  return answer;
}
