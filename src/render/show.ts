/**
 * Rendering of `recall show` (level 3): a header (project, title, "Showing turns 5-9 of 23", the summary and
 * abstract, issue 41: each part's first 600 characters in text, whole in `--json` as `session.abstract`),
 * then per turn its date, the prompt, the assistant text and each tool call compactly
 * (`[Bash] docker network ls` + the first lines of output, `[Edit] src/x.ts (+12 −3)`, `[Read] path`,
 * `[Task] Explore the parser → agent-a1b2`: the sub-agent session it started).
 * `--json` gives the same content with full outputs. A session read from recall's archive (its source is gone or
 * unreadable) says so in the header and in `from_archive` (issue 9). Rewound turns (issue 26: on a branch the user
 * rewound past) are shown on request only (`branch: "rewound"`, turns r1, r2, …); the main view names how many there
 * are. In text, a prompt or answer longer than {@link textFieldChars} is cut with a note (`--json` prints it whole).
 */
import { turnLabel, type AbstractPart, type Session, type ToolCall, type Turn } from "../parsers/index.ts";
import { resumeCommandOf } from "../search/reading/hydrate.ts";
import type { ExportedSession } from "../search/reading/read-session.ts";
import type { TurnBranch } from "../search/reading/turn-range.ts";
import { jsonLine, neutralizeStrings } from "./escapes.ts";
import {
  abstractJson,
  abstractSourceLabels,
  localDate,
  localMinute,
  isoTime,
  noPromptNote,
  noTurnsNote,
  projectLabel,
  promptOnlyMarker,
  turnSpan,
  type Palette,
} from "./format.ts";

/** What `show` renders: the session and the chosen inclusive turn range (1-based, counted within `branch`). */
export interface ShowView {
  session: Session;
  turns: Turn[];
  from: number;
  to: number;
  branch: TurnBranch;
  /** Rewound turns the session holds (shown with `branch: "rewound"`). */
  rewoundTurns: number;
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
  /**
   * What was written about the session, whole (issue 41): the summary `recall summarize` made, then the abstract the
   * agent wrote as this read found it (the source, or recall's copy).
   */
  abstract: AbstractPart[];
}

/**
 * The view of turns `from`..`to` (1-based, inclusive; 0..0 for a session without turns) of an indexed session read at
 * level 3, among its main turns or its rewound ones (`rN` is turn -N): the session titled as listings show it (its
 * first prompt when its tool gave no title), the resume command (null for a prompt-only session, or one whose source
 * is gone) and the archive facts. Shared by `recall show` and `recall export`.
 */
