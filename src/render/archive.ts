/**
 * Output of the team archive's commands (issue 30), text and JSON: in searches each result names who pushed it and
 * from where (`by alice@laptop, team alpha`) and the command that shows it from the archive; a push's summary. Every
 * text from a session is neutralized (control characters) as the local renderers do.
 */
import type { ArchiveSearchResponse, ArchiveSessionResult, ArchiveTurnResult } from "../team-archive/search.ts";
import type { ArchiveSession } from "../team-archive/show.ts";
import type { EverywhereResult } from "../team-archive/everywhere.ts";
import type { SessionResult, TurnResult } from "../search/reading/hydrate.ts";
import { jsonLine, neutralizeControls } from "./escapes.ts";
import { countOf, isoTime, projectLabel, sessionIdentityJson } from "./format.ts";
import { noConfidentMatch } from "./search.ts";
import type { ArchiveSessionSummary } from "../team-archive/sessions.ts";
import type { PushSummary } from "../team-archive/push.ts";

const day = (ms: number): string => (ms > 0 ? new Date(ms).toISOString().slice(0, 10) : "????-??-??");
const oneLine = (text: string): string => neutralizeControls(text).replace(/\s+/g, " ").trim();

/** The answer as text lines: a header, then each result with its origin and a `recall show --archive` command. */
export function renderArchiveSearchText(response: ArchiveSearchResponse): string {
  const lines: string[] = [];
  for (const notice of response.notices) lines.push(`note: ${notice}`);
  if (response.results.length === 0) {
    lines.push(`no match in the archive ${response.archive}`);
    return `${lines.join("\n")}\n`;
  }
  const weak = noConfidentMatch(response);
  if (weak) lines.push(weak);
  response.results.forEach((result, index) => {
    const origin = `by ${result.pushedBy}@${oneLine(result.machine)}, team ${result.team}`;
    if (response.level === "session") {
      const session = result as ArchiveSessionResult;
      lines.push(
        `${index + 1}. ${oneLine(session.title ?? session.preview.text).slice(0, 100) || "(no prompt)"}`,
        `   ${oneLine(projectLabel(session.project))} · ${session.source} · ${day(session.endedAt)} · ${countOf(session.turns, "turn")} · ${origin}${session.confident ? "" : " · weak"}`,
        `   ${oneLine(session.preview.text)}`,
        `   show: recall show --archive ${session.archiveId}`,
      );
    } else {
      const turn = result as ArchiveTurnResult;
      lines.push(
        `${index + 1}. ${oneLine(turn.title ?? "").slice(0, 80) || oneLine(turn.project)} — turn ${turn.turn} (${day(turn.timestamp)}, ${origin})${turn.confident ? "" : " · weak"}`,
        `   > ${oneLine(turn.prompt).slice(0, 300)}`,
        `   ${oneLine(turn.responseExcerpt.text)}`,
        `   show: recall show --archive ${turn.archiveId}:${Math.max(1, turn.turn - 1)}-${turn.turn + 1}`,
      );
    }
  });
  if (response.nextOffset !== undefined) lines.push(`more: add --offset ${response.nextOffset}`);
  return `${lines.join("\n")}\n`;
}

