/**
 * The MCP tools' result lists in their two formats (issue 10): `index` (the default: ids, title, date, score,
 * a one-line preview; tens of tokens per result) and `full` (every field of the CLI's `--json`). Each builder
 * returns the text the model reads and the `structuredContent` object of schemas.ts. Control characters from
 * sessions are shown as `\xNN` in both (render/escapes.ts, as in the CLI's output), and in the text every preview or
 * prompt stands between the fence lines of session-text.ts (issue 37), so no session text reads as recall's own line.
 */
import { neutralizeStrings } from "../render/escapes.ts";
import {
  abstractJson,
  abstractLine,
  countOf,
  localDate,
  localMinute,
  isoTime,
  oneLine,
  projectLabel,
  promptOnlyMarker,
  roundScore,
  sessionMarkers,
} from "../render/format.ts";
import { datesJson, datesUnderstoodLine } from "../render/search-dates.ts";
import {
  confidenceJson,
  cutField,
  evidenceJson,
  fieldCharLimit,
  indexAbstract,
  noConfidentMatch,
  placeJson,
  whereSearched,
} from "../render/search.ts";
import {
  resumeCommandOf,
  type Page,
  type RecentSession,
  type SearchResponse,
  type SessionResult,
  type SessionSummary,
  type Timeline,
  type TimelineEntry,
  type TurnResult,
} from "../search/index.ts";
import { turnLabel } from "../parsers/index.ts";
import type { ResultFormat } from "./schemas.ts";
import { type AnswerLine, sessionText, writeAnswer } from "./session-text.ts";

/** What a tool hands back: text for the model and the structured object of its output schema. */
export interface ToolOutput {
  text: string;
  structured: Record<string, unknown>;
}

/** Characters of a preview or prompt line in the index format (~22 tokens). */
export const indexLineChars = 90;

/** A session title as the text formats show it after its line: ` "title"` (60 characters at most), or nothing. */
export const quoted = (title: string | null) => (title ? ` "${oneLine(title, 60)}"` : "");
/** A session or result that may be held only in the team archive (search/reading/hydrate.ts ResultPlace). */
type Placed = Parameters<typeof resumeCommandOf>[0] & { here?: boolean };

/** The resume command of a session this machine holds; null for one only the team archive holds (pushed elsewhere). */
const resumeOf = (session: Placed): string | null => (session.here === false ? null : resumeCommandOf(session));

/** The `resume:` line of the full text format; a session without one says why. */
const resumeLine = (session: Placed) =>
  `   resume: ${resumeOf(session) ?? (session.here === false ? "none (held only in the team archive)" : `none ${promptOnlyMarker}`)}`;

/** The id a result is read by: its session id, or `archive:<archive id>` for one only the team archive holds. */
const resultId = (result: SessionResult | TurnResult): string =>
  result.here || !result.archived ? result.sessionId : `archive:${result.archived.archiveId}`;
/** The `more: offset=N` line of a page that has a next one. */
export const moreLine = (page: { nextOffset: number | undefined }) =>
  page.nextOffset === undefined ? [] : [`more: offset=${page.nextOffset}`];

/** What {@link searchPageLines} writes for one page of search results (local or from the team archive). */
export interface SearchPageText {
  query: string;
  isSessions: boolean;
  /** How it was searched, e.g. `hybrid search over 244 sessions`. */
  scope: string;
  /** 0-based rank of the first result in the whole ranking. */
  offset: number;
  nextOffset: number | undefined;
  /** The line above an answer with no confident match (render/search.ts noConfidentMatchLine); undefined otherwise. */
  noConfidentMatch: string | undefined;
  /** Lines after the header (e.g. the dates the query was understood to name). */
  notes: string[];
  /** The text of each result, by its 1-based rank. */
  results: Array<(rank: number) => AnswerLine[]>;
  /** The hint after a page with results: what to call next, at level 1 and level 2. */
  next: { sessions: string; turns: string };
}

/**
 * The text of a page of search results: the header (or the line saying nothing matched), the notes, the line saying no
 * result is a confident match, each result, the `more:` line and the next call.
 */
