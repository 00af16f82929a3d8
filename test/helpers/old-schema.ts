/**
 * Making an index written by this recall look like one an older recall wrote, for migration tests: the parts of the
 * schema the older migrations still write.
 */
import type { Database } from "bun:sqlite";
import { decodeResumeState } from "../../src/index/store/resume-state.ts";

/**
 * Rewrites every `resume_states.state` as the JSON text schemas 17–19 stored (schema 20 stores zstd of it). Call it
 * before setting `user_version` to 19 or below.
 */
export function restoreJsonResumeStates(db: Database): void {
  const rows = db
    .query<{ id: number; state: Uint8Array | string }, []>("SELECT session_rowid AS id, state FROM resume_states")
    .all();
  const update = db.query("UPDATE resume_states SET state = ? WHERE session_rowid = ?");
  for (const row of rows) update.run(JSON.stringify(decodeResumeState(row.state)), row.id);
}

/**
 * Puts back `sessions.resume_state`, the column schemas 1–16 kept the parsers' resume states in as JSON text (the
 * migrations to schemas 2, 4, 7 and 11 clear it), with each session's state moved back into it, and drops
 * `resume_states` (schema 17). Call it before setting `user_version` to 16 or below.
 */
export function restoreResumeStateColumn(db: Database): void {
  restoreJsonResumeStates(db);
  db.exec(`ALTER TABLE sessions ADD COLUMN resume_state TEXT;
    UPDATE sessions SET resume_state = (SELECT state FROM resume_states WHERE session_rowid = sessions.id);
    DROP TABLE resume_states;`);
}
