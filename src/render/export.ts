/**
 * Rendering of `recall export` (issue 9): the archive written out, one session at a time.
 * `jsonl`: one line per session, the same object as `recall show --json` for all its turns (`version`, `session`
 * with `source_status` and `last_seen_at`, `from`, `to`, `from_archive`, `turns` with `tool_calls` and outputs).
 * `markdown`: a document a person can read: a heading per session with its facts, then each turn's prompt,
 * response and tool calls (outputs in fenced blocks, first 40 lines); headings inside a prompt or answer are moved
 * below the turn headings (issue 26: an answer's `## Summary` stood at the level of the session headings). Both
 * formats hold a session's rewound turns after its conversation (issue 26), marked as such. Also the output sink:
 * stdout, or a file written 0600 under a temporary name and renamed into place when complete.
 */
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { ExportedSession } from "../search/index.ts";
import { turnLabel, type ToolCall, type Turn } from "../parsers/index.ts";
import { neutralizeControls } from "./escapes.ts";
import {
  abstractSourceLabels,
  countOf,
  localDate,
  localMinute,
  isoTime,
  projectLabel,
  promptOnlyMarker,
} from "./format.ts";
import { archiveNote, renderShowJson, showViewOf, type ShowView } from "./show.ts";
import { writeOut } from "./terminal.ts";

/** Lines of a tool output shown in the markdown export (the JSONL export has every line). */
export const markdownOutputLines = 40;

/** The whole session: its conversation, then its rewound turns (r1, r2, …). */
function viewOf(exported: ExportedSession): ShowView {
  const turnCount = exported.read.result.session.turnCount;
  const view = showViewOf(exported, turnCount === 0 ? 0 : 1, turnCount);
  const rewound = showViewOf(exported, 1, view.rewoundTurns, "rewound");
  return { ...view, turns: [...view.turns, ...rewound.turns] };
}

/** Deepest heading level a session's own text gets in the markdown export: below the session (##) and turn (###) headings. */
const textHeadingShift = 3;

/**
 * `text` with its ATX headings moved {@link textHeadingShift} levels down (at most to `######`), outside fenced code
 * blocks, so a turn's own headings nest under the turn's.
 * Examples: `## Summary` → `##### Summary`; `#### x` → `###### x`; a `# not a heading` inside a ``` block is kept.
 */
