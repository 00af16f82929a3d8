/**
 * Turns ranked candidates into results: session and turn rows from SQLite, previews around the
 * query words, files, and the next command to run (drill deeper / show context / resume).
 * Times are epoch ms here; render/ formats them (ISO-8601 in JSON).
 */
import type { Database } from "bun:sqlite";
import { loadDocumentTexts } from "../index/write/documents.ts";
import type { StoredToolCall } from "../index/write/writer.ts";
import type { SourceId } from "../parsers/types.ts";
import type { JudgedHit } from "./api.ts";
import type { ResultConfidence } from "./confidence.ts";
import { makePreview, type Preview } from "./preview.ts";
import { loadSessionSummaries, type SessionSummary } from "./sessions.ts";

/**
 * Scores of a result: fused (0–1, relative to the other candidates of the query), each leg's normalized score
 * (undefined when that leg did not find it), and the absolute confidence with its raw evidence (confidence.ts).
 */
export interface ResultScores extends ResultConfidence {
  score: number;
  keywordScore: number | undefined;
  vectorScore: number | undefined;
}

/** A level-1 result: one session (its summary without storage details, plus what matched). */
export interface SessionResult extends ResultScores, Omit<SessionSummary, "rowid" | "location"> {
  /** Best matching text (a turn or the session's prompts), with match spans. */
  preview: Preview;
  /** The turn holding the best match (0 when it was the session document; negative for a rewound turn, issue 26). */
  bestTurn: number;
  /**
   * Shell command that resumes the session in its tool (a Claude Code sub-agent: its parent); null for a prompt-only
   * session (no transcript to resume) or one whose source is deleted.
   */
  resumeCommand: string | null;
}

