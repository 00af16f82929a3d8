/**
 * Turns ranked candidates into results: session and turn rows from SQLite, previews around the
 * query words, files, and the next command to run (drill deeper / show context / resume).
 * Times are epoch ms here; render/ formats them (ISO-8601 in JSON).
 */
import type { Database } from "bun:sqlite";
import { type DocumentText, loadDocumentTexts, searchableChars, searchablePart } from "../../index/write/documents.ts";
import type { StoredToolCall } from "../../index/write/writer.ts";
import { optionSafe, parserFor, type ResumeInvocation, type SourceId } from "../../parsers/index.ts";
import type { JudgedHit } from "../api.ts";
import type { ResultConfidence } from "../ranking/confidence.ts";
import { makeDocumentPreview, makePreview, type Preview, previewScanChars } from "./preview.ts";
import { loadSessionSummaries, type SessionSummary } from "../listing/sessions.ts";
export type { ResumeInvocation } from "../../parsers/index.ts";

/**
 * Scores of a result: fused (0–1, relative to the other candidates of the query), each leg's normalized score
 * (undefined when that leg did not find it), and the absolute confidence with its raw evidence (confidence.ts).
 */
export interface ResultScores extends ResultConfidence {
  score: number;
  keywordScore: number | undefined;
  vectorScore: number | undefined;
}

/** The team archive's copy of a session (issue 30): its id in the archive (what `show --archive` takes), and who pushed it from where. */
export interface ArchivedCopy {
  archiveId: string;
  team: string;
  pushedBy: string;
  machine: string;
  osUser: string;
}

/**
 * Where a result is held. One result type serves the local index, the team archive and `--everywhere` (issue 39), so
 * every front end renders them with one renderer.
 */
export interface ResultPlace {
  /**
   * True when this machine's index holds the session: it can be resumed, and read from its source or recall's copy.
   * False for a session only the team archive holds (pushed from another machine or user).
   */
  here: boolean;
  /** The team archive's copy, when the search read the archive and the archive holds the session; else undefined. */
  archived?: ArchivedCopy;
}

