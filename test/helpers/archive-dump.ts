/**
 * What an index holds about the sessions in one source state (present or deleted), as comparable lines
 * without rowids or run times, for the archive tests (issue 9): an index that kept deleted sessions is compared
 * with a fresh `--full` index of the same sources on its present sessions only. Also row counts of the tables
 * that hold a session's text. (test/helpers/index-dump.ts compares whole indexes.)
 */
import { Database } from "bun:sqlite";
import { databasePath } from "../../src/index/index.ts";
import { decodeTurnOutputs } from "../../src/index/store/archive.ts";

/** Dump the sessions of `home` whose source is `status` (default present), their turns, outputs, documents and FTS answers. */
export function dumpSessions(
  home: string,
  options: { status?: "present" | "deleted"; words?: string[] } = {},
): string[] {
  const db = new Database(databasePath(home), { readonly: true });
  try {
    const status = options.status ?? "present";
    const rows: unknown[] = [
      ...db
        .query(
          `SELECT source, session_id, unit_key, change_key, project_path, project_name, git_branch, title, turn_count, started_at, ended_at,
             parent_session_id, is_subagent, files, source_status FROM sessions WHERE source_status = ? ORDER BY source, session_id`,
        )
        .all(status),
      ...db
        .query(
          `SELECT s.session_id, t.number, t.timestamp, t.prompt, t.response, t.tools, t.files FROM turns t JOIN sessions s ON s.id = t.session_rowid
           WHERE s.source_status = ? ORDER BY 1, 2`,
        )
        .all(status),
      ...db
        .query<{ session_id: string; number: number; outputs: Uint8Array }, [string]>(
          "SELECT s.session_id, o.number, o.outputs FROM turn_outputs o JOIN sessions s ON s.id = o.session_rowid WHERE s.source_status = ? ORDER BY 1, 2",
        )
        .all(status)
        .map((row) => ({ session_id: row.session_id, number: row.number, outputs: decodeTurnOutputs(row.outputs) })),
      ...db
        .query(
          `SELECT s.session_id, d.level, d.turn_number, d.text_hash, d.embed_hash FROM documents d JOIN sessions s ON s.id = d.session_rowid
           WHERE s.source_status = ? ORDER BY 1, 2, 3`,
        )
        .all(status),
      // What the FTS index answers, not only its size.
      ...(options.words ?? []).map((word) =>
        db
          .query(
            `SELECT s.session_id, d.level, d.turn_number FROM documents_fts f JOIN documents d ON d.id = f.rowid JOIN sessions s ON s.id = d.session_rowid
             WHERE documents_fts MATCH ? AND s.source_status = ? ORDER BY 1, 2, 3`,
          )
          .all(word, status),
      ),
    ];
    return rows.map((row) => JSON.stringify(row));
  } finally {
    db.close();
  }
}

/** Row counts of the tables that hold a session's text. */
export function countTextRows(home: string): {
  sessions: number;
  turns: number;
  documents: number;
  fts: number;
  outputs: number;
} {
  const db = new Database(databasePath(home), { readonly: true });
  try {
    const one = (sql: string) => (db.query(sql).get() as { n: number }).n;
    return {
      sessions: one("SELECT count(*) AS n FROM sessions"),
      turns: one("SELECT count(*) AS n FROM turns"),
      documents: one("SELECT count(*) AS n FROM documents"),
      fts: one("SELECT count(*) AS n FROM documents_fts"),
      outputs: one("SELECT count(*) AS n FROM turn_outputs"),
    };
  } finally {
    db.close();
  }
}
