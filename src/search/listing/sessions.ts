/**
 * Session lookups that are not ranked searches: resolve an id or prefix (`recall show`), list sessions newest
 * first (`recall sessions`), and summarize the index (`recall status`). Sessions whose source is gone are included
 * everywhere, with `sourceStatus: "deleted"` and the time their source was last seen (issue 9). No parser is loaded
 * here (a keyword search hydrates its results from this file); re-parsing a source is read-session.ts's.
 */
import type { Database } from "bun:sqlite";
import { statSync } from "node:fs";
import { SessionLookupError } from "../../errors.ts";
import { lastSeenSql } from "../../index/store/archive.ts";
import { readReembedProgress, type ReembedProgress } from "../../index/vectors/reembed-progress.ts";
import { readNotKept, type NotKept } from "../../index/write/not-kept.ts";
import { chunkStatus, readMeta, type SourceStatus } from "../../index/schema.ts";
import type { AbstractPart, SourceId } from "../../parsers/types.ts";
import { filterSql, noProjectLabel, type SearchFilters } from "./filters.ts";
import { projectKeySql } from "../../index/store/scope-counts.ts";

export { noProjectLabel };

/**
 * An indexed session as listed by `recall sessions` (times in epoch ms). `title` is the tool's title, or for an
 * untitled session its first real prompt as typed, shortened (index/write/derived-title.ts), or null when it has no
 * prompt.
 */
export interface SessionSummary {
  rowid: number;
  sessionId: string;
  source: SourceId;
  project: string;
  projectPath: string;
  title: string | null;
  /**
   * What was written about the session (issue 41): the summary `recall summarize` made (source `summary`, whole: at
   * most 1,500 characters), then the abstract its agent wrote (parsers/shared/abstract.ts order), each part cut to
   * {@link abstractListedChars} characters with "…". Empty when there is neither.
   */
  abstract: AbstractPart[];
  gitBranch: string | null;
  startedAt: number;
  endedAt: number;
  turns: number;
  parentSessionId: string | null;
  isSubagent: boolean;
  location: string;
  /** Files touched in the session, unique, in first-touch order. */
  files: string[];
  /** "present" while the source holds the session; "deleted" once it vanished (the index holds the only copy). */
  sourceStatus: SourceStatus;
  /** Epoch ms when recall last saw the session's source (0 when unknown). */
  lastSeenAt: number;
  /**
   * True when the session is known only from the tool's prompt history: its turns are the typed prompts, without
   * answers or tool calls, and it cannot be resumed (issue 11).
   */
  promptOnly: boolean;
}

interface SessionRow {
  id: number;
  session_id: string;
  source: SourceId;
  project_name: string;
  project_path: string;
  title: string | null;
  git_branch: string | null;
  started_at: number;
  ended_at: number;
  turn_count: number;
  parent_session_id: string | null;
  is_subagent: number;
  location: string;
  files: string;
  source_status: SourceStatus;
  last_seen_at: number;
  prompt_only: number;
  /** The first real prompt as typed, shortened (index/write/derived-title.ts), shown when `title` is null. */
  derived_title: string | null;
  /** JSON of the agent's `AbstractPart[]`, or null. */
  abstract: string | null;
  /** The summary `recall summarize` made, and when (epoch ms), or null. */
  summary: string | null;
  summary_made_at: number | null;
}

/**
 * Characters of each abstract part a listed session carries: a compaction summary runs to 10,000 characters, and a
 * page of 20 results must stay readable (and within an agent's token budget). `recall show` prints them whole.
 */
export const abstractListedChars = 600;

/**
 * A session's whole abstract as a listing shows it: the summary `recall summarize` made (source `summary`, at
 * `summaryMadeAt`, epoch ms; none when `summary` is null or "") first, then the parts of `abstract` (the JSON of
 * `sessions.abstract`, or null), texts whole. Shared with the team archive, which stores it so (issue 41).
 */
export function sessionAbstract(
  abstract: string | null,
  summary: string | null,
  summaryMadeAt: number | null,
): AbstractPart[] {
  const parts: AbstractPart[] = abstract === null ? [] : (JSON.parse(abstract) as AbstractPart[]);
  if (summary) parts.unshift({ source: "summary", text: summary, at: summaryMadeAt ?? 0 });
  return parts;
}

