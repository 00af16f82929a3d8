/**
 * A damaged index.sqlite (issue 9: it gave "unexpected error … report it", and `recall index` exited 0).
 * SQLite reports damage as SQLITE_CORRUPT (and its extended codes, e.g. SQLITE_CORRUPT_VTAB from FTS5) or
 * SQLITE_NOTADB, at open or in any later query that reads a bad page. `guardAgainstDamage` turns those errors,
 * wherever they surface, into one IndexError INDEX_CORRUPT that names the file and offers the snapshot restore
 * (snapshot.ts) or a rebuild. Nothing here deletes or rewrites a damaged file.
 */
import type { Database, Statement } from "bun:sqlite";
import { dirname } from "node:path";
import { IndexError } from "../../errors.ts";
import { findSnapshot } from "./snapshot.ts";

/** True for the SQLite errors that mean the file is damaged (not busy, not read-only, not missing). */
export function isSqliteDamage(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_CORRUPT") || code === "SQLITE_NOTADB");
}

const damageErrors = new WeakSet<object>();

/** True for an error made by `damagedIndexError` (as opposed to INDEX_CORRUPT for "written by a newer recall"). */
export function isDamagedIndexError(error: unknown): error is IndexError {
  return error instanceof IndexError && damageErrors.has(error);
}

/** The next step for a damaged index at `path`: the snapshot restore when one exists, else a rebuild. */
export function damageHint(path: string): string {
  const snapshot = findSnapshot(dirname(path));
  const rebuild = "`recall index --full` rebuilds it from the sources still on disk (the damaged file is kept aside)";
  if (!snapshot) return `${rebuild}; there is no snapshot, so sessions whose sources are gone cannot come back`;
  const day = new Date(snapshot.takenAtMs).toISOString().slice(0, 16).replace("T", " ");
  return `run \`recall doctor --restore-snapshot\` to restore the snapshot of ${day} UTC, then \`recall index\`; or ${rebuild}, but sessions whose sources are gone come back only from the snapshot`;
}

/**
 * The error for a damaged index: `the index at <path> is damaged (<what SQLite said>)` with `damageHint`.
 * @returns an IndexError INDEX_CORRUPT (exit 1) that `isDamagedIndexError` recognizes
 */
export function damagedIndexError(path: string, cause: unknown): IndexError {
  // SQLite quotes names read from the damaged file: keep the line printable (no control bytes, no escapes).
  const detail = (cause instanceof Error ? cause.message : String(cause))
    // biome-ignore lint/suspicious/noControlCharactersInRegex: a damaged file's bytes must not reach the terminal as control characters
    .replace(/[\u0000-\u001f\u007f-\u009f\ufffd]/g, "?")
    .slice(0, 200);
  const error = new IndexError("INDEX_CORRUPT", `the index at ${path} is damaged (${detail})`, {
    hint: damageHint(path),
    cause,
  });
  damageErrors.add(error);
  return error;
}

type Method = (...args: never[]) => unknown;
const statementMethods = ["all", "get", "run", "values", "raw", "iterate"] as const;
const guarded = new WeakSet<object>();

/** Wraps `fn` so a damage error it throws becomes `damagedIndexError(path)`; other errors pass through. */
function translating<F extends Method>(fn: F, path: string): F {
  return ((...args: Parameters<F>) => {
    try {
      return fn(...args);
    } catch (error) {
      throw isSqliteDamage(error) ? damagedIndexError(path, error) : error;
    }
  }) as F;
}

/** Guards the row iterator too: a bad page can be met on any step. */
function translatingIterate(fn: Statement["iterate"], path: string): Statement["iterate"] {
  return function* (...args: Parameters<Statement["iterate"]>) {
    const iterator = translating(fn, path)(...args);
    const next = translating(iterator.next.bind(iterator), path);
    for (let step = next(); !step.done; step = next()) yield step.value;
  } as Statement["iterate"];
}

function guardStatement<S extends Statement>(statement: S, path: string): S {
  if (guarded.has(statement)) return statement; // `query` caches statements: wrap each once
  guarded.add(statement);
  const target = statement as unknown as Record<string, Method>;
  for (const name of statementMethods) {
    if (typeof target[name] !== "function") continue;
    target[name] =
      name === "iterate"
        ? (translatingIterate(statement.iterate.bind(statement), path) as Method)
        : translating(target[name]!.bind(statement), path);
  }
  return statement;
}

/**
 * Makes every way `db` runs SQL (query/prepare statements, exec, run, transactions) throw `damagedIndexError(path)`
 * instead of a raw SQLITE_CORRUPT / SQLITE_NOTADB. Cost: one wrapper call per statement execution (~tens of ns).
 * @returns `db` itself
 */
export function guardAgainstDamage(db: Database, path: string): Database {
  const target = db as unknown as Record<string, Method>;
  const query = db.query.bind(db);
  const prepare = db.prepare.bind(db);
  target.query = ((sql: string) => guardStatement(query(sql), path)) as Method;
  target.prepare = ((...args: Parameters<Database["prepare"]>) => guardStatement(prepare(...args), path)) as Method;
  target.exec = translating(db.exec.bind(db) as Method, path);
  target.run = translating(db.run.bind(db) as Method, path);
  const transaction = db.transaction.bind(db);
  target.transaction = ((fn: Method) => {
    const inner = transaction(fn as never) as unknown as Record<string, Method> & Method;
    const outer = translating(inner, path) as Record<string, Method> & Method;
    for (const kind of ["deferred", "immediate", "exclusive"]) outer[kind] = translating(inner[kind]!, path);
    return outer;
  }) as Method;
  return db;
}