export function searchPageLines(page: SearchPageText): AnswerLine[] {
  const what = page.isSessions ? "sessions" : "turns";
  const query = oneLine(page.query, 100);
  const count = page.results.length;
  const lines: AnswerLine[] =
    count === 0
      ? [`No ${what} match "${query}" (${page.scope}${page.offset > 0 ? `, offset ${page.offset}` : ""}).`]
      : [
          `${page.isSessions ? "Sessions" : "Turns"} ${page.offset + 1}-${page.offset + count} for "${query}" (${page.scope}):`,
        ];
  lines.push(...page.notes);
  if (count > 0 && page.noConfidentMatch) lines.push(page.noConfidentMatch);
  for (const [i, text] of page.results.entries()) lines.push(...text(page.offset + i + 1));
  lines.push(...moreLine(page));
  if (count > 0) lines.push(page.isSessions ? page.next.sessions : page.next.turns);
  return lines;
}

/**
 * The answer every MCP tool hands back: the lines written by session-text.ts writeAnswer (session text fenced with a
 * new nonce, control characters shown as `\xNN`) and the structured object with control characters neutralized.
 */
export function finishOutput(lines: readonly AnswerLine[], structured: Record<string, unknown>): ToolOutput {
  return { text: writeAnswer(lines), structured: neutralizeStrings(structured) };
}

/**
 * A session's abstract in a tool's structured answer (issue 41): its first part that is not a title, on one line, in
 * the index format (null without one); every part as the CLI's JSON has it (render/format.ts `abstractJson`) in the
 * full format.
 */
const abstractItem = (abstract: SessionSummary["abstract"], format: ResultFormat) =>
  format === "index" ? indexAbstract(abstract) : abstractJson(abstract);

/** The text line of a session's abstract (render/format.ts `abstractLine`): one index line, or 400 characters in full. */
const abstractTextLine = (abstract: SessionSummary["abstract"], format: ResultFormat): string | null =>
  abstractLine(abstract, format === "index" ? indexLineChars : 400);

/** The abstract line under a session's head line, as session text (fenced: it is what an agent wrote), or nothing. */
const abstractLines = (abstract: SessionSummary["abstract"], format: ResultFormat): AnswerLine[] => {
  const line = abstractTextLine(abstract, format);
  return line ? [sessionText(line)] : [];
};

/** A result's preview as session text, after its abstract line when it has one: one fenced block for both. */
function previewWithAbstract(abstract: SessionSummary["abstract"], preview: string, format: ResultFormat): AnswerLine {
  const line = abstractTextLine(abstract, format);
  return sessionText(line ? `${line}\n${preview}` : preview);
}

/** Fields every session item has, whatever the format. */
function sessionCore(session: Placed & Omit<SessionSummary, "rowid" | "location">, format: ResultFormat) {
  return {
    session_id: session.sessionId,
    source: session.source,
    project: session.project,
    title: session.title,
    abstract: abstractItem(session.abstract, format),
    ended_at: isoTime(session.endedAt),
    turns: session.turns,
    resume_command: resumeOf(session),
    prompt_only: session.promptOnly,
  };
}

/** The full-format fields of a session (what `recall sessions --json` prints). */
function sessionDetail(session: Omit<SessionSummary, "rowid" | "location">) {
  return {
    project_path: session.projectPath,
    git_branch: session.gitBranch,
    started_at: isoTime(session.startedAt),
    files: session.files,
    is_subagent: session.isSubagent,
    parent_session_id: session.parentSessionId,
    source_status: session.sourceStatus,
    last_seen_at: isoTime(session.lastSeenAt),
  };
}

/** A session item of schemas.ts: the core fields, and every field of `recall sessions --json` in `full`. */
export function sessionItemOf(session: Placed & Omit<SessionSummary, "rowid" | "location">, format: ResultFormat) {
  return format === "index"
    ? sessionCore(session, format)
    : { ...sessionCore(session, format), ...sessionDetail(session) };
}

