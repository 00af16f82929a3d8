/**
 * The session page of `recall ui` (`/session/<id>`, level 3): every turn re-read from the source (from recall's
 * archive when the source is gone, said at the top), each with an anchor (`#turn-12`); prompts and answers as Markdown
 * with highlighted code; each tool call one line (as `read_turns` and `recall show` write it), expandable to its input
 * and output; Edit and Write calls as diffs (when the parser kept what changed: `ToolCall.change`); sub-agent sessions
 * linked from the call that started them; the resume command with a copy button. Texts are redacted (readSessionTurns
 * with redaction on) and escaped (html.ts, markdown.ts).
 */
import type { Database } from "bun:sqlite";
import { structuredPatch } from "diff";
import type { ToolCall, Turn } from "../parsers/types.ts";
import { archiveNote, showViewOf } from "../render/show.ts";
import { findSession, readSessionTurns, resumeCommandOf, type SessionSummary } from "../search/index.ts";
import { dateTimeText } from "./dates.ts";
import { abstractSourceLabels, countOf } from "../render/format.ts";
import { html, type SafeHtml } from "./html.ts";
import { pageHtml } from "./layout.ts";
import { codeHtml, markdownHtml } from "./markdown.ts";

/** Characters of a tool output shown expanded; the rest is cut with a note (`recall show --json` has it whole). */
export const outputChars = 20_000;

/** A session read for its page: the summary, its turns (main ones, in order) and where they came from. */
export interface SessionPageModel {
  summary: SessionSummary;
  title: string;
  turns: Turn[];
  resumeCommand: string | null;
  /** Why the turns come from recall's archive, or undefined when read from the source. */
  archive: string | undefined;
}

/**
 * Read a session for its page.
 * @throws SessionLookupError when no session has that id (or prefix)
 */
export function sessionPageModel(db: Database, id: string): SessionPageModel {
  const summary = findSession(db, id);
  const read = readSessionTurns(db, summary, { redact: true });
  const main = read.result.turns.filter((turn) => turn.number > 0).sort((a, b) => a.number - b.number);
  const view = showViewOf({ summary, read }, 1, Math.max(1, main.length));
  return {
    summary,
    title: view.session.title || summary.title || "(no prompt)",
    turns: main,
    resumeCommand: resumeCommandOf(summary),
    archive: view.fromArchive ? archiveNote(view) : undefined,
  };
}

/** The one-line form of a tool call: `[Edit] src/app.ts (+3 −1)`, with `(error)`. */
function toolSummary(call: ToolCall): SafeHtml {
  const counts =
    call.linesAdded !== undefined || call.linesRemoved !== undefined
      ? ` (+${call.linesAdded ?? 0} −${call.linesRemoved ?? 0})`
      : "";
  return html`<span class="tool-name">[${call.name}]</span> <span class="tool-input">${call.input}</span>${counts}${call.isError ? html` <span class="error">(error)</span>` : ""}`;
}

/** Unified-diff lines of one replacement, as HTML rows classed add / del / hunk. */
function diffRows(path: string, before: string, after: string): SafeHtml {
  // An edit replaces a snippet, not a file: ending both with a newline keeps jsdiff's "\ No newline at end of file"
  // (true of the snippet, not of the file) out of the diff.
  const line = (text: string) => (text === "" || text.endsWith("\n") ? text : `${text}\n`);
  const patch = structuredPatch(path, path, line(before), line(after), "", "", { context: 3 });
  return html`${patch.hunks.map(
    (hunk) =>
      html`<span class="hunk">@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@</span>\n${hunk.lines.map(
        (line) =>
          html`<span class="${line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : "ctx"}">${line}</span>\n`,
      )}`,
  )}`;
}

/** What an Edit or Write changed, as a diff (a new file's content as all-added lines). */
function changeHtml(call: ToolCall): SafeHtml {
  const change = call.change;
  if (!change) return html``;
  let rows: SafeHtml;
  if (change.kind === "edit" && change.edits)
    rows = html`${change.edits.map((edit) => diffRows(change.path, edit.before, edit.after))}`;
  else if (change.kind === "write" && change.content !== undefined) rows = diffRows(change.path, "", change.content);
  else if (change.patch !== undefined)
    rows = html`${change.patch
      .split("\n")
      .map(
        (line) =>
          html`<span class="${line.startsWith("+") ? "add" : line.startsWith("-") ? "del" : line.startsWith("@@") ? "hunk" : "ctx"}">${line}</span>\n`,
      )}`;
  else return html``;
  return html`<div class="diff"><div class="diff-path">${change.path}</div><pre>${rows}</pre></div>`;
}

