/**
 * Rendering of `recall sessions` and `recall status` (`status --json` also has "abstracts", the sessions with an
 * abstract, and "summaries": {"made", "without", "failed": {<reason>: n}, "backend"}, issue 41).
 * `sessions --json`: {"version": 1, "sessions": [{"session_id", "source", "project", "project_path", "title",
 * "abstract" (issue 41: format.ts `abstractJson`), "started_at", "ended_at", "turns", "parent_session_id", "git_branch", "is_subagent", "source_status", "last_seen_at",
 * "prompt_only"}]} (ISO-8601 times, full ids; `source_status` "present" | "deleted"; `prompt_only` true for a session
 * known only from a prompt-history file: its turns are the typed prompts, it has no resume command). `title` is the
 * tool's title or, without one, the first prompt shortened; then "empty_sessions_hidden": how many sessions without any
 * turn matched and were not listed (0 with `--include-empty`); "total": how many sessions the listing has in all,
 * "offset": where this page starts in it (0-based), "next_offset": where the next page starts, null on the last (issue
 * 26: a script pages through any number of sessions with `--offset`).
 */
import { noProjectLabel, type IndexStatus, type Page, type SessionSummary } from "../search/index.ts";
import { jsonLine, neutralizeStrings } from "./escapes.ts";
import { notKeptJson, notKeptLines, unreadHistoryJson, unreadHistoryLines } from "./not-kept.ts";
import type { UnreadHistory } from "../parsers/unread-history.ts";
import type { SummaryCounts } from "../summarize/index.ts";
import {
  abstractJson,
  abstractLine,
  countOf,
  formatBytes,
  localDate,
  localMinute,
  isoTime,
  oneLine,
  projectLabel,
  sessionIdentityJson,
  sessionMarkers,
  type Palette,
} from "./format.ts";

/** A page of `recall sessions`, and how many sessions the whole listing holds. */
export type SessionsPage = Page<SessionSummary> & { total: number };

/** `recall sessions --json`; `emptyHidden` sessions without turns matched and were left out. */
export function renderSessionsJson(page: SessionsPage, emptyHidden = 0): string {
  return jsonLine({
    version: 1,
    sessions: page.items.map((s) => ({
      ...sessionIdentityJson(s),
      abstract: abstractJson(s.abstract),
      started_at: isoTime(s.startedAt),
      ended_at: isoTime(s.endedAt),
      turns: s.turns,
      parent_session_id: s.parentSessionId,
      git_branch: s.gitBranch,
      is_subagent: s.isSubagent,
      source_status: s.sourceStatus,
      last_seen_at: isoTime(s.lastSeenAt),
      prompt_only: s.promptOnly,
    })),
    empty_sessions_hidden: emptyHidden,
    total: page.total,
    offset: page.offset,
    next_offset: page.nextOffset ?? null,
  });
}

/**
 * A listing row, and under it, when the session has an abstract (issue 41), a dim line with its first part
 * (format.ts `abstractLine`) indented by `indent` columns and cut to 110; the row alone otherwise. Used by this
 * listing and the team archive's (archive-listing.ts).
 */
export function withAbstractLine(
  row: string,
  abstract: SessionSummary["abstract"],
  indent: number,
  palette: Palette,
): string {
  const about = abstractLine(abstract, 200);
  return about ? `${row}\n${" ".repeat(indent)}${palette.dim(fitColumns(about, 110))}` : row;
}

/** Pads `text` with spaces to `width` terminal columns (CJK and emoji take two; Bun.stringWidth). */
export function padColumns(text: string, width: number): string {
  return text + " ".repeat(Math.max(0, width - Bun.stringWidth(text)));
}

/** Cuts `text` to at most `width` terminal columns, ending in "…" when cut. */
export function fitColumns(text: string, width: number): string {
  if (Bun.stringWidth(text) <= width) return text;
  let out = "";
  for (const char of text) {
    if (Bun.stringWidth(`${out}${char}…`) > width) break;
    out += char;
  }
  return `${out}…`;
}

