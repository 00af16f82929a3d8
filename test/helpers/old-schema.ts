/**
 * Making an index written by this recall look like one an older recall wrote, for migration tests: the parts of the
 * schema the older migrations still write.
 */
import type { Database } from "bun:sqlite";

/**
 * Puts back `sessions.resume_state`, the column schemas 1–16 kept the parsers' resume states in (the migrations to
 * schemas 2, 4, 7 and 11 clear it), with each session's state moved back into it, and drops `resume_states`
 * (schema 17). Call it before setting `user_version` to 16 or below.
 */
export function restoreResumeStateColumn(db: Database): void {
  db.exec(`ALTER TABLE sessions ADD COLUMN resume_state TEXT;
    UPDATE sessions SET resume_state = (SELECT state FROM resume_states WHERE session_rowid = sessions.id);
    DROP TABLE resume_states;`);
}
