/**
 * What the index could not keep of what the sources hold (issue 26, "say what was not kept"): files a parser rejected
 * whole (`rejected_files`: no header, no session id, not the format) and records inside an indexed session that could
 * not be placed (`session_skips`: lines that are not JSON, records without the fields they need), each with a reason.
 * Stored, not only warned, so `recall index --json`, `recall status` and `recall doctor` all say the same thing.
 * A rejected file's row lives while the file is unchanged; listing its container again (it moved) or its vanishing
 * replaces or drops the row. A session's rows are replaced whenever the session is written (writer.ts) and go with it.
 */
import type { Database } from "bun:sqlite";
import type { SkipReport, SourceId } from "../../parsers/index.ts";

/** One file that holds no session recall can build. */
export interface RejectedFile {
  source: SourceId;
  /** Absolute path of the file (or of the record inside a container, e.g. `<db>#<key>`). */
  path: string;
  /** One lower-case phrase, e.g. `no session_meta line`. */
  reason: string;
}

/** Records of one indexed session that could not be placed, for one reason. */
export interface UnplacedRecords {
  source: SourceId;
  sessionId: string;
  /** The session's `location` (its file, or its database or storage folder). */
  path: string;
  reason: string;
  count: number;
  /** First place, e.g. `/x/s.jsonl:17`. */
  first: string;
}

/** What the index holds about lost input: totals, and the first rows of each kind (most recent sources first). */
export interface NotKept {
  rejectedFiles: RejectedFile[];
  /** All rejected files (the list may be shorter: `limit`). */
  rejectedFileCount: number;
  unplacedRecords: UnplacedRecords[];
  /** Sum of `count` over every unplaced row (the list may be shorter). */
  unplacedRecordCount: number;
}

/**
 * Store the rejections of one source's listing, inside a transaction: every row at, below or inside (`<db>#<key>`) a
 * listed or vanished container is dropped (it was listed again, or is gone), then `rejected` is written.
 * @param listed container paths whose units were listed in this run (their rejection state is known now)
 * @param vanished container paths no longer found
 * @param seenAtMs the run's time, epoch ms
 */
export function storeRejectedFiles(
  db: Database,
  source: SourceId,
  listed: readonly string[],
  vanished: readonly string[],
  rejected: readonly { path: string; reason: string }[],
  seenAtMs: number,
): void {
  if (listed.length === 0 && vanished.length === 0 && rejected.length === 0) return;
  db.transaction(() => {
    const drop = db.query(
      "DELETE FROM rejected_files WHERE source = ?1 AND (path = ?2 OR substr(path, 1, length(?3)) = ?3 OR substr(path, 1, length(?4)) = ?4)",
    );
    for (const path of [...listed, ...vanished]) drop.run(source, path, `${path}/`, `${path}#`);
    const insert = db.query(
      `INSERT INTO rejected_files(path, source, reason, seen_at) VALUES (?, ?, ?, ?)
       ON CONFLICT(path) DO UPDATE SET source = excluded.source, reason = excluded.reason, seen_at = excluded.seen_at`,
    );
    for (const entry of rejected) insert.run(entry.path, source, entry.reason, seenAtMs);
  }).immediate();
}

/** Replace the unplaced-record rows of one session (inside the caller's transaction) with those of `skipped`. */
export function replaceSessionSkips(db: Database, sessionRowid: number, skipped: SkipReport): void {
  db.query("DELETE FROM session_skips WHERE session_rowid = ?").run(sessionRowid);
  const reasons = Object.entries(skipped.reasons ?? {});
  if (reasons.length === 0 && skipped.count > 0)
    reasons.push(["unreadable", { count: skipped.count, first: skipped.first ?? "" }]);
  const insert = db.query("INSERT INTO session_skips(session_rowid, reason, count, first_place) VALUES (?, ?, ?, ?)");
  for (const [reason, entry] of reasons) insert.run(sessionRowid, reason, entry.count, entry.first);
}

/**
 * Read what was not kept: totals and up to `limit` rows of each kind (rejected files by path; unplaced records by
 * count, largest first).
 */
export function readNotKept(db: Database, limit = 100): NotKept {
  const rejectedFiles = db
    .query<RejectedFile, [number]>("SELECT source, path, reason FROM rejected_files ORDER BY source, path LIMIT ?")
    .all(limit);
  const rejectedFileCount = db.query<{ n: number }, []>("SELECT count(*) AS n FROM rejected_files").get()?.n ?? 0;
  const unplacedRecords = db
    .query<
      { source: SourceId; session_id: string; location: string; reason: string; count: number; first_place: string },
      [number]
    >(
      `SELECT s.source, s.session_id, s.location, k.reason, k.count, k.first_place FROM session_skips k
       JOIN sessions s ON s.id = k.session_rowid ORDER BY k.count DESC, s.location, k.reason LIMIT ?`,
    )
    .all(limit)
    .map((row) => ({
      source: row.source,
      sessionId: row.session_id,
      path: row.location,
      reason: row.reason,
      count: row.count,
      first: row.first_place,
    }));
  const unplacedRecordCount =
    db.query<{ n: number }, []>("SELECT coalesce(sum(count), 0) AS n FROM session_skips").get()?.n ?? 0;
  return { rejectedFiles, rejectedFileCount, unplacedRecords, unplacedRecordCount };
}