/** One tool call: its line, expandable to its diff, input and output; a sub-agent call links to that session. */
function toolHtml(call: ToolCall, base: string): SafeHtml {
  const output = call.output ?? "";
  const cut = output.length > outputChars;
  const agent = call.subagentSessionId
    ? html` <a class="subagent" href="${base}/session/${encodeURIComponent(call.subagentSessionId)}">sub-agent session →</a>`
    : "";
  return html`<li class="tool${call.isError ? " failed" : ""}"><details><summary>${toolSummary(call)}</summary>
    ${changeHtml(call)}
    ${call.input ? html`<h4>Input</h4>${codeHtml(call.input, call.name === "Bash" ? "bash" : undefined)}` : ""}
    ${output ? html`<h4>Output</h4>${codeHtml(cut ? output.slice(0, outputChars) : output)}${cut ? html`<p class="cut">… ${(output.length - outputChars).toLocaleString("en-US")} more characters (recall show --json prints them)</p>` : ""}` : ""}
  </details>${agent}</li>`;
}

/**
 * One turn as a section with its anchor (also sent alone when the session grows while the page is open); links start
 * with `base` (layout.ts).
 */
export function turnHtml(turn: Turn, base: string): SafeHtml {
  return html`<section class="turn" id="turn-${turn.number}" data-turn="${turn.number}">
  <h3><a class="anchor" href="#turn-${turn.number}">Turn ${turn.number}</a> <time>${dateTimeText(turn.timestamp)}</time></h3>
  <div class="prompt markdown">${markdownHtml(turn.prompt)}</div>
  ${turn.response ? html`<div class="answer markdown">${markdownHtml(turn.response)}</div>` : ""}
  ${turn.toolCalls.length > 0 ? html`<ul class="tools">${turn.toolCalls.map((call) => toolHtml(call, base))}</ul>` : ""}
</section>`;
}

/** The page as HTML; its links start with `base` (layout.ts). */
export function sessionPageHtml(model: SessionPageModel, base: string): string {
  const { summary } = model;
  const parent = summary.parentSessionId
    ? html` · sub-agent of <a href="${base}/session/${encodeURIComponent(summary.parentSessionId)}">${summary.parentSessionId.slice(0, 12)}</a>`
    : "";
  const body = html`<article class="session" data-session="${summary.sessionId}" data-turns="${model.turns.length}">
  <header class="session-head">
    <h1>${model.title}</h1>
    <div class="meta"><span class="agent">${summary.source}</span> · <span class="project" title="${summary.projectPath}">${summary.projectPath || summary.project}</span>${summary.gitBranch ? html` · <span class="branch">${summary.gitBranch}</span>` : ""} · ${dateTimeText(summary.startedAt)} – ${dateTimeText(summary.endedAt)} · <span class="turn-count">${countOf(model.turns.length, "turn")}</span>${parent}</div>
    ${summary.abstract.map((part) => html`<p class="abstract"><span class="label">${abstractSourceLabels[part.source]}:</span> ${part.text}</p>`)}
    ${model.archive ? html`<p class="archived">Source deleted, kept by recall: ${model.archive}</p>` : ""}
    ${
      model.resumeCommand
        ? html`<div class="resume"><code id="resume-command">${model.resumeCommand}</code> <button type="button" class="copy" data-copy="resume-command">Copy</button></div>`
        : html`<p class="resume none">This session cannot be resumed by its tool.</p>`
    }
    <nav class="turn-index" aria-label="Turns">${model.turns.map((turn) => html`<a href="#turn-${turn.number}">${turn.number}</a> `)}</nav>
  </header>
  <div class="turns-body">${model.turns.map((turn) => turnHtml(turn, base))}</div>
</article>`;
  return pageHtml({ title: model.title, kind: "session", base, body });
}