/** An archived session as text: a header with its origin, then each turn's prompt, answer and tool-call lines. */
export function renderArchiveSessionText({ session, turns }: ArchiveSession): string {
  const lines = [
    `${oneLine(session.title ?? "(no title)")}`,
    `${oneLine(projectLabel(session.project))} · ${session.source} · ${day(session.startedAt)} → ${day(session.endedAt)} · ${countOf(session.turns, "turn")} · by ${session.pushedBy}@${oneLine(session.machine)} (${oneLine(session.osUser)}), team ${session.team} · archive id ${session.archiveId}`,
    `session ${session.sessionId}`,
  ];
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

/**
 * A `--everywhere` answer as text: the merged ranking, each result saying where it is (`here`, `here, also in the
 * archive`, or who pushed it and from where) and the command that shows it from there.
 */
export function renderEverywhereText(
  level: "session" | "turn",
  results: readonly EverywhereResult[],
  notices: readonly string[],
): string {
  const lines = notices.map((notice) => `note: ${notice}`);
  if (results.length === 0) lines.push("no match here or in the archive");
  results.forEach((entry, index) => {
    const where =
      entry.where === "local"
        ? entry.alsoInArchive
          ? "here, also in the archive"
          : "here"
        : `by ${entry.result.pushedBy}@${oneLine(entry.result.machine)}, team ${entry.result.team}`;
    const weak = entry.result.confident ? "" : " · weak";
    if (level === "session") {
      const result = entry.result as SessionResult | ArchiveSessionResult;
      const show =
        entry.where === "local"
          ? `recall show ${result.sessionId}${result.bestTurn > 0 ? `:${result.bestTurn}` : ""}`
          : `recall show --archive ${(result as ArchiveSessionResult).archiveId}`;
      lines.push(
        `${index + 1}. ${oneLine(result.title ?? result.preview.text).slice(0, 100) || "(no prompt)"}`,
        `   ${oneLine(projectLabel(result.project))} · ${result.source} · ${day(result.endedAt || result.startedAt)} · ${countOf(result.turns, "turn")} · ${where}${weak}`,
        `   ${oneLine(result.preview.text)}`,
        `   show: ${show}`,
      );
    } else {
      const result = entry.result as TurnResult | ArchiveTurnResult;
      const show =
        entry.where === "local"
          ? `recall show ${result.sessionId}:${result.turn}`
          : `recall show --archive ${(result as ArchiveTurnResult).archiveId}:${result.turn}`;
      lines.push(
        `${index + 1}. ${oneLine(result.title ?? "").slice(0, 80) || oneLine(result.project)} — turn ${result.turn} (${day(result.timestamp)}, ${where})${weak}`,
        `   > ${oneLine(result.prompt).slice(0, 300)}`,
        `   ${oneLine(result.responseExcerpt.text)}`,
        `   show: ${show}`,
      );
    }
  });
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

/** The JSON object of one archive result (snake_case and ISO times, as the local search's JSON). */
export function archiveResultJson(level: "session" | "turn", result: ArchiveSessionResult | ArchiveTurnResult) {
  const scores = {
    score: Math.round(result.score * 1000) / 1000,
    confidence: Math.round(result.confidence * 1000) / 1000,
    confident: result.confident,
    matched_terms: result.matchedTerms,
  };
  const identity = sessionIdentityJson(result);
  if (level === "session") {
    const session = result as ArchiveSessionResult;
    return {
      ...identity,
      git_branch: session.gitBranch,
      started_at: isoTime(session.startedAt),
      ended_at: isoTime(session.endedAt),
      turns: session.turns,
      ...scores,
      preview: session.preview.text,
      best_turn: session.bestTurn,
      is_subagent: session.isSubagent,
      show_command: `recall show --archive ${session.archiveId}`,
      ...originJson(session),
    };
  }
  const turn = result as ArchiveTurnResult;
  return {
    ...identity,
    turn: turn.turn,
    total_turns: turn.turns,
    prompt: turn.prompt,
    response_excerpt: turn.responseExcerpt.text,
    timestamp: isoTime(turn.timestamp),
    ...scores,
    show_command: `recall show --archive ${turn.archiveId}:${turn.turn}`,
    ...originJson(turn),
  };
}

/** `recall search --archive --json`: one object, the local search JSON's envelope plus the archive. */
export function renderArchiveSearchJson(response: ArchiveSearchResponse): string {
  return `${jsonLine({
    version: 1,
    query: response.query,
    level: response.level,
    mode: response.mode,
    archive: response.archive,
    confident: response.confident,
    notices: response.notices,
    results: response.results.map((result) => archiveResultJson(response.level, result)),
    next_offset: response.nextOffset ?? null,
  })}\n`;
}

/** `recall show --archive --json`: the session with its origin and the turns asked for. */
export function renderArchiveSessionJson({ session, turns }: ArchiveSession): string {
  return `${jsonLine({
    version: 1,
    ...sessionIdentityJson(session),
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
