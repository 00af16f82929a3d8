/**
 * Rendering of `recall show` (level 3): a header (project, title, "Showing turns 5-9 of 23"),
 * then per turn its date, the prompt, the assistant text and each tool call compactly
 * (`[Bash] docker network ls` + the first lines of output, `[Edit] src/x.ts (+12 −3)`, `[Read] path`).
 * `--json` gives the same content with full outputs.
 */
import type { Session, ToolCall, Turn } from "../parsers/index.ts";
import { isoMinute, isoTime, type Palette } from "./format.ts";

/** What `show` renders: the session and the chosen inclusive turn range (1-based). */
export interface ShowView {
  session: Session;
  turns: Turn[];
  from: number;
  to: number;
  resumeCommand: string;
}

/** Lines of tool output shown under a call in text mode. */
export const outputPreviewLines = 6;

function toolLine(call: ToolCall, palette: Palette): string {
  const counts = call.linesAdded !== undefined || call.linesRemoved !== undefined ? ` (+${call.linesAdded ?? 0} −${call.linesRemoved ?? 0})` : "";
  const error = call.isError ? palette.red(" (error)") : "";
  return `  ${palette.magenta(`[${call.name}]`)} ${call.input}${counts}${error}`;
}

function outputLines(call: ToolCall, palette: Palette): string[] {
  if (!call.output || ["Read", "Edit", "Write", "MultiEdit"].includes(call.name)) return [];
  const lines = call.output.replace(/\s+$/, "").split("\n");
  const shown = lines.slice(0, outputPreviewLines).map((line) => palette.dim(`      ${line.length > 200 ? `${line.slice(0, 199)}…` : line}`));
  if (lines.length > outputPreviewLines) shown.push(palette.dim(`      … (${lines.length - outputPreviewLines} more lines)`));
  return shown;
}

/** Text rendering of a {@link ShowView}. */
export function renderShowText(view: ShowView, palette: Palette): string {
  const { session } = view;
  const out = [
    palette.bold(`${session.title ?? "(untitled session)"}`),
    `project: ${session.projectPath || "?"}  source: ${session.source}  session: ${session.id}${session.gitBranch ? `  branch: ${session.gitBranch}` : ""}`,
    session.parentSessionId ? `sub-agent of: ${session.parentSessionId}` : "",
    `Showing turns ${view.from}-${view.to} of ${session.turnCount}`,
    palette.dim(`resume: ${view.resumeCommand}`),
  ].filter(Boolean);
  for (const turn of view.turns) {
    out.push("", palette.bold(palette.cyan(`── Turn ${turn.number} · ${isoMinute(turn.timestamp)} ──`)));
    out.push(...turn.prompt.split("\n").map((line) => `${palette.green(">")} ${line}`));
    if (turn.response) out.push("", turn.response);
    if (turn.toolCalls.length > 0) out.push("");
    for (const call of turn.toolCalls) out.push(toolLine(call, palette), ...outputLines(call, palette));
  }
  return `${out.join("\n")}\n`;
}

/** JSON rendering of a {@link ShowView} (one line). */
export function renderShowJson(view: ShowView): string {
  const { session } = view;
  return JSON.stringify({
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
    },
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
