/**
 * Counts a cold search reads instead of counting rows (issue 42): the sessions per source, sub-agent flag and project
 * (`session_counts`), and the documents (`document_count`), kept exact by triggers on `sessions` and `documents`
 * (schema v16), so every writer keeps them: an index run, `forget`, a pull from the team archive. Counting them took
 * 6–9 ms (the searched scope of the answer's first line) and 3.5 ms (term rarity's total) at 20,000 sessions, in every
 * search process; a long-lived reader cached them per index state, a one-shot command could not.
 */
import type { Database } from "bun:sqlite";

/**
 * SQL for the identity of a session's project: its path, except that a Windows path (`C:\…`, `c:/…`) is compared
 * without case, as Windows does: the same folder is recorded as `C:\Users\me\Vault` and `c:\users\me\vault` by
 * different launches and tools (formats.md §1.1: the drive letter's case varies between launches).
 * @param alias the sessions table alias (or a trigger's `new` / `old`), e.g. "s"
 */
export function projectKeySql(alias: string): string {
  return `CASE WHEN ${alias}.project_path GLOB '[A-Za-z]:[\\/]*' THEN lower(${alias}.project_path) ELSE ${alias}.project_path END`;
}

/**
 * The schema v16 migration: the two count tables, filled from the rows there are, and their triggers. Runs again
 * safely (IF NOT EXISTS, refilled): a test may set a newer index's version back.
 */
export function scopeCountsMigration(): string {
  const add = (row: string) =>
    `INSERT INTO session_counts VALUES (${row}.source, ${row}.is_subagent, ${projectKeySql(row)}, 1)
       ON CONFLICT DO UPDATE SET sessions = sessions + 1;`;
  const remove = (row: string) =>
    `UPDATE session_counts SET sessions = sessions - 1
       WHERE source = ${row}.source AND is_subagent = ${row}.is_subagent AND project_key = ${projectKeySql(row)};`;
  return `
  CREATE TABLE IF NOT EXISTS session_counts (
    source TEXT NOT NULL,
    is_subagent INTEGER NOT NULL,
    project_key TEXT NOT NULL, -- scope-counts.ts projectKeySql
    sessions INTEGER NOT NULL,
    PRIMARY KEY (source, is_subagent, project_key)
  ) WITHOUT ROWID;
  DELETE FROM session_counts;
  INSERT INTO session_counts SELECT source, is_subagent, ${projectKeySql("s")}, count(*) FROM sessions s GROUP BY 1, 2, 3;
  CREATE TRIGGER IF NOT EXISTS session_counts_ai AFTER INSERT ON sessions BEGIN ${add("new")} END;
  CREATE TRIGGER IF NOT EXISTS session_counts_ad AFTER DELETE ON sessions BEGIN ${remove("old")} END;
  CREATE TRIGGER IF NOT EXISTS session_counts_au AFTER UPDATE OF source, is_subagent, project_path ON sessions
    WHEN old.source IS NOT new.source OR old.is_subagent IS NOT new.is_subagent OR old.project_path IS NOT new.project_path
  BEGIN ${remove("old")} ${add("new")} END;
  CREATE TABLE IF NOT EXISTS document_count (n INTEGER NOT NULL);
  DELETE FROM document_count;
  INSERT INTO document_count SELECT count(*) FROM documents;
  CREATE TRIGGER IF NOT EXISTS document_count_ai AFTER INSERT ON documents BEGIN UPDATE document_count SET n = n + 1; END;
  CREATE TRIGGER IF NOT EXISTS document_count_ad AFTER DELETE ON documents BEGIN UPDATE document_count SET n = n - 1; END;`;
}

/** Sessions, projects and sources in a scope (what the answer's first line says was searched). */
export interface ScopeCounts {
  sessions: number;
  /** Distinct {@link projectKeySql} values, the empty path (no project) included. */
  projects: number;
  /** Sources with at least one session, sorted. */
  sources: string[];
}

/**
 * The counts of the sessions of `source` (every source when undefined), sub-agents included or not, from
 * `session_counts` (a few hundred rows), equal to counting the sessions themselves.
 */
export function readScopeCounts(db: Database, source: string | undefined, includeSubagents: boolean): ScopeCounts {
  const rows = db
    .query<{ source: string; project_key: string; sessions: number }, [string | null, number]>(
      `SELECT source, project_key, sum(sessions) AS sessions FROM session_counts
       WHERE sessions > 0 AND (?1 IS NULL OR source = ?1) AND (?2 OR is_subagent = 0) GROUP BY source, project_key`,
    )
    .all(source ?? null, includeSubagents ? 1 : 0);
  return {
    sessions: rows.reduce((sum, row) => sum + row.sessions, 0),
    projects: new Set(rows.map((row) => row.project_key)).size,
    sources: [...new Set(rows.map((row) => row.source))].sort(),
  };
}

/** Sessions of one source, sub-agents and deleted ones included, from `session_counts`. */
export function readSourceSessionCount(db: Database, source: string): number {
  return (
    db
      .query<{ n: number }, [string]>("SELECT coalesce(sum(sessions), 0) AS n FROM session_counts WHERE source = ?")
      .get(source)?.n ?? 0
  );
}

/** Number of documents in the index (the keyword index holds one row per document), from `document_count`. */
export function readDocumentCount(db: Database): number {
  return db.query<{ n: number }, []>("SELECT n FROM document_count").get()?.n ?? 0;
}