/** A level-1 result: one session (its summary without storage details, plus what matched). */
export interface SessionResult extends ResultScores, ResultPlace, Omit<SessionSummary, "rowid" | "location"> {
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

/** The fields of its session a level-2 result carries. */
const turnSessionKeys = [
  "sessionId",
  "source",
  "project",
  "projectPath",
  "title",
  "sourceStatus",
  "lastSeenAt",
  "promptOnly",
  "isSubagent",
  "parentSessionId",
] as const satisfies ReadonlyArray<keyof SessionSummary>;

/** {@link turnSessionKeys} of a session summary. */
export type TurnSessionFields = Pick<SessionSummary, (typeof turnSessionKeys)[number]>;

/**
 * The fields of its session a turn result carries, from the session's summary (this index's, or the team archive's:
 * team-archive/search.ts); every other field of the summary is left out.
 */
export function turnSessionFields(summary: TurnSessionFields): TurnSessionFields {
  return Object.fromEntries(turnSessionKeys.map((key) => [key, summary[key]])) as TurnSessionFields;
}

/** A level-2 result: one turn. */
export interface TurnResult extends ResultScores, ResultPlace, TurnSessionFields {
  /** The turn's number: 1-based among the main turns, or -1, -2, … for a rewound turn (issue 26). */
  turn: number;
  totalTurns: number;
  timestamp: number;
  /**
   * The human prompt, its first index/write/documents.ts `searchableChars` (200,000) characters at most (issue 37: a
   * 50 MB prompt read whole made a search take seconds); the whole text is level 3's (`recall show`, read_turns).
   */
  prompt: string;
  /**
   * Characters of the whole prompt: `prompt.length`, or when it was cut the length the index stored when it wrote the
   * turn (`turns.prompt_chars`, schema 11), or for a turn written before that SQLite's count of its code points.
   */
  promptChars: number;
  /** Up to 400 characters of the assistant prose around the match. */
  responseExcerpt: Preview;
  /** Tool names used in the turn, unique, in first-use order. */
  tools: string[];
  files: string[];
}

/**
 * The resume invocation of a session: its parser's (parsers/types.ts `Parser.resumeInvocation`, each from the agent's
 * documented command line). Example: `("codex", "0199…", "/work/app")` → `{ cwd: "/work/app", argv: ["codex",
 * "resume", "0199…"] }`.
 */
export function resumeInvocationFor(source: SourceId, sessionId: string, projectPath: string): ResumeInvocation {
  return parserFor(source).resumeInvocation(sessionId, projectPath);
}

/**
 * A resume invocation as one shell line, every part quoted (issue 9: a session id or project path taken from a
 * crafted file name must not run anything when the line is pasted): `cd <cwd> && <argv>` when it has a folder.
 * Examples: `claude --resume 2c5941bd-…`; `cd '/work/my app' && opencode --session ses_1`; id `$(touch x)` →
 * `claude --resume '$(touch x)'`.
 */
export function shellCommandOf(invocation: ResumeInvocation): string {
  const cd = invocation.cwd
    ? `cd ${optionSafe(invocation.cwd)
        .map((word) => (word === "--" ? word : shellQuote(word)))
        .join(" ")} && `
    : "";
  return cd + invocation.argv.map((word) => (word === "--" ? word : shellQuote(word))).join(" ");
}

/**
 * Shell command that resumes a session in the tool that wrote it: {@link shellCommandOf} of
 * {@link resumeInvocationFor}. Examples: `claude --resume 2c5941bd-…`; `cd '/work/my app' && opencode --session
 * ses_1`; `codex resume 0199…`.
 */
export function resumeCommandFor(source: SourceId, sessionId: string, projectPath: string): string {
  return shellCommandOf(resumeInvocationFor(source, sessionId, projectPath));
}

/**
 * The resume invocation of an indexed session ({@link resumeInvocationFor}), or null when the tool cannot resume it:
 * a prompt-only session (known from a prompt-history file: its transcript is not on this machine), or one whose
 * source is deleted (issue 26: only recall's archive holds it). A Claude Code sub-agent cannot be resumed by its own
 * id: its parent session, which started it, is resumed instead.
 */
export function resumeInvocationOf(session: ResumableSession): ResumeInvocation | null {
  if (session.promptOnly || session.sourceStatus === "deleted") return null;
  const parent = session.source === "claude-code" && session.isSubagent ? session.parentSessionId : null;
  return resumeInvocationFor(session.source, parent ?? session.sessionId, session.projectPath);
}

/** What deciding a session's resume command needs of it. */
export type ResumableSession = Pick<
  SessionSummary,
  "source" | "sessionId" | "projectPath" | "promptOnly" | "sourceStatus" | "isSubagent" | "parentSessionId"
>;

/** The resume command of an indexed session as one shell line ({@link resumeInvocationOf}), or null. */
export function resumeCommandOf(session: ResumableSession): string | null {
  const invocation = resumeInvocationOf(session);
  return invocation ? shellCommandOf(invocation) : null;
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

/** A ranked hit's scores and verdict, as results carry them (the team archive's hydration too). */
export const scoresOf = (hit: JudgedHit): ResultScores => ({
  score: hit.score,
  keywordScore: hit.keywordScore,
  vectorScore: hit.vectorScore,
  ...hit.verdict,
});

/**
 * Hydrate level-1 candidates (already cut to the limit).
 * @param previews false: every preview is empty, and the best documents' texts are not read (SearchRequest.previews)
 */
export function hydrateSessions(db: Database, hits: JudgedHit[], words: string[], previews = true): SessionResult[] {
  const sessions = loadSessionSummaries(
    db,
    hits.map((hit) => hit.hit.sessionRowid),
  );
  const documents = previews
    ? loadDocumentTexts(
        db,
        hits.map((hit) => hit.hit.documentId),
      )
    : new Map<number, DocumentText>();
  return hits.flatMap((hit) => {
    const row = sessions.get(hit.hit.sessionRowid);
    if (!row) return [];
    const document = documents.get(hit.hit.documentId);
    const { rowid: _rowid, location: _location, ...summary } = row;
    return [
      {
        ...scoresOf(hit),
        ...summary,
        files: summary.files.slice(0, 20),
        preview: document ? makeDocumentPreview(document, words) : makePreview("", words),
        bestTurn: hit.hit.turnNumber,
        resumeCommand: resumeCommandOf(row),
        here: true,
      },
    ];
  });
}

/**
 * {@link TurnResult.promptChars} of a prompt read up to `searchableChars + 1` code points: its length when that is
 * at most `searchableChars` (no cut), else the length stored with the turn (`stored`, schema 11: no second read of a
 * 50 MB value), else `countCodePoints()` (SQLite's length(): the whole prompt's code points) when
 * that is more (a cut), else its length (astral characters made it longer in UTF-16 than in code points).
 */
function wholePromptChars(prompt: string, stored: number | null, countCodePoints: () => number): number {
  if (prompt.length <= searchableChars) return prompt.length;
  if (stored !== null) return stored;
  const whole = countCodePoints();
  return whole > searchableChars ? whole : prompt.length;
}

/** Hydrate level-2 candidates (already cut to the limit). */
export function hydrateTurns(db: Database, hits: JudgedHit[], words: string[]): TurnResult[] {
  const sessions = loadSessionSummaries(db, [...new Set(hits.map((hit) => hit.hit.sessionRowid))]);
  const turnQuery = db.query<
    { timestamp: number; prompt: string; prompt_chars: number | null; response: string; tools: string; files: string },
    [number, number]
  >(
    `SELECT timestamp, substr(prompt, 1, ${searchableChars + 1}) AS prompt, prompt_chars,
      substr(response, 1, ${previewScanChars}) AS response, tools, files FROM turns WHERE session_rowid = ? AND number = ?`,
  );
  // Counting a prompt's code points reads all of it (0.1 s for 50 MB): only for a prompt that was cut.
  const promptLength = db.query<{ chars: number }, [number, number]>(
    "SELECT length(prompt) AS chars FROM turns WHERE session_rowid = ? AND number = ?",
  );
  return hits.flatMap((hit) => {
    const row = sessions.get(hit.hit.sessionRowid);
    const turn = turnQuery.get(hit.hit.sessionRowid, hit.hit.turnNumber);
    if (!row || !turn) return [];
    const tools = [...new Set((JSON.parse(turn.tools) as StoredToolCall[]).map((call) => call.name))];
    return [
      {
        ...scoresOf(hit),
        ...turnSessionFields(row),
        turn: hit.hit.turnNumber,
        totalTurns: row.turns,
        timestamp: turn.timestamp,
        prompt: searchablePart(turn.prompt),
        promptChars: wholePromptChars(
          turn.prompt,
          turn.prompt_chars,
          () => promptLength.get(hit.hit.sessionRowid, hit.hit.turnNumber)!.chars,
        ),
        responseExcerpt: makePreview(turn.response, words, 400),
        tools,
        files: JSON.parse(turn.files) as string[],
        here: true,
      },
    ];
  });
}