/** Each leg's normalized score and the raw evidence behind the confidence (full format). */
const evidenceOf = (result: SessionResult | TurnResult) => ({
  keyword_score: roundScore(result.keywordScore) ?? null,
  vector_score: roundScore(result.vectorScore) ?? null,
  ...evidenceJson(result),
});

function sessionResultItem(result: SessionResult, format: ResultFormat) {
  const index = {
    ...sessionCore(result, format),
    score: roundScore(result.score),
    ...confidenceJson(result),
    best_turn: Math.abs(result.bestTurn),
    branch: result.bestTurn < 0 ? "rewound" : "main",
    preview: oneLine(result.preview.text, indexLineChars),
    ...placeJson(result),
  };
  if (format === "index") return index;
  return { ...index, preview: result.preview.text, ...sessionDetail(result), ...evidenceOf(result) };
}

/**
 * The prompt of a level-2 result in the full format: whole up to the CLI JSON's {@link fieldCharLimit} characters,
 * else cut with a marker counting the whole prompt and naming the read_turns call that reads it (issue 37: a 50 MB
 * prompt was printed whole). Example: `…[cut 49,998,055 characters; full text: read_turns session=4a4a… from=1]`.
 */
const fullPrompt = (result: TurnResult) =>
  cutField(
    result.prompt,
    fieldCharLimit,
    `read_turns session=${result.sessionId} from=${Math.abs(result.turn)}${result.turn < 0 ? " rewound=true" : ""}`,
    result.promptChars,
  );

function turnResultItem(result: TurnResult, format: ResultFormat) {
  const index = {
    session_id: result.sessionId,
    turn: Math.abs(result.turn),
    branch: result.turn < 0 ? "rewound" : "main",
    timestamp: isoTime(result.timestamp),
    project: result.project,
    title: result.title,
    prompt: oneLine(result.prompt, indexLineChars),
    score: roundScore(result.score),
    ...confidenceJson(result),
    resume_command: resumeOf(result),
    ...placeJson(result),
  };
  if (format === "index") return { ...index, preview: oneLine(result.responseExcerpt.text, indexLineChars) };
  return {
    ...index,
    prompt: fullPrompt(result),
    response_excerpt: result.responseExcerpt.text,
    source: result.source,
    project_path: result.projectPath,
    total_turns: result.totalTurns,
    tools: result.tools,
    files: result.files,
    ...evidenceOf(result),
    source_status: result.sourceStatus,
    last_seen_at: isoTime(result.lastSeenAt),
    prompt_only: result.promptOnly,
  };
}

function sessionResultText(result: SessionResult, rank: number, format: ResultFormat): AnswerLine[] {
  const turn =
    result.bestTurn < 0 ? `rewound turn ${turnLabel(result.bestTurn)}` : `turn ${result.bestTurn || 1}/${result.turns}`;
  const head = `${rank}. ${result.confidence.toFixed(2)}${result.confident ? "" : " weak"} ${resultId(result)} ${localDate(result.endedAt)} ${projectLabel(result.project)}${quoted(result.title)} ${turn}${sessionMarkers(result)}`;
  if (format === "index")
    return [head, previewWithAbstract(result.abstract, oneLine(result.preview.text, indexLineChars), format)];
  const files =
    result.files.length > 0
      ? [
          `   files: ${result.files.slice(0, 8).join(", ")}${result.files.length > 8 ? ` (+${result.files.length - 8} more)` : ""}`,
        ]
      : [];
  return [
    head,
    `   ${result.source} ${projectLabel(result.projectPath)}${result.gitBranch ? ` branch ${result.gitBranch}` : ""}, ${localMinute(result.startedAt)} to ${localMinute(result.endedAt)}${result.isSubagent ? ", sub-agent" : ""}`,
    previewWithAbstract(result.abstract, oneLine(result.preview.text, 400), format),
    ...files,
    resumeLine(result),
  ];
}

/**
 * A matching turn's session text as one fenced block: the prompt's lines after `> `, then the reply's excerpt.
 * Shared with the team archive's answer (archive-format.ts).
 */
export const turnExcerpt = (prompt: string, excerpt: string): AnswerLine =>
  sessionText(`${prompt.replace(/^/gm, "> ")}\n${excerpt}`);

