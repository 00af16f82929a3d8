/**
 * The MCP tools' listings and turns from the team archive (issue 30; `archive: true` on list_sessions and read_turns),
 * in the same two formats and the same output schemas as the local answers (format.ts, turns-text.ts); a search of
 * the archive is local search's answer, rendered by format.ts (issue 39). Every answer starts by naming the archive;
 * every session names who pushed it and from where (`by alice@laptop, team alpha`) and carries its archive id, which
 * read_turns takes. Items add archive_id, team, pushed_by, machine and os_user; `resume_command` is null (the session
 * was pushed from another machine or user).
 */
import type { Turn } from "../parsers/index.ts";
import {
  archiveOriginText,
  countOf,
  localDate,
  localMinute,
  noTurnsNote,
  oneLine,
  projectLabel,
  turnSpan,
} from "../render/format.ts";
import type { TurnRange } from "../search/index.ts";
import type { ArchiveListing } from "../team-archive/listing.ts";
import type { ArchiveSessionSummary } from "../team-archive/sessions.ts";
import type { ArchiveTurn } from "../team-archive/show.ts";
import { finishOutput, moreLine, quoted, sessionItemOf, type ToolOutput } from "./format.ts";
import type { ResultFormat } from "./schemas.ts";
import { pageTurns } from "./turns-text.ts";

/** An archived session item: a local session item (format.ts sessionItemOf), held only there, with its origin. */
function sessionItem(session: ArchiveSessionSummary, format: ResultFormat) {
  return {
    ...sessionItemOf({ ...session, here: false }, format),
    archive_id: session.archiveId,
    team: session.team,
    pushed_by: session.pushedBy,
    machine: session.machine,
    os_user: session.osUser,
  };
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
      `${listing.offset + i + 1}. archive:${session.archiveId} ${localDate(session.endedAt)} ${projectLabel(session.project)} ${countOf(session.turns, "turn")}${quoted(session.title)}${session.isSubagent ? " (sub-agent)" : ""} ${archiveOriginText(session)}`,
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
    `pushed ${archiveOriginText(session)} (os user ${session.osUser}); tool outputs are not archived`,
  ];
  const page = pageTurns(range, header, budgetChars, fromChar);
  return finishOutput(page.lines, {
    session: sessionItem(session, "full"),
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
