/**
 * Deleting on purpose (`recall forget`, issue 9): the only way a session leaves the index. Removes the session
 * rows and everything derived from them (turns, tool outputs, documents, FTS rows, chunks) and their vector
 * rows, so the text is not recoverable from any file under RECALL_HOME: SQLite runs with `secure_delete` (freed
 * pages are zeroed), the FTS index is merged (a contentless FTS5 delete only adds a tombstone until then), the
 * database is vacuumed (pages freed by earlier re-parses may still hold old copies of the text), the WAL is
 * checkpointed and truncated, each vector level is rewritten without the forgotten rows, and the snapshot (if any)
 * is replaced by a fresh one (snapshot.ts), the older ones deleted. A tombstone per
 * session (with its parent session, schema v9) keeps the next index run from adding it again; {@link unforgetSessions}
 * removes tombstones, a parent's with those of its sub-agents.
 * Choosing which sessions to forget is the search layer's job (filters); this module gets rowids.
 */
import type { Database } from "bun:sqlite";
import { join } from "node:path";
import { buildIdFilter, openVectorStore } from "../../native/index.ts";
import type { SourceId } from "../../parsers/index.ts";
import { embedFingerprintKey, vectorLevels } from "../vectors/embedding.ts";
import { databasePath, ensureRecallHome, homeFiles } from "../../home/paths.ts";
import { dropNextGeneration } from "../vectors/generations.ts";
import { nextFingerprintKey } from "../vectors/reembed-progress.ts";
import { digestMetaKey } from "../plan/containers.ts";
import { acquireIndexLock } from "./lock.ts";
import { optimizeKeywordIndexes } from "../write/compact.ts";
import { dimsOfFingerprint, recordVectorFiles } from "../vectors/vector-files.ts";
import { listSnapshots, writeSnapshot } from "./snapshot.ts";
import { chunkStatus, openIndex, readMeta } from "../schema.ts";

/** One forgotten session, as reported to the user. Times are epoch ms. */
export interface ForgottenSession {
  sessionId: string;
  source: SourceId;
  project: string;
  projectPath: string;
  title: string | null;
  endedAt: number;
  turns: number;
}

/** What {@link forgetSessions} removed; counts are rows. */
export interface ForgetReport {
  sessions: ForgottenSession[];
  turns: number;
  documents: number;
  chunks: number;
  /** Vector rows dropped from the vector files (both levels; 0 without embeddings). */
  vectorRows: number;
}

/** Options of {@link forgetSessions} and {@link unforgetSessions}. */
export interface ForgetOptions {
  /** How long to wait for a running index to release the lock, ms; default 30,000. */
  lockWaitMs?: number;
  /** Clock for the tombstones, epoch ms; default Date.now(). */
  now?: number;
}

interface DoomedRow {
  id: number;
  session_id: string;
  parent_session_id: string | null;
  source: SourceId;
  project_name: string;
  project_path: string;
  title: string | null;
  ended_at: number;
  turn_count: number;
}

/**
 * Forget the sessions with these rowids (missing rowids are ignored): delete them and every row and vector
 * derived from them, and leave a tombstone for each so no index run adds it again.
 * @throws IndexError INDEX_LOCKED when an index run holds the lock past `lockWaitMs`; INDEX_MISSING without an index
 */
