/**
 * Redaction that finds more reaches what the index already holds (issue 37). Schema v11 marks an index written by an
 * older redaction: it clears every change key, so sessions whose source is still there are re-parsed (and redacted
 * with today's rules) by the same run, and sets {@link storedRedactionMetaKey}. The sessions only the index holds
 * (source deleted: nothing to re-parse) are then read back from their stored copy, redacted again, and rewritten
 * through the writer (so their documents follow today's document rules as well), which replaces their turns, documents, keyword rows and stale chunks. Last, as `recall forget`
 * does, the keyword indexes are merged, the file vacuumed, the WAL emptied and the snapshots replaced by one of the
 * redacted index, so the old text is in no page of any file.
 */
import type { Database } from "bun:sqlite";
import { redactParseResult } from "../../redact/index.ts";
import type { SkipReport, SourceId, SourceUnit } from "../../parsers/index.ts";
import { readStoredSession } from "../store/archive.ts";
import { listSnapshots, writeSnapshot } from "../store/snapshot.ts";
import { readMeta } from "../schema.ts";
import { optimizeKeywordIndexes } from "./compact.ts";
import { prepareSession, writePreparedSessions } from "./writer.ts";

/** Meta key set by schema v11 while the stored copies of deleted-source sessions still await today's redaction. */
export const storedRedactionMetaKey = "redact_stored_sessions";

interface StoredRow {
  id: number;
  source: SourceId;
  session_id: string;
  unit_key: string;
  container_path: string;
  change_key: string;
  unit_locator: string | null;
  last_seen_at: number;
  prompt_only: number;
}

/** What the session kept of its skipped records, as the writer takes it back (reasons and first places unchanged). */
function storedSkips(db: Database, rowid: number, count: number): SkipReport {
  const rows = db
    .query<{ reason: string; count: number; first_place: string }, [number]>(
      "SELECT reason, count, first_place FROM session_skips WHERE session_rowid = ?",
    )
    .all(rowid);
  if (rows.length === 0) return { count };
  return {
    count,
    first: rows[0]!.first_place,
    reasons: Object.fromEntries(rows.map((row) => [row.reason, { count: row.count, first: row.first_place }])),
  };
}

/**
 * Redact again the stored copy of every session whose source is deleted, when schema v11 asked for it, and rewrite it
 * (it stays `deleted`, with its last-seen time and prompt-only mark; its documents are rebuilt), then purge the old text
 * of these and of the sessions this run re-parsed from the file. Call it after the run's sources are written, inside
 * its index lock; one transaction, so a crash leaves the mark for the next run. Cost, once: one read and one
 * redaction per deleted session (about 1 ms each), and a VACUUM (a rewrite of the file, as `recall forget` does).
 * @param recallHome recall's data folder (its snapshots are replaced)
 * @returns how many sessions were rewritten: every deleted-source session (0 when nothing was asked)
 * @throws fs errors (ENOSPC, …) from writing the new snapshot, after the index itself is redacted
 */
export function redactStoredSessions(db: Database, recallHome: string): number {
  if (readMeta(db, storedRedactionMetaKey) === undefined) return 0;
  const rows = db
    .query<StoredRow, []>(
      `SELECT id, source, session_id, unit_key, container_path, change_key, unit_locator, last_seen_at, prompt_only
       FROM sessions WHERE source_status = 'deleted' ORDER BY id`,
    )
    .all();
  let rewritten = 0;
  db.transaction(() => {
    const restore = db.query(
      "UPDATE sessions SET source_status = 'deleted', last_seen_at = ?, prompt_only = ? WHERE id = ?",
    );
    for (const row of rows) {
      const stored = readStoredSession(db, row.id);
      if (!stored) continue;
      // Every one is rewritten, changed by redaction or not: its documents are rebuilt by today's rules too (issue 38:
      // a Latin word glued to CJK text is a keyword of its own); the writer replaces only documents whose text moved.
      const redacted = redactParseResult(stored);
      const unit: SourceUnit = {
        source: row.source,
        key: row.unit_key,
        sessionId: row.session_id,
        containerPath: row.container_path,
        changeKey: row.change_key,
        promptOnly: row.prompt_only === 1,
        ...(row.unit_locator ? { locator: JSON.parse(row.unit_locator) as SourceUnit["locator"] } : {}),
      };
      const prepared = prepareSession({ ...redacted, skipped: storedSkips(db, row.id, stored.skipped.count) });
      writePreparedSessions(db, [{ unit, result: prepared }], row.last_seen_at);
      restore.run(row.last_seen_at, row.prompt_only, row.id);
      rewritten++;
    }
    db.query("DELETE FROM meta WHERE key = ?").run(storedRedactionMetaKey);
  }).immediate();
  // The sessions re-parsed earlier in this run replaced their text too: purge whatever was rewritten.
  db.exec("PRAGMA secure_delete = ON");
  optimizeKeywordIndexes(db);
  db.exec("VACUUM");
  if (listSnapshots(recallHome).length > 0) writeSnapshot(db, recallHome, Date.now(), { dropOlder: true });
  db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
  return rewritten;
}
