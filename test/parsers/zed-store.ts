/**
 * Writes a Zed `threads.db` from test/fixtures/zed/threads.json the way Zed stores its agent threads
 * (zed-industries/zed crates/agent/src/db.rs @3991ce85): `threads(id, summary, updated_at, data_type, data)`, the thread
 * JSON zstd-compressed when `data_type` is `zstd` (Bun's zstd stands in for the `zstd` crate: both write standard
 * frames), as is when `json`.
 */
import { Database } from "bun:sqlite";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** One fixture row: the thread id, how its data is stored and the thread object. */
interface FixtureThread {
  id: string;
  data_type: "zstd" | "json";
  thread: Record<string, unknown>;
}

/** Write `<dir>/threads.db` holding the fixture threads and return its path. */
export function writeThreadsDatabase(dir: string): string {
  const fixture = JSON.parse(readFileSync(join(import.meta.dir, "../fixtures/zed/threads.json"), "utf8")) as {
    threads: FixtureThread[];
  };
  mkdirSync(dir, { recursive: true });
  const path = join(dir, "threads.db");
  const db = new Database(path, { create: true });
  try {
    db.run(
      "create table if not exists threads (id text primary key, summary text not null, updated_at text not null, data_type text not null, data blob not null)",
    );
    for (const { id, data_type, thread } of fixture.threads) {
      const json = Buffer.from(JSON.stringify(thread), "utf8");
      const data = data_type === "zstd" ? Bun.zstdCompressSync(json, { level: 3 }) : json;
      const summary = String(thread.title ?? thread.summary ?? "");
      db.run("insert into threads (id, summary, updated_at, data_type, data) values (?, ?, ?, ?, ?)", [
        id,
        summary,
        String(thread.updated_at),
        data_type,
        data,
      ]);
    }
  } finally {
    db.close();
  }
  return path;
}