export async function forgetSessions(
  recallHome: string,
  rowids: readonly number[],
  options: ForgetOptions = {},
): Promise<ForgetReport> {
  ensureRecallHome(recallHome);
  const lock = await acquireIndexLock(join(recallHome, homeFiles.lock), options.lockWaitMs ?? 30_000);
  try {
    const db = openIndex(databasePath(recallHome), { create: false });
    try {
      db.exec("PRAGMA secure_delete = ON");
      const report = deleteRows(db, rowids, options.now ?? Date.now());
      if (report.sessions.length > 0) {
        report.vectorRows = rewriteVectors(db, recallHome);
        // A re-embed under way holds vectors of the forgotten text too: it starts over at the next index run.
        if (readMeta(db, nextFingerprintKey) !== undefined) dropNextGeneration(db, recallHome);
        // Record the rewritten files, or every search would run the full per-chunk check until the next index run.
        recordVectorFiles(db, recallHome);
        // Merge the FTS segments so the forgotten terms are gone, not only tombstoned; rebuild the file without
        // free pages; then empty the WAL. Costs a rewrite of the database (a forget is rare and explicit).
        optimizeKeywordIndexes(db);
        db.exec("VACUUM");
        // A snapshot holds the text too (and hard links to the old vector files): replace it, drop the older ones.
        if (listSnapshots(recallHome).length > 0) writeSnapshot(db, recallHome, Date.now(), { dropOlder: true });
      }
      db.exec("PRAGMA wal_checkpoint(TRUNCATE)");
      return report;
    } finally {
      db.close();
    }
  } finally {
    lock.release();
  }
}

function deleteRows(db: Database, rowids: readonly number[], now: number): ForgetReport {
  const report: ForgetReport = { sessions: [], turns: 0, documents: 0, chunks: 0, vectorRows: 0 };
  const select = db.query<DoomedRow, [number]>(
    // An untitled session is reported by the title listings show for it (its first prompt, schema v8).
    `SELECT id, session_id, parent_session_id, source, project_name, project_path, coalesce(title, derived_title) AS title,
     ended_at, turn_count FROM sessions WHERE id = ?`,
  );
  const count = (sql: string, rowid: number) => db.query<{ n: number }, [number]>(sql).get(rowid)?.n ?? 0;
  const tombstone = db.query(
    `INSERT INTO forgotten(source, session_id, parent_session_id, project_path, project_name, ended_at, forgotten_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT(source, session_id) DO UPDATE SET forgotten_at = excluded.forgotten_at, parent_session_id = excluded.parent_session_id`,
  );
  const remove = db.query("DELETE FROM sessions WHERE id = ?");
  db.transaction(() => {
    for (const rowid of new Set(rowids)) {
      const row = select.get(rowid);
      if (!row) continue;
      report.turns += count("SELECT count(*) AS n FROM turns WHERE session_rowid = ?", rowid);
      report.documents += count("SELECT count(*) AS n FROM documents WHERE session_rowid = ?", rowid);
      report.chunks += count(
        "SELECT count(*) AS n FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.session_rowid = ?",
        rowid,
      );
      const { source, session_id, parent_session_id, project_path, project_name, ended_at } = row;
      tombstone.run(source, session_id, parent_session_id, project_path, project_name, ended_at, now);
      remove.run(rowid); // cascades: turns, turn_outputs, documents (and their FTS rows by trigger), chunks
      report.sessions.push({
        sessionId: row.session_id,
        source: row.source,
        project: row.project_name,
        projectPath: row.project_path,
        title: row.title,
        endedAt: row.ended_at,
        turns: row.turn_count,
      });
    }
  }).immediate();
  return report;
}

/**
 * Rewrite each vector level with only the rows of chunks still embedded (one new segment, old files deleted).
 * Segments the store cannot use (damaged, another model) are deleted too: SQLite is the source of truth and the
 * next index run re-embeds whatever lacks a row. Returns the number of rows dropped.
 */
function rewriteVectors(db: Database, recallHome: string): number {
  const fingerprint = readMeta(db, embedFingerprintKey) ?? "";
  let dropped = 0;
  for (const level of vectorLevels) {
    const open = (dims: number) =>
      openVectorStore({ dir: join(recallHome, homeFiles.vectors), level, dims, fingerprint });
    let store = open(dimsOfFingerprint(fingerprint) ?? 1);
    if (store.mismatch && store.mismatch.storedDims !== store.dims) {
      const dims = store.mismatch.storedDims;
      store.close();
      store = open(dims);
    }
    try {
      if (store.stats().segments === 0 && store.mismatch === undefined) continue;
      const before = store.stats().physicalRows;
      store.discardUnusable();
      const live = db
        .query<{ id: number }, [string, number]>(
          "SELECT c.id FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.level = ? AND c.status = ?",
        )
        .all(level, chunkStatus.embedded)
        .map((row) => row.id);
      store.compact(buildIdFilter(live));
      dropped += Math.max(0, before - store.stats().physicalRows);
    } finally {
      store.close();
    }
  }
  return dropped;
}