/**
 * `recall sessions`: one line per session, newest first, in aligned columns, and under a session with an abstract (issue
 * 41) a dim line with its first part (ids of every source have their own
 * lengths: UUIDs, `ses_…`, Cursor composer ids), measured in terminal columns so CJK project names stay aligned;
 * control characters shown as `\xNN` (escapes.ts). A session without a project says "(no project)". When more
 * pages follow, a last line says which sessions these are of how many and gives `next`, the command for the next
 * page; when `emptyHidden` > 0, a last line says how many sessions without turns were left out and how to list them.
 */
export function renderSessionsText(page: SessionsPage, palette: Palette, emptyHidden = 0, next?: string): string {
  const hiddenNote =
    emptyHidden > 0
      ? palette.dim(
          `(${countOf(emptyHidden, "session")} without any turn not listed: --include-empty lists ${emptyHidden === 1 ? "it" : "them"})`,
        )
      : "";
  if (page.items.length === 0) {
    const past =
      page.total > 0 ? `No sessions past the first ${page.total.toLocaleString("en-US")}.` : "No sessions match.";
    return `${past}${hiddenNote ? `\n${hiddenNote}` : ""}\n`;
  }
  const sessions = neutralizeStrings(page.items);
  const idWidth = Math.max(...sessions.map((s) => Bun.stringWidth(s.sessionId)));
  const turnsWidth = Math.max(...sessions.map((s) => countOf(s.turns, "turn").length));
  const lines = sessions.map((s) => {
    const project = padColumns(fitColumns(oneLine(projectLabel(s.project), 200), 24), 24);
    const date = localDate(s.endedAt).padEnd(10);
    const line = `${palette.cyan(padColumns(s.sessionId, idWidth))}  ${s.source.padEnd(11)}  ${s.project ? project : palette.dim(project)}  ${date}  ${countOf(s.turns, "turn").padStart(turnsWidth)}  ${fitColumns(oneLine(s.title ?? "", 200), 70)}${s.isSubagent ? palette.dim(" (sub-agent)") : ""}${palette.dim(sessionMarkers(s))}`;
    return withAbstractLine(line, s.abstract, idWidth + 2, palette);
  });
  if (next) {
    const shown = `${(page.offset + 1).toLocaleString("en-US")}–${(page.offset + page.items.length).toLocaleString("en-US")}`;
    lines.push(palette.dim(`(sessions ${shown} of ${page.total.toLocaleString("en-US")}; next page: ${next})`));
  }
  if (hiddenNote) lines.push(hiddenNote);
  return `${lines.join("\n")}\n`;
}

/** Extra facts `status` shows beside the index counts. */
export interface StatusExtras {
  recallHome: string;
  stale: boolean;
  staleSources: string[];
  usingExamples: boolean;
  /** History at agents' default places that recall does not read (parsers/unread-history.ts). */
  unread: readonly UnreadHistory[];
  /** Abstracts and summaries (issue 41), and the summary backend in one line ("none" when none is configured). */
  summaries: SummaryCounts & { backend: string };
}

/** `recall status --json`. */
export function renderStatusJson(status: IndexStatus, extras: StatusExtras): string {
  return jsonLine({
    version: 1,
    recall_home: extras.recallHome,
    sessions: status.sessions,
    turns: status.turns,
    subagent_sessions: status.subagentSessions,
    deleted_sessions: status.deletedSessions,
    prompt_only_sessions: status.promptOnlySessions,
    forgotten_sessions: status.forgottenSessions,
    by_source: status.bySource,
    by_project: status.byProject.map((p) => ({
      project: p.project,
      project_path: p.projectPath,
      // set on a row of sessions without a project folder, one per source (issue 37); null on a project's row
      source: p.source ?? null,
      sessions: p.sessions,
      turns: p.turns,
    })),
    database_bytes: status.databaseBytes,
    last_indexed_at: status.lastIndexedAt ? isoTime(status.lastIndexedAt) : null,
    stale: extras.stale,
    stale_sources: extras.staleSources,
    chunks: {
      embedded: status.embeddedChunks,
      pending: status.pendingChunks,
      failed: status.failedChunks,
      skipped: status.skippedChunks,
      rejected: status.rejectedChunks,
      split: status.splitChunks,
    },
    reembed: status.reembed
      ? {
          done_chunks: status.reembed.doneChunks,
          total_chunks: status.reembed.totalChunks,
          unchunked_documents: status.reembed.unchunkedDocuments,
        }
      : null,
    using_examples: extras.usingExamples,
    abstracts: extras.summaries.withAbstract,
    summaries: {
      made: extras.summaries.summarized,
      without: extras.summaries.withoutSummary,
      failed: extras.summaries.failed,
      backend: extras.summaries.backend,
    },
    ...notKeptJson(status.notKept),
    ...unreadHistoryJson(extras.unread),
  });
}