/** A level-2 result: one turn. */
export interface TurnResult
  extends ResultScores,
    Pick<
      SessionSummary,
      | "sessionId"
      | "source"
      | "project"
      | "projectPath"
      | "title"
      | "sourceStatus"
      | "lastSeenAt"
      | "promptOnly"
      | "isSubagent"
      | "parentSessionId"
    > {
  /** The turn's number: 1-based among the main turns, or -1, -2, … for a rewound turn (issue 26). */
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

/**
 * Shell command that resumes a session in the tool that wrote it, every part quoted (issue 9: a session id
 * or project path taken from a crafted file name must not run anything when the line is pasted).
 * Examples: `claude --resume 2c5941bd-…`; `cd '/work/my app' && opencode --session ses_1`; `codex resume 0199…`;
 *   id `$(touch x)` → `claude --resume '$(touch x)'`.
 */
export function resumeCommandFor(source: SourceId, sessionId: string, projectPath: string): string {
  const cd = projectPath ? `cd ${projectPath.startsWith("-") ? "-- " : ""}${shellQuote(projectPath)} && ` : "";
  const id = shellQuote(sessionId);
  switch (source) {
    case "claude-code":
      return `${cd}claude --resume ${id}`;
    case "opencode":
      return `${cd}opencode --session ${id}`;
    case "codex":
      return `${cd}codex resume ${id}`; // Codex CLI docs: `codex resume <SESSION_ID>`
    case "gemini-cli":
      return `${cd}gemini --resume ${id}`; // Gemini CLI docs: `gemini --resume <session id|index|latest>`, per project folder
    case "cursor":
      // Cursor cannot reopen one chat from a shell: open its workspace, whose chat history lists the session
      return projectPath ? `cursor ${projectPath.startsWith("-") ? "-- " : ""}${shellQuote(projectPath)}` : "cursor";
    case "aider":
      return `${cd}aider --restore-chat-history`; // aider.chat docs: reloads .aider.chat.history.md into the new chat
    default:
      return source satisfies never;
  }
}

/**
 * The resume command of an indexed session: {@link resumeCommandFor}, or null when the tool cannot resume it: a
 * prompt-only session (known from a prompt-history file: its transcript is not on this machine), or one whose source
 * is deleted (issue 26: only recall's archive holds it). A Claude Code sub-agent cannot be resumed by its own id: its
 * parent session, which started it, is resumed instead.
 */
export function resumeCommandOf(
  session: Pick<
    SessionSummary,
    "source" | "sessionId" | "projectPath" | "promptOnly" | "sourceStatus" | "isSubagent" | "parentSessionId"
  >,
): string | null {
  if (session.promptOnly || session.sourceStatus === "deleted") return null;
  const parent = session.source === "claude-code" && session.isSubagent ? session.parentSessionId : null;
  return resumeCommandFor(session.source, parent ?? session.sessionId, session.projectPath);
}

/**
 * Quote one word for a POSIX shell (sh, bash, zsh): unchanged when it holds only characters no shell treats
 * specially, else in single quotes (inside which nothing expands; a `'` becomes `'\''`). The one quoting
 * function of recall's printed commands (render/ uses it too). A word that starts with `-` is still an
 * option to the command: callers put it after `--`.
 * Examples: `src/app.ts` → `src/app.ts`; `my app` → `'my app'`; `it's` → `'it'\''s'`; `$(id)` → `'$(id)'`; `` → `''`.
 */
export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

const scoresOf = (hit: JudgedHit): ResultScores => ({
  score: hit.score,
  keywordScore: hit.keywordScore,
  vectorScore: hit.vectorScore,
  ...hit.verdict,
});

/** Hydrate level-1 candidates (already cut to the limit). */
export function hydrateSessions(db: Database, hits: JudgedHit[], words: string[]): SessionResult[] {
  const sessions = loadSessionSummaries(
    db,
    hits.map((hit) => hit.hit.sessionRowid),
  );
  const documents = loadDocumentTexts(
    db,
    hits.map((hit) => hit.hit.documentId),
  );
  return hits.flatMap((hit) => {
    const row = sessions.get(hit.hit.sessionRowid);
    if (!row) return [];
    const document = documents.get(hit.hit.documentId);
    const previewSource = document ? [document.heading, document.body, document.extra].filter(Boolean).join(" — ") : "";
    const { rowid: _rowid, location: _location, ...summary } = row;
    return [
      {
        ...scoresOf(hit),
        ...summary,
        files: summary.files.slice(0, 20),
        preview: makePreview(previewSource, words),
        bestTurn: hit.hit.turnNumber,
        resumeCommand: resumeCommandOf(row),
      },
    ];
  });
}

/** Hydrate level-2 candidates (already cut to the limit). */
export function hydrateTurns(db: Database, hits: JudgedHit[], words: string[]): TurnResult[] {
  const sessions = loadSessionSummaries(db, [...new Set(hits.map((hit) => hit.hit.sessionRowid))]);
  const turnQuery = db.query<
    { timestamp: number; prompt: string; response: string; tools: string; files: string },
    [number, number]
  >("SELECT timestamp, prompt, response, tools, files FROM turns WHERE session_rowid = ? AND number = ?");
  return hits.flatMap((hit) => {
    const row = sessions.get(hit.hit.sessionRowid);
    const turn = turnQuery.get(hit.hit.sessionRowid, hit.hit.turnNumber);
    if (!row || !turn) return [];
    const tools = [...new Set((JSON.parse(turn.tools) as StoredToolCall[]).map((call) => call.name))];
    return [
      {
        ...scoresOf(hit),
        sessionId: row.sessionId,
        source: row.source,
        project: row.project,
        projectPath: row.projectPath,
        title: row.title,
        sourceStatus: row.sourceStatus,
        lastSeenAt: row.lastSeenAt,
        promptOnly: row.promptOnly,
        isSubagent: row.isSubagent,
        parentSessionId: row.parentSessionId,
        turn: hit.hit.turnNumber,
        totalTurns: row.turns,
        timestamp: turn.timestamp,
        prompt: turn.prompt,
        responseExcerpt: makePreview(turn.response, words, 400),
        tools,
        files: JSON.parse(turn.files) as string[],
      },
    ];
  });
}