export function nestHeadings(text: string): string {
  let fence: string | null = null;
  return text
    .split("\n")
    .map((line) => {
      const opener = /^\s{0,3}(`{3,}|~{3,})/.exec(line)?.[1];
      if (opener && (fence === null || (opener[0] === fence[0] && opener.length >= fence.length))) {
        fence = fence === null ? opener : null;
        return line;
      }
      if (fence !== null) return line;
      const heading = /^(\s{0,3})(#{1,6})(\s|$)/.exec(line);
      if (!heading) return line;
      const level = Math.min(6, heading[2]!.length + textHeadingShift);
      return `${heading[1]}${"#".repeat(level)}${line.slice(heading[1]!.length + heading[2]!.length)}`;
    })
    .join("\n");
}

/** One JSONL line (with its newline) for a session. */
export function renderExportJsonLine(exported: ExportedSession): string {
  return `${renderShowJson(viewOf(exported))}\n`;
}

/** Control characters shown as `\xNN` (escapes.ts), so an exported document cannot drive the terminal that displays it. */
const neutralize = neutralizeControls;

/** A fence longer than any backtick run in `text` (CommonMark), so the block cannot be closed from inside. */
function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  return "`".repeat(longest + 1);
}

function markdownCall(call: ToolCall): string[] {
  const counts =
    call.linesAdded !== undefined || call.linesRemoved !== undefined
      ? ` (+${call.linesAdded ?? 0} −${call.linesRemoved ?? 0})`
      : "";
  const input = call.input ? ` ${neutralize(call.input).replace(/\s+/g, " ")}` : "";
  const lines = [`- **${call.name}**${input}${counts}${call.isError ? " (error)" : ""}`];
  if (call.output === undefined || call.output.trim() === "") return lines;
  const outputLines = neutralize(call.output.replace(/\s+$/, "")).split("\n");
  const shown = outputLines.slice(0, markdownOutputLines).join("\n");
  const fence = fenceFor(shown);
  lines.push("", `  ${fence}`, ...shown.split("\n").map((line) => `  ${line}`), `  ${fence}`);
  if (outputLines.length > markdownOutputLines)
    lines.push(`  … ${outputLines.length - markdownOutputLines} more lines (the JSONL export has them all)`);
  lines.push("");
  return lines;
}

function markdownTurn(turn: Turn): string[] {
  const label = turn.number < 0 ? `${turnLabel(turn.number)} (rewound: a branch the user rewound past)` : turn.number;
  const lines = [
    "",
    `### Turn ${label} · ${localMinute(turn.timestamp)}`,
    "",
    ...nestHeadings(neutralize(turn.prompt))
      .split("\n")
      .map((line) => `> ${line}`),
  ];
  if (turn.response) lines.push("", nestHeadings(neutralize(turn.response)));
  if (turn.toolCalls.length > 0) lines.push("", ...turn.toolCalls.flatMap(markdownCall));
  return lines;
}

/** The markdown section (with its trailing blank line) of one session. */
export function renderExportMarkdown(exported: ExportedSession): string {
  const view = viewOf(exported);
  const { session } = view;
  const facts = [
    `- session: \`${session.id}\` (${session.source}${session.isSubagent ? `, sub-agent of \`${session.parentSessionId ?? "?"}\`` : ""})`,
    `- project: ${neutralize(projectLabel(session.projectPath))}${session.gitBranch ? ` · branch ${neutralize(session.gitBranch)}` : ""}`,
    `- ${localMinute(session.startedAt)} → ${localMinute(session.endedAt)} · ${countOf(session.turnCount, "turn")}`,
    view.sourceStatus === "deleted"
      ? `- source deleted (last seen ${localDate(view.lastSeenAt)})`
      : `- source: ${neutralize(session.location)}`,
  ];
  const note = archiveNote(view);
  if (note) facts.push(`- ${note}`);
  for (const part of view.abstract)
    facts.push(`- ${abstractSourceLabels[part.source]}: ${neutralize(part.text).replace(/\s+/g, " ")}`);
  if (view.promptOnly)
    facts.push(`- ${promptOnlyMarker}: the prompts typed in this session, from the tool's prompt history`);
  const lines = [
    `## ${neutralize(session.title ?? "(untitled session)").replace(/\s+/g, " ")}`,
    "",
    ...facts,
    ...view.turns.flatMap(markdownTurn),
    "",
    "",
  ];
  return lines.join("\n");
}

/** The title block of a markdown export. */
export function renderExportMarkdownHeader(sessionCount: number, now: number = Date.now()): string {
  return `# recall export\n\n${countOf(sessionCount, "session")}, exported ${isoTime(now)}. Secrets are redacted as [REDACTED:<kind>].\n\n`;
}

/** Where export text goes; `finish()` makes a file output visible, `abort()` removes the unfinished file. */
export interface ExportSink {
  write(text: string): void;
  finish(): void;
  abort(): void;
}

/**
 * stdout when `path` is undefined, else `path`, written as `<path>.tmp-<pid>` (created 0600 whatever the umask)
 * and renamed over `path` by `finish()`, so a reader never sees half an export and the file is private.
 * @throws the fs error when the temporary file cannot be created (a missing folder, no permission)
 */
export function openExportSink(path: string | undefined): ExportSink {
  if (path === undefined) return { write: writeOut, finish() {}, abort() {} };
  const temp = join(dirname(path), `.${basename(path)}.tmp-${process.pid}`);
  const fd = openSync(temp, "wx", 0o600);
  fchmodSync(fd, 0o600);
  let open = true;
  const close = () => {
    if (open) closeSync(fd);
    open = false;
  };
  return {
    write(text) {
      const bytes = Buffer.from(text);
      for (let offset = 0; offset < bytes.length; ) offset += writeSync(fd, bytes, offset, bytes.length - offset);
    },
    finish() {
      fsyncSync(fd);
      close();
      renameSync(temp, path);
    },
    abort() {
      close();
      try {
        unlinkSync(temp);
      } catch {
        // already gone
      }
    },
  };
}
