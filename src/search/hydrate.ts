/**
 * Turns ranked candidates into results: session and turn rows from SQLite, previews around the
 * query words, files, and the next command to run (drill deeper / show context / resume).
 * Times are epoch ms here; render/ formats them (ISO-8601 in JSON).
 */
import type { Database } from "bun:sqlite";
import type { StoredToolCall } from "../index/index.ts";
import type { SourceId } from "../parsers/index.ts";
import type { RankedHit } from "./api.ts";
import { makePreview, type Preview } from "./preview.ts";

/** Scores of a result: fused (0–1) and each leg's normalized score (undefined when that leg did not find it). */
export interface ResultScores {
  score: number;
  keywordScore: number | undefined;
  vectorScore: number | undefined;
}

/** A level-1 result: one session. */
export interface SessionResult extends ResultScores {
  sessionId: string;
  source: SourceId;
  project: string;
  projectPath: string;
  title: string | null;
  gitBranch: string | null;
  startedAt: number;
  endedAt: number;
  turns: number;
  isSubagent: boolean;
  parentSessionId: string | null;
  /** Best matching text (a turn or the session's prompts), with match spans. */
  preview: Preview;
  /** The turn holding the best match (0 when it was the session document). */
  bestTurn: number;
  /** Files touched in the session (first 20). */
  files: string[];
  /** Shell command that resumes the session in its tool. */
  resumeCommand: string;
}

/** A level-2 result: one turn. */
export interface TurnResult extends ResultScores {
  sessionId: string;
  source: SourceId;
  project: string;
  projectPath: string;
  title: string | null;
  turn: number;
  totalTurns: number;
  timestamp: number;
  /** The whole human prompt. */
  prompt: string;
  /** Up to 400 characters of the assistant prose around the match. */
  responseExcerpt: Preview;
  /** Tool names used in the turn, unique, in first-use order. */
  tools: string[];
  files: string[];
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
  is_subagent: number;
  parent_session_id: string | null;
  files: string;
}

/** Shell command that resumes a session in the tool that wrote it. */
export function resumeCommandFor(source: SourceId, sessionId: string, projectPath: string): string {
  const cd = projectPath ? `cd ${shellQuote(projectPath)} && ` : "";
  return source === "claude-code" ? `${cd}claude --resume ${sessionId}` : `${cd}opencode --session ${sessionId}`;
}

/** Quote a value for a POSIX shell when it needs it. */
export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

function loadSessions(db: Database, rowids: number[]): Map<number, SessionRow> {
  if (rowids.length === 0) return new Map();
  const rows = db
    .query<SessionRow, number[]>(
      `SELECT id, session_id, source, project_name, project_path, title, git_branch, started_at, ended_at, turn_count,
         is_subagent, parent_session_id, files FROM sessions WHERE id IN (${rowids.map(() => "?").join(",")})`,
    )
    .all(...rowids);
  return new Map(rows.map((row) => [row.id, row]));
}

const scoresOf = (hit: RankedHit): ResultScores => ({ score: hit.score, keywordScore: hit.keywordScore, vectorScore: hit.vectorScore });

/** Hydrate level-1 candidates (already cut to the limit). */
export function hydrateSessions(db: Database, hits: RankedHit[], words: string[]): SessionResult[] {
  const sessions = loadSessions(db, hits.map((hit) => hit.hit.sessionRowid));
  const documentQuery = db.query<{ heading: string; body: string; extra: string }, [number]>("SELECT heading, body, extra FROM documents WHERE id = ?");
  return hits.flatMap((hit) => {
    const row = sessions.get(hit.hit.sessionRowid);
    if (!row) return [];
    const document = documentQuery.get(hit.hit.documentId);
    const previewSource = document ? [document.heading, document.body, document.extra].filter(Boolean).join(" — ") : "";
    return [
      {
        ...scoresOf(hit),
        sessionId: row.session_id,
        source: row.source,
        project: row.project_name,
        projectPath: row.project_path,
        title: row.title,
        gitBranch: row.git_branch,
        startedAt: row.started_at,
        endedAt: row.ended_at,
        turns: row.turn_count,
        isSubagent: row.is_subagent === 1,
        parentSessionId: row.parent_session_id,
        preview: makePreview(previewSource, words),
        bestTurn: hit.hit.turnNumber,
        files: (JSON.parse(row.files) as string[]).slice(0, 20),
        resumeCommand: resumeCommandFor(row.source, row.session_id, row.project_path),
      },
    ];
  });
}

/** Hydrate level-2 candidates (already cut to the limit). */
export function hydrateTurns(db: Database, hits: RankedHit[], words: string[]): TurnResult[] {
  const sessions = loadSessions(db, [...new Set(hits.map((hit) => hit.hit.sessionRowid))]);
  const turnQuery = db.query<{ timestamp: number; prompt: string; response: string; tools: string; files: string }, [number, number]>(
    "SELECT timestamp, prompt, response, tools, files FROM turns WHERE session_rowid = ? AND number = ?",
  );
  return hits.flatMap((hit) => {
    const row = sessions.get(hit.hit.sessionRowid);
    const turn = turnQuery.get(hit.hit.sessionRowid, hit.hit.turnNumber);
    if (!row || !turn) return [];
    const tools = [...new Set((JSON.parse(turn.tools) as StoredToolCall[]).map((call) => call.name))];
    return [
      {
        ...scoresOf(hit),
        sessionId: row.session_id,
        source: row.source,
        project: row.project_name,
        projectPath: row.project_path,
        title: row.title,
        turn: hit.hit.turnNumber,
        totalTurns: row.turn_count,
        timestamp: turn.timestamp,
        prompt: turn.prompt,
        responseExcerpt: makePreview(turn.response, words, 400),
        tools,
        files: JSON.parse(turn.files) as string[],
      },
    ];
  });
}