export function showViewOf(
  { summary, read }: ExportedSession,
  from: number,
  to: number,
  branch: TurnBranch = "main",
): ShowView {
  const { session, turns } = read.result;
  const sign = branch === "rewound" ? -1 : 1;
  return {
    session: { ...session, title: session.title ?? summary.title },
    turns: turns
      .filter((turn) => sign * turn.number >= from && sign * turn.number <= to)
      .sort((a, b) => sign * a.number - sign * b.number),
    from,
    to,
    branch,
    rewoundTurns: turns.filter((turn) => turn.number < 0).length,
    resumeCommand: resumeCommandOf(summary),
    promptOnly: summary.promptOnly,
    fromArchive: read.fromArchive,
    archiveReason: read.archiveReason,
    sourceStatus: summary.sourceStatus,
    lastSeenAt: summary.lastSeenAt,
    abstract: [...summary.abstract.filter((part) => part.source === "summary"), ...(session.abstract ?? [])],
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

/**
 * Longest prompt or answer printed whole in text mode, in characters; longer ones are cut with a note (issue 26: a
 * 21 MB pasted turn printed whole, without a word). `--json` prints every field whole.
 */
export const textFieldChars = 20_000;

/** `text` whole, or its first {@link textFieldChars} characters and a line saying how much was left and where it is. */
function capField(text: string, palette: Palette): string {
  if (text.length <= textFieldChars) return text;
  return `${text.slice(0, textFieldChars)}\n${palette.yellow(`… ${(text.length - textFieldChars).toLocaleString("en-US")} more characters not shown (--json prints this turn whole)`)}`;
}

function toolLine(call: ToolCall, palette: Palette): string {
  const counts =
    call.linesAdded !== undefined || call.linesRemoved !== undefined
      ? ` (+${call.linesAdded ?? 0} −${call.linesRemoved ?? 0})`
      : "";
  const error = call.isError ? palette.red(" (error)") : "";
  const agent = call.subagentSessionId ? palette.dim(` → sub-agent ${call.subagentSessionId}`) : "";
  return `  ${palette.magenta(`[${call.name}]`)} ${call.input}${counts}${error}${agent}`;
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
    `project: ${projectLabel(session.projectPath)}  source: ${session.source}  session: ${session.id}${session.gitBranch ? `  branch: ${session.gitBranch}` : ""}`,
    session.parentSessionId ? `sub-agent of: ${session.parentSessionId}` : "",
    archiveNote(view) ? palette.yellow(archiveNote(view)) : "",
    view.promptOnly
      ? palette.yellow(`${promptOnlyMarker}: the prompts typed in this session, from the tool's prompt history`)
      : "",
    rangeLine(view),
    view.branch === "main" && view.rewoundTurns > 0
      ? palette.dim(
          `${view.rewoundTurns} rewound turn${view.rewoundTurns === 1 ? "" : "s"} not shown (branches the user rewound past): recall show ${session.id} --rewound`,
        )
      : "",
    palette.dim(`resume: ${view.resumeCommand ?? noResumeNote(view)}`),
    ...view.abstract.map(
      (part) => `${palette.dim(`${abstractSourceLabels[part.source]}:`)} ${abstractHead(part.text)}`,
    ),
  ].filter(Boolean);
  for (const turn of view.turns) {
    const label = turn.number < 0 ? `${turnLabel(turn.number)} (rewound)` : String(turn.number);
    out.push("", palette.bold(palette.cyan(`── Turn ${label} · ${localMinute(turn.timestamp)} ──`)));
    if (turn.prompt === "") out.push(palette.dim(noPromptNote));
    else
      out.push(
        ...capField(turn.prompt, palette)
          .split("\n")
          .map((line) => `${palette.green(">")} ${line}`),
      );
    if (turn.response) out.push("", capField(turn.response, palette));
    if (turn.toolCalls.length > 0) out.push("");
    for (const call of turn.toolCalls) out.push(toolLine(call, palette), ...outputLines(call, palette));
  }
  return `${out.join("\n")}\n`;
}

/** Characters of an abstract part the text header shows (a compaction summary runs to 10,000; `--json` has it whole). */
const abstractHeadChars = 600;

/** A part's text cut to {@link abstractHeadChars}, with a note naming `--json` when cut. */
const abstractHead = (text: string): string =>
  text.length <= abstractHeadChars
    ? text
    : `${text.slice(0, abstractHeadChars)}… (${(text.length - abstractHeadChars).toLocaleString("en-US")} more characters: --json has it whole)`;

/** `Showing turns 5-9 of 23`, `Showing turn 3 of 23`, `Showing rewound turn r1 of 2`, or the note of a session without turns. */
function rangeLine(view: ShowView): string {
  if (view.branch === "rewound") {
    if (view.rewoundTurns === 0) return "no rewound turns: nothing on a branch the user rewound past";
    return `Showing ${turnSpan(view.from, view.to, true)} of ${view.rewoundTurns} (branches the user rewound past)`;
  }
  return view.session.turnCount === 0
    ? noTurnsNote
    : `Showing ${turnSpan(view.from, view.to)} of ${view.session.turnCount}`;
}

/** Why a view has no resume command (a prompt-only session, or one whose source is deleted). */
export function noResumeNote(view: Pick<ShowView, "promptOnly" | "sourceStatus">): string {
  if (view.promptOnly) return `none ${promptOnlyMarker}`;
  return view.sourceStatus === "deleted" ? "none (the source is deleted: only recall's archive holds it)" : "none";
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
      abstract: abstractJson(view.abstract),
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
    branch: view.branch,
    rewound_turns: view.rewoundTurns,
    from: view.from,
    to: view.to,
    turns: view.turns.map((turn) => ({
      turn: Math.abs(turn.number),
      branch: turn.number < 0 ? "rewound" : "main",
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
        subagent_session_id: call.subagentSessionId ?? null,
        output: call.output ?? null,
      })),
    })),
  });
}
