/**
 * Rendering of `recall show` (level 3): a header (project, title, "Showing turns 5-9 of 23"),
 * then per turn its date, the prompt, the assistant text and each tool call compactly
 * (`[Bash] docker network ls` + the first lines of output, `[Edit] src/x.ts (+12 −3)`, `[Read] path`).
 * `--json` gives the same content with full outputs. A session read from recall's archive (its source is gone or
 * unreadable) says so in the header and in `from_archive` (issue 9).
 */
import type { Session, ToolCall, Turn } from "../parsers/index.ts";
import { resumeCommandOf } from "../search/hydrate.ts";
import type { ExportedSession } from "../search/read-session.ts";
import { jsonLine, neutralizeStrings } from "./escapes.ts";
import {
  localDate,
  localMinute,
  isoTime,
  noPromptNote,
  noTurnsNote,
  promptOnlyMarker,
  type Palette,
} from "./format.ts";

/** What `show` renders: the session and the chosen inclusive turn range (1-based). */
export interface ShowView {
  session: Session;
  turns: Turn[];
  from: number;
  to: number;
  /** Shell command that resumes the session; null for a prompt-only session. */
  resumeCommand: string | null;
  /** True for a session known only from a prompt-history file: the turns hold the typed prompts, no answers. */
  promptOnly: boolean;
  /** True when the turns come from recall's archive (tool outputs cut to 40 lines / 4 KB), not the source. */
  fromArchive: boolean;
  /** Why the archive was read (`source deleted`, `source unreadable: …`), or undefined. */
  archiveReason: string | undefined;
  /** Whether the source still holds the session, and when recall last saw it (epoch ms). */
  sourceStatus: "present" | "deleted";
  lastSeenAt: number;
}

/**
 * The view of turns `from`..`to` (1-based, inclusive; 0..0 for a session without turns) of an indexed session read at
 * level 3: the session titled as listings show it (its first prompt when its tool gave no title), the resume command
 * (null for a prompt-only session) and the archive facts. Shared by `recall show` and `recall export`.
 */
export function showViewOf({ summary, read }: ExportedSession, from: number, to: number): ShowView {
  const { session, turns } = read.result;
  return {
    session: { ...session, title: session.title ?? summary.title },
    turns: turns.filter((turn) => turn.number >= from && turn.number <= to),
    from,
    to,
    resumeCommand: resumeCommandOf(summary),
    promptOnly: summary.promptOnly,
    fromArchive: read.fromArchive,
    archiveReason: read.archiveReason,
    sourceStatus: summary.sourceStatus,
    lastSeenAt: summary.lastSeenAt,
  };
}

/** The header line of a session shown from the archive, or "" when it was read from its source. */
export function archiveNote(
  view: Pick<ShowView, "fromArchive" | "archiveReason" | "sourceStatus" | "lastSeenAt">,
): string {
  if (!view.fromArchive) return "";
  const why =
    view.sourceStatus === "deleted"
      ? `source deleted, last seen ${localDate(view.lastSeenAt)}`
      : (view.archiveReason ?? "source unreadable");
  return `shown from recall's archive (${why}); tool outputs are cut to their first 40 lines / 4 KB`;
}

/** Lines of tool output shown under a call in text mode. */
export const outputPreviewLines = 6;

function toolLine(call: ToolCall, palette: Palette): string {
  const counts =
    call.linesAdded !== undefined || call.linesRemoved !== undefined
      ? ` (+${call.linesAdded ?? 0} −${call.linesRemoved ?? 0})`
      : "";
  const error = call.isError ? palette.red(" (error)") : "";
  return `  ${palette.magenta(`[${call.name}]`)} ${call.input}${counts}${error}`;
}

function outputLines(call: ToolCall, palette: Palette): string[] {
  if (!call.output || ["Read", "Edit", "Write", "MultiEdit"].includes(call.name)) return [];
  const lines = call.output.replace(/\s+$/, "").split("\n");
  const shown = lines
    .slice(0, outputPreviewLines)
    .map((line) => palette.dim(`      ${line.length > 200 ? `${line.slice(0, 199)}…` : line}`));
  if (lines.length > outputPreviewLines)
    shown.push(palette.dim(`      … (${lines.length - outputPreviewLines} more lines)`));
  return shown;
}

/** Text rendering of a {@link ShowView}; control characters from the session are shown as `\xNN` (escapes.ts). */
export function renderShowText(raw: ShowView, palette: Palette): string {
  const view = neutralizeStrings(raw);
  const { session } = view;
  const out = [
    palette.bold(`${session.title ?? "(untitled session)"}`),
    `project: ${session.projectPath || "?"}  source: ${session.source}  session: ${session.id}${session.gitBranch ? `  branch: ${session.gitBranch}` : ""}`,
    session.parentSessionId ? `sub-agent of: ${session.parentSessionId}` : "",
    archiveNote(view) ? palette.yellow(archiveNote(view)) : "",
    view.promptOnly
      ? palette.yellow(`${promptOnlyMarker}: the prompts typed in this session, from the tool's prompt history`)
      : "",
    session.turnCount === 0 ? noTurnsNote : `Showing turns ${view.from}-${view.to} of ${session.turnCount}`,
    palette.dim(`resume: ${view.resumeCommand ?? `none ${promptOnlyMarker}`}`),
  ].filter(Boolean);
  for (const turn of view.turns) {
    out.push("", palette.bold(palette.cyan(`── Turn ${turn.number} · ${localMinute(turn.timestamp)} ──`)));
    if (turn.prompt === "") out.push(palette.dim(noPromptNote));
    else out.push(...turn.prompt.split("\n").map((line) => `${palette.green(">")} ${line}`));
    if (turn.response) out.push("", turn.response);
    if (turn.toolCalls.length > 0) out.push("");
    for (const call of turn.toolCalls) out.push(toolLine(call, palette), ...outputLines(call, palette));
  }
  return `${out.join("\n")}\n`;
}

/** JSON rendering of a {@link ShowView} (one line). */
export function renderShowJson(view: ShowView): string {
  const { session } = view;
  return jsonLine({
    version: 1,
    session: {
      session_id: session.id,
      source: session.source,
      project: session.projectName,
      project_path: session.projectPath,
      title: session.title,
      git_branch: session.gitBranch,
      started_at: isoTime(session.startedAt),
      ended_at: isoTime(session.endedAt),
      turns: session.turnCount,
      parent_session_id: session.parentSessionId,
      is_subagent: session.isSubagent,
      location: session.location,
      resume_command: view.resumeCommand,
      source_status: view.sourceStatus,
      last_seen_at: isoTime(view.lastSeenAt),
      prompt_only: view.promptOnly,
    },
    from_archive: view.fromArchive,
    from: view.from,
    to: view.to,
    turns: view.turns.map((turn) => ({
      turn: turn.number,
      timestamp: isoTime(turn.timestamp),
      prompt: turn.prompt,
      response: turn.response,
      files: turn.files,
      tool_calls: turn.toolCalls.map((call) => ({
        name: call.name,
        input: call.input,
        file_path: call.filePath ?? null,
        is_error: call.isError,
        lines_added: call.linesAdded ?? null,
        lines_removed: call.linesRemoved ?? null,
        output: call.output ?? null,
      })),
    })),
  });
}