/**
 * Each part of an abstract with its text cut to {@link abstractListedChars} characters (the last one "…"), but the
 * summary, which is short by construction (at most 1,500 characters, summarize/answer.ts) and shown whole.
 */
export function listedAbstract(parts: readonly AbstractPart[]): AbstractPart[] {
  return parts.map((part) =>
    part.source !== "summary" && part.text.length > abstractListedChars
      ? { ...part, text: `${part.text.slice(0, abstractListedChars - 1)}…` }
      : part,
  );
}

/** The summary and the abstract parts of a session row, each cut to {@link abstractListedChars}. */
const abstractOf = (row: SessionRow): AbstractPart[] =>
  listedAbstract(sessionAbstract(row.abstract, row.summary, row.summary_made_at));

const summaryColumns = `s.id, s.session_id, s.source, s.project_name, s.project_path, s.title, s.git_branch, s.started_at, s.ended_at,
  s.turn_count, s.parent_session_id, s.is_subagent, s.location, s.files, s.source_status, ${lastSeenSql} AS last_seen_at, s.prompt_only,
  s.derived_title, s.abstract, m.text AS summary, m.made_at AS summary_made_at`;

/** The join {@link summaryColumns} needs: each session's row of `summaries`, if any. */
const summaryJoin = "LEFT JOIN summaries m ON m.session_rowid = s.id";

const toSummary = (row: SessionRow): SessionSummary => ({
  rowid: row.id,
  sessionId: row.session_id,
  source: row.source,
  project: row.project_name,
  projectPath: row.project_path,
  title: row.title ?? row.derived_title,
  abstract: abstractOf(row),
  gitBranch: row.git_branch,
  startedAt: row.started_at,
  endedAt: row.ended_at,
  turns: row.turn_count,
  parentSessionId: row.parent_session_id,
  isSubagent: row.is_subagent === 1,
  location: row.location,
  files: JSON.parse(row.files) as string[],
  sourceStatus: row.source_status,
  lastSeenAt: row.last_seen_at,
  promptOnly: row.prompt_only === 1,
});

/** Summaries of the given session rowids, keyed by rowid (missing rowids are absent). */
export function loadSessionSummaries(db: Database, rowids: readonly number[]): Map<number, SessionSummary> {
  if (rowids.length === 0) return new Map();
  const rows = db
    .query<SessionRow, number[]>(
      `SELECT ${summaryColumns} FROM sessions s ${summaryJoin} WHERE s.id IN (${rowids.map(() => "?").join(",")})`,
    )
    .all(...rowids);
  return new Map(rows.map((row) => [row.id, toSummary(row)]));
}

/** Shortest id prefix accepted when it is not a whole id. */
export const minimumPrefixLength = 8;

/**
 * Resolve a full session id or any unique prefix of it (issue 15: a unique 4-character prefix said "no session
 * matches"); a short prefix that matches several sessions is called too short, with the candidates.
 * @throws SessionLookupError SESSION_NOT_FOUND ("no session matches <id>") or SESSION_AMBIGUOUS (with candidates)
 */
export function findSession(db: Database, idOrPrefix: string): SessionSummary {
  const exact = db
    .query<SessionRow, [string]>(`SELECT ${summaryColumns} FROM sessions s ${summaryJoin} WHERE s.session_id = ?`)
    .all(idOrPrefix);
  if (exact.length === 1) return toSummary(exact[0]!);
  const rows =
    exact.length > 1
      ? exact
      : db
          .query<SessionRow, [string]>(
            `SELECT ${summaryColumns} FROM sessions s ${summaryJoin} WHERE substr(s.session_id, 1, length(?1)) = ?1 ORDER BY s.ended_at DESC LIMIT 21`,
          )
          .all(idOrPrefix);
  if (rows.length === 1) return toSummary(rows[0]!);
  if (rows.length === 0)
    throw new SessionLookupError(
      "SESSION_NOT_FOUND",
      `no session matches ${idOrPrefix}`,
      [],
      "list ids with `recall sessions`",
    );
  if (rows.length > 1 && idOrPrefix.length < minimumPrefixLength) {
    const candidates = rows
      .slice(0, 20)
      .map((row) => `${row.session_id}  ${row.source}  ${row.project_name}  ${row.title ?? ""}`.trimEnd());
    throw new SessionLookupError(
      "SESSION_AMBIGUOUS",
      `the prefix ${idOrPrefix} is too short: it matches ${rows.length > 20 ? "more than 20" : rows.length} sessions`,
      candidates,
      `give more characters of the id (${minimumPrefixLength} are usually enough)`,
    );
  }
  const candidates = rows
    .slice(0, 20)
    .map((row) => `${row.session_id}  ${row.source}  ${row.project_name}  ${row.title ?? ""}`.trimEnd());
  throw new SessionLookupError(
    "SESSION_AMBIGUOUS",
    `${idOrPrefix} matches ${rows.length > 20 ? "more than 20" : rows.length} sessions`,
    candidates,
    "give more characters of the id",
  );
}