/**
 * Which tombstones {@link unforgetSessions} removes; all given conditions must hold, none given = every tombstone.
 * The sub-agent sessions forgotten below a chosen session go with it (issue 26), as `forget` took them.
 */
export interface TombstoneSelection {
  /** A whole session id or a prefix of it. */
  sessionPrefix?: string;
  /** Case-insensitive substring of the project path or name. */
  project?: string;
  /** Sessions whose last activity was before this time, epoch ms; a session with no date (ended_at 0) is not one. */
  endedBefore?: number;
}

/** A tombstone {@link unforgetSessions} removed: `parentSessionId` is set for a sub-agent session (else null). */
export interface UnforgottenSession {
  source: SourceId;
  sessionId: string;
  parentSessionId: string | null;
}

/**
 * Remove tombstones, so the next index run adds those sessions again when their sources still hold them (the
 * stored container fingerprints of the affected sources are dropped, which makes that run list their units). The
 * tombstones of sub-agent sessions below a selected one go too, at any depth (issue 26: `forget <parent>` removed its
 * sub-agents, and `--undo <parent>` brought back only the parent); tombstones written before schema v9 name no parent.
 * @returns the removed tombstones, in session id order
 * @throws IndexError INDEX_LOCKED / INDEX_MISSING as {@link forgetSessions}
 */
export async function unforgetSessions(
  recallHome: string,
  selection: TombstoneSelection,
  options: ForgetOptions = {},
): Promise<UnforgottenSession[]> {
  ensureRecallHome(recallHome);
  const lock = await acquireIndexLock(join(recallHome, homeFiles.lock), options.lockWaitMs ?? 30_000);
  try {
    const db = openIndex(databasePath(recallHome), { create: false });
    try {
      const conditions: string[] = [];
      const params: Array<string | number> = [];
      if (selection.sessionPrefix) {
        conditions.push("substr(session_id, 1, length(?)) = ?");
        params.push(selection.sessionPrefix, selection.sessionPrefix);
      }
      if (selection.project) {
        conditions.push("(instr(lower(project_path), ?) > 0 OR instr(lower(project_name), ?) > 0)");
        params.push(selection.project.toLowerCase(), selection.project.toLowerCase());
      }
      if (selection.endedBefore !== undefined) {
        conditions.push("ended_at > 0 AND ended_at < ?");
        params.push(selection.endedBefore);
      }
      const where = conditions.length > 0 ? conditions.join(" AND ") : "1";
      return db
        .transaction(() => {
          // UNION (not UNION ALL) drops rows already picked, so a parent loop cannot recurse forever.
          const rows = db
            .query<{ source: SourceId; session_id: string; parent_session_id: string | null }, Array<string | number>>(
              `WITH RECURSIVE picked(source, session_id, parent_session_id) AS (
                 SELECT source, session_id, parent_session_id FROM forgotten WHERE ${where}
                 UNION
                 SELECT f.source, f.session_id, f.parent_session_id FROM forgotten f
                 JOIN picked p ON f.source = p.source AND f.parent_session_id = p.session_id
               )
               SELECT source, session_id, parent_session_id FROM picked ORDER BY session_id`,
            )
            .all(...params);
          const remove = db.query("DELETE FROM forgotten WHERE source = ? AND session_id = ?");
          for (const row of rows) remove.run(row.source, row.session_id);
          for (const source of new Set(rows.map((row) => row.source))) {
            db.query("DELETE FROM containers WHERE source = ?").run(source);
            db.query("DELETE FROM meta WHERE key = ?").run(digestMetaKey(source));
          }
          return rows.map((row) => ({
            source: row.source,
            sessionId: row.session_id,
            parentSessionId: row.parent_session_id,
          }));
        })
        .immediate();
    } finally {
      db.close();
    }
  } finally {
    lock.release();
  }
}
