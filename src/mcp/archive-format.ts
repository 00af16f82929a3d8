/**
 * The MCP tools' answers from the team archive (issue 30; `archive: true` on search, list_sessions, read_turns), in
 * the same two formats and the same output schemas as the local answers (format.ts, turns-text.ts). Every answer
 * starts by naming the archive; every result names who pushed it and from where (`by alice@laptop, team alpha`) and
 * carries its archive id, which read_turns takes. Items add archive_id, team, pushed_by, machine and os_user;
 * `resume_command` is null (the session was pushed from another machine or user).
 */
import type { Turn } from "../parsers/index.ts";
import { archiveOriginText } from "../render/archive-listing.ts";
import { noConfidentMatch } from "../render/search.ts";
import {
  countOf,
  isoTime,
  localDate,
  localMinute,
  noTurnsNote,
  oneLine,
  projectLabel,
  roundScore,
  turnSpan,
} from "../render/format.ts";
import type { TurnRange } from "../search/index.ts";
import type { ArchiveListing } from "../team-archive/listing.ts";
import type { ArchiveSearchResponse, ArchiveSessionResult, ArchiveTurnResult } from "../team-archive/search.ts";
import type { ArchiveSessionSummary } from "../team-archive/sessions.ts";
import type { ArchiveTurn } from "../team-archive/show.ts";
import {
  finishOutput,
  indexLineChars,
  moreLine,
  quoted,
  searchPageLines,
  turnExcerpt,
  type ToolOutput,
} from "./format.ts";
import type { ResultFormat } from "./schemas.ts";
import { type AnswerLine, sessionText } from "./session-text.ts";
import { pageTurns } from "./turns-text.ts";

/** A page of archive search results, cut by the caller from a longer ranking. */
export interface ArchiveSearchPage {
  response: ArchiveSearchResponse;
  /** 0-based rank of `response.results[0]` in the whole ranking. */
  offset: number;
  /** Where the next page starts; undefined on the last. */
  nextOffset: number | undefined;
}

const origin = (session: ArchiveSessionSummary) =>
  archiveOriginText({ ...session, machine: oneLine(session.machine, 60) });

/** The fields every archived session item has (sessionItem of schemas.ts, with the origin). */
function sessionCore(session: ArchiveSessionSummary) {
  return {
    session_id: session.sessionId,
    archive_id: session.archiveId,
    source: session.source,
    project: session.project,
    title: session.title,
    ended_at: isoTime(session.endedAt),
    turns: session.turns,
    resume_command: null,
    prompt_only: false,
    team: session.team,
    pushed_by: session.pushedBy,
    machine: session.machine,
    os_user: session.osUser,
  };
}

/** The full-format fields the archive holds beyond the core. */
function sessionDetail(session: ArchiveSessionSummary) {
  return {
    project_path: session.projectPath,
    git_branch: session.gitBranch,
    started_at: isoTime(session.startedAt),
    is_subagent: session.isSubagent,
  };
}

const sessionItem = (session: ArchiveSessionSummary, format: ResultFormat) =>
  format === "index" ? sessionCore(session) : { ...sessionCore(session), ...sessionDetail(session) };

const confidence = (result: ArchiveSessionResult | ArchiveTurnResult) => ({
  score: roundScore(result.score),
  confidence: roundScore(result.confidence),
  confident: result.confident,
});

function sessionResultItem(result: ArchiveSessionResult, format: ResultFormat) {
  const index = {
    ...sessionCore(result),
    ...confidence(result),
    best_turn: result.bestTurn,
    branch: "main",
    preview: oneLine(result.preview.text, indexLineChars),
  };
  if (format === "index") return index;
  return { ...index, preview: result.preview.text, ...sessionDetail(result), matched_terms: result.matchedTerms };
}

function turnResultItem(result: ArchiveTurnResult, format: ResultFormat) {
  const index = {
    session_id: result.sessionId,
    archive_id: result.archiveId,
    turn: result.turn,
    branch: "main",
    timestamp: isoTime(result.timestamp),
    project: result.project,
    title: result.title,
    prompt: oneLine(result.prompt, indexLineChars),
    ...confidence(result),
    resume_command: null,
    team: result.team,
    pushed_by: result.pushedBy,
    machine: result.machine,
    os_user: result.osUser,
  };
  if (format === "index") return { ...index, preview: oneLine(result.responseExcerpt.text, indexLineChars) };
  return {
    ...index,
    prompt: result.prompt,
    response_excerpt: result.responseExcerpt.text,
    source: result.source,
    project_path: result.projectPath,
    total_turns: result.turns,
    matched_terms: result.matchedTerms,
  };
}

function sessionResultText(result: ArchiveSessionResult, rank: number, format: ResultFormat): AnswerLine[] {
  const head = `${rank}. ${result.confidence.toFixed(2)}${result.confident ? "" : " weak"} archive:${result.archiveId} ${localDate(result.endedAt)} ${projectLabel(result.project)}${quoted(result.title)} turn ${result.bestTurn || 1}/${result.turns} ${origin(result)}`;
  if (format === "index") return [head, sessionText(oneLine(result.preview.text, indexLineChars))];
  return [
    head,
    `   ${result.source} ${projectLabel(result.projectPath)}${result.gitBranch ? ` branch ${result.gitBranch}` : ""}, ${localMinute(result.startedAt)} to ${localMinute(result.endedAt)}${result.isSubagent ? ", sub-agent" : ""}; session ${result.sessionId}`,
    sessionText(oneLine(result.preview.text, 400)),
  ];
}

