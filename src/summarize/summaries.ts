/**
 * The summaries `recall summarize` made, in the index's `summaries` table (schema v13, index/schema.ts): one row per
 * session with its last summary, the hash of the prompt it was made from, and the reason the last attempt failed.
 * What is summarized is the index's copy of the session (redacted when it was indexed, issue 9), never the source.
 * A stored summary is searched and embedded with the session (index/write/documents.ts `abstractText`): storing one
 * rebuilds the session's document in the same transaction.
 */
import type { Database } from "bun:sqlite";
import { refreshStoredSessionDocument, storedAbstract } from "../index/index.ts";
import type { SummarySource } from "./prompt.ts";
import type { SummaryFailureReason } from "./types.ts";

/** What the table holds for one session: the last summary and the last failure, each with its prompt's hash. */
export interface SummaryState {
  text: string | null;
  contentHash: string | null;
  failure: SummaryFailureReason | null;
  failureHash: string | null;
}

/**
 * The session as the summarizer sees it: its title, project, times, abstract (without a previous summary) and every
 * main turn's prompt, reply, files and tool names, from the index's rows.
 * @param rowid sessions.id
 * @returns undefined when no session has that rowid
 */
export function summarySourceOf(db: Database, rowid: number): SummarySource | undefined {
  const session = db
    .query<
      {
        title: string | null;
        derived_title: string | null;
        project_name: string;
        started_at: number;
        ended_at: number;
        abstract: string | null;
      },
      [number]
    >("SELECT title, derived_title, project_name, started_at, ended_at, abstract FROM sessions WHERE id = ?")
    .get(rowid);
  if (!session) return undefined;
  const turns = db
    .query<{ number: number; prompt: string; response: string; files: string; tools: string }, [number]>(
      "SELECT number, prompt, response, files, tools FROM turns WHERE session_rowid = ? AND number > 0 ORDER BY number",
    )
    .all(rowid)
    .map((turn) => ({
      number: turn.number,
      prompt: turn.prompt,
      response: turn.response,
      files: JSON.parse(turn.files) as string[],
      toolNames: [...new Set((JSON.parse(turn.tools) as Array<{ name: string }>).map((call) => call.name))],
    }));
  return {
    title: session.title ?? session.derived_title,
    projectName: session.project_name,
    startedAt: session.started_at,
    endedAt: session.ended_at,
    abstract: storedAbstract(session.abstract),
    turns,
  };
}

/** The stored state of one session's summary; every field null when it has none. */
export function readSummaryState(db: Database, rowid: number): SummaryState {
  const row = db
    .query<
      { text: string | null; content_hash: string | null; failure: string | null; failure_hash: string | null },
      [number]
    >("SELECT text, content_hash, failure, failure_hash FROM summaries WHERE session_rowid = ?")
    .get(rowid);
  return {
    text: row?.text ?? null,
    contentHash: row?.content_hash ?? null,
    failure: (row?.failure ?? null) as SummaryFailureReason | null,
    failureHash: row?.failure_hash ?? null,
  };
}

/** A summary made: its text, the hash of its prompt, the backend and model, when (epoch ms). */
export interface MadeSummary {
  text: string;
  contentHash: string;
  backend: string;
  model: string;
  madeAt: number;
}

/**
 * Store a summary for a session (clearing the last failure) and rebuild its session document, in one transaction.
 * A session forgotten since it was read (no row) is left alone.
 */
export function storeSummary(db: Database, rowid: number, summary: MadeSummary): void {
  db.transaction(() => {
    if (!db.query("SELECT 1 FROM sessions WHERE id = ?").get(rowid)) return;
    db.query(
      `INSERT INTO summaries(session_rowid, text, content_hash, backend, model, made_at, failure, failure_hash, failure_message)
       VALUES (?, ?, ?, ?, ?, ?, NULL, NULL, NULL)
       ON CONFLICT(session_rowid) DO UPDATE SET text = excluded.text, content_hash = excluded.content_hash,
         backend = excluded.backend, model = excluded.model, made_at = excluded.made_at,
         failure = NULL, failure_hash = NULL, failure_message = NULL`,
    ).run(rowid, summary.text, summary.contentHash, summary.backend, summary.model, summary.madeAt);
    refreshStoredSessionDocument(db, rowid);
  }).immediate();
}

/** Record why a session's summary failed (its last good summary, if any, stays). */
export function storeFailure(
  db: Database,
  rowid: number,
  failure: { reason: SummaryFailureReason; contentHash: string; message: string },
): void {
  db.query(
    `INSERT INTO summaries(session_rowid, failure, failure_hash, failure_message) SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM sessions WHERE id = ?)
     ON CONFLICT(session_rowid) DO UPDATE SET failure = excluded.failure, failure_hash = excluded.failure_hash,
       failure_message = excluded.failure_message`,
  ).run(rowid, failure.reason, failure.contentHash, failure.message, rowid);
}

/**
 * How many sessions have a summary and how many failed, by reason, over the whole index (`status`, `doctor`).
 * `withoutSummary` counts the sessions `recall summarize --all` selects (at least one turn, not a sub-agent's) that have
 * no summary (failed ones included).
 */
export interface SummaryCounts {
  /** Sessions with an abstract their agent wrote (compaction summaries, recaps, titles: sessions.abstract). */
  withAbstract: number;
  summarized: number;
  withoutSummary: number;
  /** Sessions whose last attempt failed, by reason (only reasons that occur). */
  failed: Partial<Record<SummaryFailureReason, number>>;
}

/** The {@link SummaryCounts} of the index. */
export function summaryCounts(db: Database): SummaryCounts {
  const summarized =
    db.query<{ n: number }, []>("SELECT count(*) AS n FROM summaries WHERE text IS NOT NULL").get()?.n ?? 0;
  const withoutSummary =
    db
      .query<{ n: number }, []>(
        `SELECT count(*) AS n FROM sessions s WHERE s.turn_count > 0 AND s.is_subagent = 0
           AND NOT EXISTS (SELECT 1 FROM summaries m WHERE m.session_rowid = s.id AND m.text IS NOT NULL)`,
      )
      .get()?.n ?? 0;
  const withAbstract =
    db.query<{ n: number }, []>("SELECT count(*) AS n FROM sessions WHERE abstract IS NOT NULL").get()?.n ?? 0;
  const failed: SummaryCounts["failed"] = {};
  for (const row of db
    .query<{ failure: SummaryFailureReason; n: number }, []>(
      "SELECT failure, count(*) AS n FROM summaries WHERE failure IS NOT NULL GROUP BY failure ORDER BY failure",
    )
    .all())
    failed[row.failure] = row.n;
  return { withAbstract, summarized, withoutSummary, failed };
}
