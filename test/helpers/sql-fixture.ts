/**
 * Databases built from the SQL scripts some fixtures are kept as (Goose's `sessions.sql`, Crush's `crush.sql`: the
 * agents' own schemas, readable and a few KB, see their SOURCE.md), for the tests that read them from disk.
 */
import { Database } from "bun:sqlite";
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";

const fixtures = resolve(import.meta.dir, "../fixtures");

/**
 * Run `test/fixtures/<script>` into a new SQLite database at `path` (its folders created).
 * @returns `path`
 * @throws when the database exists already or the script fails
 */
export function databaseFromScript(script: string, path: string): string {
  mkdirSync(dirname(path), { recursive: true });
  const db = new Database(path, { create: true, strict: true });
  try {
    db.exec(readFileSync(resolve(fixtures, script), "utf8"));
  } finally {
    db.close();
  }
  return path;
}