function turnResultText(result: TurnResult, rank: number, format: ResultFormat): AnswerLine[] {
  const head = `${rank}. ${result.confidence.toFixed(2)}${result.confident ? "" : " weak"} ${resultId(result)}:${turnLabel(result.turn)} ${localMinute(result.timestamp)} ${projectLabel(result.project)}${sessionMarkers(result)}`;
  if (format === "index")
    return [
      head,
      turnExcerpt(oneLine(result.prompt, indexLineChars), oneLine(result.responseExcerpt.text, indexLineChars)),
    ];
  return [
    `${head}${quoted(result.title)} (${result.turn < 0 ? "a rewound turn: a branch the user rewound past" : `turn ${result.turn} of ${result.totalTurns}`})`,
    turnExcerpt(fullPrompt(result), oneLine(result.responseExcerpt.text, 400)),
    ...(result.tools.length > 0 ? [`   tools: ${result.tools.join(", ")}`] : []),
    ...(result.files.length > 0 ? [`   files: ${result.files.join(", ")}`] : []),
    resumeLine(result),
  ];
}

/** The `search` tool's answer (levels 1 and 2). */
export function searchOutput(response: SearchResponse, format: ResultFormat): ToolOutput {
  const isSessions = response.level === "session";
  const dates = datesUnderstoodLine(response.dates);
  const lines = searchPageLines({
    query: response.query,
    isSessions,
    scope: `${response.mode} search over ${countOf(response.searched.sessions, "session")}${whereSearched(response)}`,
    offset: response.offset,
    nextOffset: response.nextOffset,
    noConfidentMatch: noConfidentMatch(response),
    notes: dates ? [dates] : [],
    results: response.results.map(
      (result) => (rank: number) =>
        isSessions
          ? sessionResultText(result as SessionResult, rank, format)
          : turnResultText(result as TurnResult, rank, format),
    ),
    next: response.archive?.alone
      ? {
          sessions:
            "next: search archive=true depth=2 session=ARCHIVE_ID, or read_turns archive=true session=ARCHIVE_ID from=TURN",
          turns: "next: read_turns archive=true session=ARCHIVE_ID from=TURN",
        }
      : {
          sessions: "next: search depth=2 session=ID, or read_turns session=ID from=TURN",
          turns: "next: read_turns session=ID from=TURN",
        },
  });
  return finishOutput(lines, {
    query: response.query,
    depth: isSessions ? 1 : 2,
    mode: response.mode,
    confident: response.confident,
    searched: { sessions: response.searched.sessions, projects: response.searched.projects },
    results: isSessions
      ? (response.results as SessionResult[]).map((result) => sessionResultItem(result, format))
      : (response.results as TurnResult[]).map((result) => turnResultItem(result, format)),
    offset: response.offset,
    next_offset: response.nextOffset ?? null,
    notices: response.notices,
    dates: datesJson(response.dates),
    ...(response.archive ? { archive: response.archive.url } : {}),
  });
}

function sessionLine(session: SessionSummary, rank: number): string {
  return `${rank}. ${session.sessionId} ${localDate(session.endedAt)} ${projectLabel(session.project)} ${countOf(session.turns, "turn")}${quoted(session.title)}${session.isSubagent ? " (sub-agent)" : ""}${sessionMarkers(session)}`;
}

/** The `list_sessions` tool's answer. */
export function sessionsOutput(page: Page<SessionSummary>, format: ResultFormat): ToolOutput {
  const lines: AnswerLine[] =
    page.items.length === 0 ? [`No sessions match${page.offset > 0 ? ` at offset ${page.offset}` : ""}.`] : [];
  page.items.forEach((session, i) => {
    lines.push(sessionLine(session, page.offset + i + 1), ...abstractLines(session.abstract, format));
    if (format === "full")
      lines.push(
        `   ${session.source} ${projectLabel(session.projectPath)}, ${localMinute(session.startedAt)} to ${localMinute(session.endedAt)}`,
        resumeLine(session),
      );
  });
  lines.push(...moreLine(page));
  const results = page.items.map((session) => sessionItemOf(session, format));
  return finishOutput(lines, { results, offset: page.offset, next_offset: page.nextOffset ?? null });
}