/**
 * List sessions newest first (by last activity, then id: a stable order for paging), filtered.
 * @param limit rows wanted (−1: all)
 * @param offset rows skipped first (0-based; issue 10 pagination); default 0
 */
export function listSessions(db: Database, filters: SearchFilters, limit: number, offset = 0): SessionSummary[] {
  const { sql, params } = listingSql(filters, limit, offset);
  return db
    .query<SessionRow, Array<string | number>>(sql)
    .all(...params)
    .map(toSummary);
}

/** How many sessions match `filters` (the same WHERE as {@link listSessions}, without a limit). */
export function countSessions(db: Database, filters: SearchFilters): number {
  const { sql, params } = countingSql(filters);
  return db.query<{ n: number }, Array<string | number>>(sql).get(...params)?.n ?? 0;
}

/**
 * The statement of {@link listSessions} and its parameters. Its order is the order of the `sessions_listing` index
 * (schema v19), so a page is read from the front of that index without sorting every session.
 */
export function listingSql(
  filters: SearchFilters,
  limit: number,
  offset: number,
): { sql: string; params: Array<string | number> } {
  const filter = filterSql(filters);
  return {
    sql: `SELECT ${summaryColumns} FROM sessions s ${summaryJoin} WHERE ${filter.where} ORDER BY s.ended_at DESC, s.session_id LIMIT ? OFFSET ?`,
    params: [...filter.params, limit, offset],
  };
}

/** The statement of {@link countSessions} and its parameters. */
export function countingSql(filters: SearchFilters): { sql: string; params: Array<string | number> } {
  const filter = filterSql(filters);
  return { sql: `SELECT count(*) AS n FROM sessions s WHERE ${filter.where}`, params: filter.params };
}

/**
 * Sessions and turns per project, most sessions first. A Windows project recorded with several casings
 * (`C:\\Users\\me\\Vault`, `c:\\users\\me\\vault`) is one project (index/store/scope-counts.ts `projectKeySql`), shown with the
 * casing most of its sessions use. Sessions without a project path get one row per source, named
 * {@link noProjectLabel} (issue 37: they were one row of every source, named after whichever session came first, often
 * a Gemini CLI folder hash that `--project` matched in only some of them).
 */
function sessionsByProject(db: Database): IndexStatus["byProject"] {
  const rows = db
    .query<{ key: string; project: string; project_path: string; source: string; sessions: number; turns: number }, []>(
      `SELECT ${projectKeySql("s")} AS key, s.project_name AS project, s.project_path, s.source, count(*) AS sessions,
       sum(s.turn_count) AS turns
       FROM sessions s GROUP BY s.project_path, CASE WHEN s.project_path = '' THEN s.source END
       ORDER BY sessions DESC, s.project_path, s.source`,
    )
    .all();
  const byKey = new Map<string, IndexStatus["byProject"][number]>();
  for (const row of rows) {
    const hasPath = row.project_path !== "";
    const key = hasPath ? row.key : `\u0000${row.source}`;
    const known = byKey.get(key); // rows come most sessions first, so the first casing seen is the most used
    if (known) {
      known.sessions += row.sessions;
      known.turns += row.turns;
    } else if (hasPath) {
      byKey.set(key, { project: row.project, projectPath: row.project_path, sessions: row.sessions, turns: row.turns });
    } else {
      byKey.set(key, {
        project: noProjectLabel,
        projectPath: "",
        source: row.source,
        sessions: row.sessions,
        turns: row.turns,
      });
    }
  }
  return [...byKey.values()].sort((a, b) => b.sessions - a.sessions || a.projectPath.localeCompare(b.projectPath));
}

