/**
 * Rendering of `recall forget` (issue 9): what was removed, and how to undo the tombstones.
 * `--json`: {"version": 1, "dry_run", "forgotten": [{"session_id", "source", "project", "project_path", "title",
 * "ended_at", "turns"}], "turns", "documents", "chunks", "vector_rows"} (counts of removed rows); with `--undo`:
 * {"version": 1, "unforgotten": [{"session_id", "source", "parent_session_id"}]} (`parent_session_id` null but for
 * a sub-agent session, issue 26).
 */
import type { ForgetReport } from "../index/index.ts";
import type { SourceId } from "../parsers/index.ts";
import { countOf, localDate, isoTime, oneLine, projectLabel, sessionIdentityJson } from "./format.ts";

/** `recall forget --json`. */
export function renderForgetJson(report: ForgetReport, options: { dryRun?: boolean } = {}): string {
  return JSON.stringify({
    version: 1,
    dry_run: options.dryRun ?? false,
    forgotten: report.sessions.map((s) => ({
      ...sessionIdentityJson(s),
      ended_at: isoTime(s.endedAt),
      turns: s.turns,
    })),
    turns: report.turns,
    documents: report.documents,
    chunks: report.chunks,
    vector_rows: report.vectorRows,
  });
}

/** One line per session, the ids padded to the longest (UUIDs, `agent-…`, `ses_…` differ in length). */
function sessionLines(sessions: ForgetReport["sessions"]): string[] {
  const idWidth = Math.max(...sessions.map((s) => s.sessionId.length));
  return sessions.map((s) =>
    `  ${s.sessionId.padEnd(idWidth)}  ${s.source.padEnd(11)}  ${oneLine(projectLabel(s.project), 24).padEnd(24)}  ${localDate(s.endedAt)}  ${oneLine(s.title ?? "", 60)}`.trimEnd(),
  );
}

/** `recall forget`: one line per removed session (or, with `dryRun`, per session it would remove), then the totals. */
export function renderForgetText(report: ForgetReport, options: { dryRun?: boolean } = {}): string {
  if (report.sessions.length === 0) return "No session matches; nothing was forgotten.\n";
  const n = report.sessions.length;
  if (options.dryRun) {
    const rows = sessionLines(report.sessions);
    return `${[`Would forget ${countOf(n, "session")} (${countOf(report.turns, "turn")}); nothing was changed:`, ...rows].join("\n")}\n`;
  }
  const lines = [
    `Forgot ${countOf(n, "session")}: ${countOf(report.turns, "turn")}, ${countOf(report.documents, "document")}, ${countOf(report.chunks, "chunk")} and ${countOf(report.vectorRows, "vector row")} removed from the index.`,
    ...sessionLines(report.sessions),
    "The next `recall index` will not add them again. To let it: recall forget --undo <session>",
  ];
  return `${lines.join("\n")}\n`;
}

/** A tombstone `recall forget --undo` removed (index/store/forget.ts `UnforgottenSession`). */
type Unforgotten = { source: SourceId; sessionId: string; parentSessionId: string | null };

/** `recall forget --undo --json`. */
export function renderUnforgetJson(removed: Unforgotten[]): string {
  return JSON.stringify({
    version: 1,
    unforgotten: removed.map((entry) => ({
      session_id: entry.sessionId,
      source: entry.source,
      parent_session_id: entry.parentSessionId,
    })),
  });
}

/** `recall forget --undo`: how many tombstones went, then one line each (a sub-agent session names its parent). */
export function renderUnforgetText(removed: Unforgotten[]): string {
  if (removed.length === 0) return "No forgotten session matches; nothing changed.\n";
  const [is, it] = removed.length === 1 ? ["is", "it"] : ["are", "them"];
  const lines = [
    `${countOf(removed.length, "session")} ${is} no longer forgotten; the next \`recall index\` adds ${it} again if the source still holds ${it}:`,
    ...removed.map(
      (entry) =>
        `  ${entry.sessionId}  ${entry.source}${entry.parentSessionId ? `  (sub-agent of ${entry.parentSessionId})` : ""}`,
    ),
  ];
  return `${lines.join("\n")}\n`;
}