function turnResultText(result: ArchiveTurnResult, rank: number, format: ResultFormat): AnswerLine[] {
  const head = `${rank}. ${result.confidence.toFixed(2)}${result.confident ? "" : " weak"} archive:${result.archiveId}:${result.turn} ${localMinute(result.timestamp)} ${projectLabel(result.project)} ${origin(result)}`;
  if (format === "index")
    return [
      head,
      turnExcerpt(oneLine(result.prompt, indexLineChars), oneLine(result.responseExcerpt.text, indexLineChars)),
    ];
  return [
    `${head}${quoted(result.title)} (turn ${result.turn} of ${result.turns}; session ${result.sessionId})`,
    turnExcerpt(result.prompt, oneLine(result.responseExcerpt.text, 400)),
  ];
}

/** The `search` tool's answer from the team archive (levels 1 and 2): the local answer's shape, with the origin. */
export function archiveSearchOutput(page: ArchiveSearchPage, format: ResultFormat): ToolOutput {
  const { response, offset, nextOffset } = page;
  const isSessions = response.level === "session";
  const lines = searchPageLines({
    query: response.query,
    isSessions,
    scope: `${response.mode} search of the team archive ${response.archive}`,
    offset,
    nextOffset,
    noConfidentMatch: noConfidentMatch(response),
    notes: [],
    results: response.results.map(
      (result) => (rank: number) =>
        isSessions
          ? sessionResultText(result as ArchiveSessionResult, rank, format)
          : turnResultText(result as ArchiveTurnResult, rank, format),
    ),
    next: {
      sessions:
        "next: search archive=true depth=2 session=ARCHIVE_ID, or read_turns archive=true session=ARCHIVE_ID from=TURN",
      turns: "next: read_turns archive=true session=ARCHIVE_ID from=TURN",
    },
  });
  return finishOutput(lines, {
    query: response.query,
    depth: isSessions ? 1 : 2,
    mode: response.mode,
    confident: response.confident,
    results: isSessions
      ? (response.results as ArchiveSessionResult[]).map((result) => sessionResultItem(result, format))
      : (response.results as ArchiveTurnResult[]).map((result) => turnResultItem(result, format)),
    offset,
    next_offset: nextOffset ?? null,
    notices: response.notices,
    dates: [],
    archive: response.archive,
  });
}

/** The `list_sessions` tool's answer from the team archive: newest first, each with its origin and archive id. */
export function archiveSessionsOutput(listing: ArchiveListing, format: ResultFormat): ToolOutput {
  const lines = [
    listing.items.length === 0
      ? `No sessions in the team archive ${listing.archive} match${listing.offset > 0 ? ` at offset ${listing.offset}` : ""}.`
      : `Sessions in the team archive ${listing.archive}, newest first:`,
  ];
  listing.items.forEach((session, i) => {
    lines.push(
      `${listing.offset + i + 1}. archive:${session.archiveId} ${localDate(session.endedAt)} ${projectLabel(session.project)} ${countOf(session.turns, "turn")}${quoted(session.title)}${session.isSubagent ? " (sub-agent)" : ""} ${origin(session)}`,
    );
    if (format === "full")
      lines.push(
        `   ${session.source} ${projectLabel(session.projectPath)}, ${localMinute(session.startedAt)} to ${localMinute(session.endedAt)}; session ${session.sessionId}`,
      );
  });
  lines.push(...moreLine(listing));
  if (listing.items.length > 0) lines.push("next: read_turns archive=true session=ARCHIVE_ID");
  return finishOutput(lines, {
    results: listing.items.map((session) => sessionItem(session, format)),
    offset: listing.offset,
    next_offset: listing.nextOffset ?? null,
    archive: listing.archive,
  });
}

/** An archived turn as the level-3 renderer takes it (tool calls are their stored summaries: no outputs). */
export function turnOfArchive(session: ArchiveSessionSummary, turn: ArchiveTurn): Turn {
  return {
    sessionId: session.sessionId,
    number: turn.number,
    timestamp: turn.timestamp,
    prompt: turn.prompt,
    response: turn.response,
    toolCalls: turn.tools,
    files: turn.files,
    isSubagent: session.isSubagent,
  };
}

/** What the archive's read_turns renders. */
export interface ArchiveTurnsView {
  session: ArchiveSessionSummary;
  /** The turns asked for, from {@link turnOfArchive} through search/reading/turn-range.ts selectTurnRange. */
  range: TurnRange;
  budgetChars: number;
  fromChar: number;
  /** The archive read (connection.ts `display`). */
  archive: string;
}

/**
 * The `read_turns` answer from the team archive: a header naming the session, the turns shown of how many, who pushed
 * it and from where, then the turns within `budgetChars` characters and the marker to continue (turns-text.ts
 * pageTurns: the same paging and budget as the local answer).
 * @throws UsageError when `fromChar` is not inside the first turn's text
 */
export function archiveReadTurnsOutput(view: ArchiveTurnsView): ToolOutput {
  const { session, range, budgetChars, fromChar, archive } = view;
  const startNote = fromChar > 0 ? `, turn ${range.from} from character ${fromChar}` : "";
  const header = (to: number) => [
    `${session.sessionId} · ${session.source} · ${projectLabel(session.projectPath)}${session.title ? ` · "${oneLine(session.title, 100)}"` : ""}`,
    `${range.total === 0 ? noTurnsNote : `${turnSpan(range.from, to)} of ${range.total}${startNote}`} · team archive, archive id ${session.archiveId}`,
    `pushed ${origin(session)} (os user ${session.osUser}); tool outputs are not archived`,
  ];
  const page = pageTurns(range, header, budgetChars, fromChar);
  return finishOutput(page.lines, {
    session: { ...sessionCore(session), ...sessionDetail(session) },
    branch: "main",
    rewound_turns: 0,
    from: range.from,
    to: page.lastShown,
    total_turns: range.total,
    from_archive: true,
    turns: page.shown,
    truncated: page.truncated,
    archive,
  });
}
