/**
 * Output of the team archive's `show --archive` and `archive push` (issue 30), text and JSON: an archived session with
 * who pushed it and from where (`by alice@laptop, team alpha`); a push's summary. Every text from a session is
 * neutralized (control characters) as the local renderers do. Searches of the archive are local search's answers,
 * rendered by search.ts (issue 39).
 */
import type { ArchiveSession } from "../team-archive/show.ts";
import { jsonLine, neutralizeControls } from "./escapes.ts";
import { abstractJson, abstractSourceLabels, countOf, isoTime, projectLabel, sessionIdentityJson } from "./format.ts";
import type { ArchiveSessionSummary } from "../team-archive/sessions.ts";
import type { PushSummary } from "../team-archive/push.ts";

const day = (ms: number): string => (ms > 0 ? new Date(ms).toISOString().slice(0, 10) : "????-??-??");
const oneLine = (text: string): string => neutralizeControls(text).replace(/\s+/g, " ").trim();

/**
 * An archived session as text: a header with its origin; what was written about it (issue 41), each abstract part
 * whole under its label (`compaction summary (2026-03-01):`); then each turn's prompt, answer and tool-call lines.
 */
export function renderArchiveSessionText({ session, turns }: ArchiveSession): string {
  const lines = [
    `${oneLine(session.title ?? "(no title)")}`,
    `${oneLine(projectLabel(session.project))} · ${session.source} · ${day(session.startedAt)} → ${day(session.endedAt)} · ${countOf(session.turns, "turn")} · by ${session.pushedBy}@${oneLine(session.machine)} (${oneLine(session.osUser)}), team ${session.team} · archive id ${session.archiveId}`,
    `session ${session.sessionId}`,
  ];
  for (const part of session.abstract)
    lines.push(
      "",
      `${abstractSourceLabels[part.source]}${part.at > 0 ? ` (${day(part.at)})` : ""}:`,
      neutralizeControls(part.text),
    );
  for (const turn of turns) {
    lines.push(
      "",
      `── turn ${turn.number} · ${turn.timestamp > 0 ? new Date(turn.timestamp).toISOString() : "no time"} ──`,
    );
    lines.push(`> ${neutralizeControls(turn.prompt)}`);
    for (const call of turn.tools)
      lines.push(
        `  [${neutralizeControls(call.name)}] ${oneLine(call.input ?? "").slice(0, 160)}${call.isError ? " (error)" : ""}`,
      );
    if (turn.response) lines.push(neutralizeControls(turn.response));
  }
  return `${lines.join("\n")}\n`;
}

/** The origin fields of an archived session, as JSON. */
const originJson = (result: ArchiveSessionSummary) => ({
  archive_id: result.archiveId,
  team: result.team,
  pushed_by: result.pushedBy,
  machine: result.machine,
  os_user: result.osUser,
});

/**
 * `recall show --archive --json`: the session with its origin, its abstract whole (format.ts `abstractJson`, issue 41)
 * and the turns asked for.
 */
export function renderArchiveSessionJson({ session, turns }: ArchiveSession): string {
  return `${jsonLine({
    version: 1,
    ...sessionIdentityJson(session),
    abstract: abstractJson(session.abstract),
    git_branch: session.gitBranch,
    started_at: isoTime(session.startedAt),
    ended_at: isoTime(session.endedAt),
    turn_count: session.turns,
    ...originJson(session),
    turns: turns.map((turn) => ({
      turn: turn.number,
      timestamp: isoTime(turn.timestamp),
      prompt: turn.prompt,
      response: turn.response,
      tools: turn.tools,
      files: turn.files,
    })),
  })}\n`;
}

/**
 * `recall archive push --json`: one object, snake_case as every JSON answer (README "JSON output"), counts of
 * sessions, turns, documents, vectors and merged batches, and the wall time in ms.
 */
export function renderPushJson(summary: PushSummary): string {
  return `${jsonLine({
    version: 1,
    archive: summary.archive,
    team: summary.team,
    machine: summary.machine,
    sessions: summary.sessions,
    sent: summary.sent,
    unchanged: summary.unchanged,
    turns: summary.turns,
    documents: summary.documents,
    vectors: summary.vectors,
    vector_model: summary.vectorModel,
    compacted_batches: summary.compactedBatches,
    elapsed_ms: Math.round(summary.elapsedMs),
  })}\n`;
}