/**
 * What a `status` project row shows after its counts: the project path, or for the sessions of one source without a
 * project folder the `recall sessions` filter that lists them (issue 37).
 * Example: `{source: "cursor", projectPath: ""}` → `cursor: recall sessions --source cursor --project "(no project)"`.
 */
function projectRowNote(row: IndexStatus["byProject"][number]): string {
  if (row.projectPath !== "" || row.source === undefined) return row.projectPath;
  return `${row.source}: recall sessions --source ${row.source} --project "${noProjectLabel}"`;
}

/**
 * The status line of abstracts and summaries (issue 41). Example: `abstracts: 40 sessions; summaries: 12 made, 117
 * sessions without (2 refused, 1 too large); backend: anthropic claude-… at https://api.anthropic.com/v1/messages`.
 */
function summariesLine(summaries: StatusExtras["summaries"]): string {
  const failed = Object.entries(summaries.failed)
    .map(([reason, count]) => `${count} ${reason.replace("_", " ")}`)
    .join(", ");
  return `abstracts: ${countOf(summaries.withAbstract, "session")}; summaries: ${summaries.summarized} made, ${countOf(summaries.withoutSummary, "session")} without${failed ? ` (last attempt failed: ${failed})` : ""}; summary backend: ${summaries.backend}`;
}

/** `recall status`. */
export function renderStatusText(raw: IndexStatus, extras: StatusExtras, palette: Palette): string {
  const status = neutralizeStrings(raw);
  const lines = [
    `index: ${extras.recallHome}${extras.usingExamples ? " (example history)" : ""}`,
    `sessions: ${status.sessions} (${status.subagentSessions} sub-agent, ${status.deletedSessions} source deleted and kept only here, ${status.promptOnlySessions} prompts only), turns: ${status.turns}, database: ${formatBytes(status.databaseBytes)}`,
    ...(status.forgottenSessions > 0
      ? [
          `forgotten on purpose: ${countOf(status.forgottenSessions, "session")} (\`recall forget --undo\` lets the next index add them again)`,
        ]
      : []),
    `last indexed: ${status.lastIndexedAt ? localMinute(status.lastIndexedAt) : "never"}`,
    `state: ${extras.stale ? palette.yellow(`stale (${extras.staleSources.join(", ")} changed; the next search re-indexes)`) : palette.green("up to date")}`,
    `embeddings: ${status.embeddedChunks} chunks embedded, ${status.pendingChunks} pending, ${status.failedChunks} failed, ${status.rejectedChunks} rejected, ${status.skippedChunks} with nothing to embed${
      status.splitChunks > 0
        ? `; ${status.splitChunks} longer than the model's window, each embedded as the mean of its parts (none cut)`
        : ""
    }${
      status.reembed
        ? `; re-embedding with another model: ${status.reembed.doneChunks} of ${status.reembed.totalChunks} chunks (run \`recall index\`)`
        : ""
    }`,
    summariesLine(extras.summaries),
    ...notKeptLines(raw.notKept).map((line, i) => (i === 0 ? palette.yellow(line) : line)),
    ...unreadHistoryLines(extras.unread).map((line) => palette.yellow(line)),
    "",
    "by source:",
    ...status.bySource.map(
      (s) =>
        `  ${s.source.padEnd(12)} ${countOf(s.sessions, "session").padStart(15)} ${countOf(s.turns, "turn").padStart(14)}`,
    ),
    "by project:",
    ...status.byProject
      .slice(0, 30)
      .map(
        (p) =>
          `  ${oneLine(projectLabel(p.project), 30).padEnd(30)} ${countOf(p.sessions, "session").padStart(15)} ${countOf(p.turns, "turn").padStart(14)}  ${palette.dim(projectRowNote(p))}`,
      ),
  ];
  if (status.byProject.length > 30) lines.push(palette.dim(`  … and ${status.byProject.length - 30} more projects`));
  return `${lines.join("\n")}\n`;
}