/** Counts for `recall status`. */
export interface IndexStatus {
  /** Every session in the index, those whose source is deleted included. */
  sessions: number;
  turns: number;
  subagentSessions: number;
  /** Sessions whose source is gone: the index holds the only copy (issue 9). */
  deletedSessions: number;
  /** Sessions known only from a prompt-history file (typed prompts, no transcript; issue 11). */
  promptOnlySessions: number;
  /** Sessions forgotten on purpose (`recall forget`), which an index run does not add again. */
  forgottenSessions: number;
  bySource: Array<{ source: string; sessions: number; turns: number }>;
  /**
   * Per project folder; sessions without one are a row per source (`project` {@link noProjectLabel}, `projectPath` "",
   * `source` set), which `recall sessions --source <source> --project "(no project)"` lists.
   */
  byProject: Array<{ project: string; projectPath: string; source?: string; sessions: number; turns: number }>;
  databaseBytes: number;
  /** Epoch ms of the last completed index run, or undefined. */
  lastIndexedAt: number | undefined;
  embeddedChunks: number;
  pendingChunks: number;
  failedChunks: number;
  /** documents with nothing to embed (one empty chunk each) */
  skippedChunks: number;
  /** chunks the model or endpoint refused for good (index/schema.ts `chunkStatus.rejected`) */
  rejectedChunks: number;
  /**
   * embedded chunks longer than the endpoint's window, embedded as the mean of their parts instead of being cut
   * (`chunks.parts` > 1; issue 27)
   */
  splitChunks: number;
  /** a re-embed with another model under way (index/vectors/generations.ts), or undefined */
  reembed: ReembedProgress | undefined;
  /** files rejected whole and records that could not be placed, with reasons (issue 26; index/write/not-kept.ts) */
  notKept: NotKept;
}

/** Summarize the index (read-only). */
export function readIndexStatus(db: Database, databasePath: string): IndexStatus {
  const totals = db
    .query<{ sessions: number; turns: number; subagents: number; deleted: number; prompt_only: number }, []>(
      `SELECT count(*) AS sessions, coalesce(sum(turn_count), 0) AS turns, coalesce(sum(is_subagent), 0) AS subagents,
       coalesce(sum(source_status = 'deleted'), 0) AS deleted, coalesce(sum(prompt_only), 0) AS prompt_only FROM sessions`,
    )
    .get()!;
  const chunks = db
    .query<{ status: number; n: number }, []>("SELECT status, count(*) AS n FROM chunks GROUP BY status")
    .all();
  const chunkCount = (status: number) => chunks.find((row) => row.status === status)?.n ?? 0;
  let databaseBytes = 0;
  for (const suffix of ["", "-wal"]) {
    try {
      databaseBytes += statSync(databasePath + suffix).size;
    } catch {
      // no WAL file: nothing to add
    }
  }
  const last = readMeta(db, "last_indexed_at");
  return {
    sessions: totals.sessions,
    turns: totals.turns,
    subagentSessions: totals.subagents,
    deletedSessions: totals.deleted,
    promptOnlySessions: totals.prompt_only,
    forgottenSessions: db.query<{ n: number }, []>("SELECT count(*) AS n FROM forgotten").get()?.n ?? 0,
    bySource: db
      .query<{ source: string; sessions: number; turns: number }, []>(
        "SELECT source, count(*) AS sessions, sum(turn_count) AS turns FROM sessions GROUP BY source ORDER BY source",
      )
      .all(),
    byProject: sessionsByProject(db),
    databaseBytes,
    lastIndexedAt: last ? Number(last) : undefined,
    embeddedChunks: chunkCount(chunkStatus.embedded),
    pendingChunks: chunkCount(chunkStatus.pending),
    failedChunks: chunkCount(chunkStatus.failed),
    skippedChunks: chunkCount(chunkStatus.skipped),
    rejectedChunks: chunkCount(chunkStatus.rejected),
    splitChunks:
      db
        .query<{ n: number }, [number]>("SELECT count(*) AS n FROM chunks WHERE status = ? AND parts > 1")
        .get(chunkStatus.embedded)?.n ?? 0,
    reembed: readReembedProgress(db),
    notKept: readNotKept(db),
  };
}