/** The `recent` tool's answer; `project` is the project the list was limited to, if any. */
export function recentOutput(page: Page<RecentSession>, project: string | undefined, format: ResultFormat): ToolOutput {
  const where = project ? ` in ${project}` : "";
  const lines: AnswerLine[] = page.items.length === 0 ? [`No sessions${where}.`] : [`Latest sessions${where}:`];
  const promptChars = format === "index" ? indexLineChars : 1000;
  page.items.forEach((session, i) => {
    lines.push(
      sessionLine(session, page.offset + i + 1),
      ...abstractLines(session.abstract, format),
      `   first: ${oneLine(session.firstPrompt, promptChars)}`,
    );
    if (session.turns > 1) lines.push(`   last (turn ${session.turns}): ${oneLine(session.lastPrompt, promptChars)}`);
    if (format === "full") lines.push(resumeLine(session));
  });
  lines.push(...moreLine(page));
  const results = page.items.map((session) => ({
    ...sessionCore(session, format),
    first_prompt: format === "index" ? oneLine(session.firstPrompt, indexLineChars) : session.firstPrompt,
    last_prompt: format === "index" ? oneLine(session.lastPrompt, indexLineChars) : session.lastPrompt,
    ...(format === "full" ? sessionDetail(session) : {}),
  }));
  return finishOutput(lines, {
    project: project ?? null,
    results,
    offset: page.offset,
    next_offset: page.nextOffset ?? null,
  });
}

function timelineItem(entry: TimelineEntry, format: ResultFormat) {
  const index = {
    session_id: entry.sessionId,
    turn: entry.turn,
    timestamp: isoTime(entry.timestamp),
    project: entry.project,
    title: entry.title,
    prompt: format === "index" ? oneLine(entry.prompt, indexLineChars) : entry.prompt,
    ...(entry.isAnchor ? { anchor: true } : {}),
  };
  return format === "index"
    ? index
    : { ...index, source: entry.source, project_path: entry.projectPath, total_turns: entry.totalTurns };
}

/** The `timeline` tool's answer: the turns before, the anchor (marked `▶`), the turns after, oldest first. */
export function timelineOutput(timeline: Timeline, format: ResultFormat): ToolOutput {
  const { anchor } = timeline;
  const line = (entry: TimelineEntry) =>
    `${entry.isAnchor ? "▶" : "-"} ${localMinute(entry.timestamp)} ${entry.sessionId}:${entry.turn} ${projectLabel(entry.project)}${format === "full" ? quoted(entry.title) : ""} > ${oneLine(entry.prompt, format === "index" ? indexLineChars : 1000)}`;
  const lines = [
    `Turns around ${anchor.session ? `${anchor.session.sessionId}:${anchor.turn}, ` : ""}${localMinute(anchor.at)}, oldest first:`,
  ];
  lines.push(...timeline.before.map(line));
  if (!anchor.session) lines.push(`▶ ${localMinute(anchor.at)} (anchor)`);
  lines.push(...timeline.after.map(line));
  if (timeline.before.length + timeline.after.length === 0) lines.push("No turns recorded around then.");
  const entries = [...timeline.before, ...timeline.after];
  return finishOutput(lines, {
    anchor_time: isoTime(anchor.at),
    results: entries.map((entry) => timelineItem(entry, format)),
  });
}

/**
 * The `summarize_session` tool's answer (issue 41): the session's line, then its summary (or, without one, its
 * abstract's first part) as session text, and a note when there is no summary. `made` is true when this call made it.
 */
export function summaryOutput(
  session: SessionSummary,
  summary: string | null,
  made: boolean,
  note: string | null,
): ToolOutput {
  const lines: AnswerLine[] = [sessionLine(session, 1)];
  if (summary) lines.push(sessionText(`summary${made ? " (made now)" : ""}: ${summary}`));
  else lines.push(...abstractLines(session.abstract, "full"));
  if (note) lines.push(note);
  return finishOutput(lines, { session: sessionItemOf(session, "full"), summary, made, note });
}
