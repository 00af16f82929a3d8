/**
 * The `read_turns` answer (level 3 for an agent, issue 10): whole prompts and replies with compact tool calls —
 * a Read is its path, a Write its path and line count, an Edit its path and +/− lines, a Bash its command,
 * error status and first output lines; never a raw JSON payload — cut at a character budget at a turn
 * boundary, with an explicit "truncated, N more characters, ask for turns X-Y" marker.
 */
import { UsageError } from "../errors.ts";
import type { ToolCall, Turn } from "../parsers/index.ts";
import { archiveNote } from "../render/show.ts";
import { localMinute, isoTime, noTurnsNote, oneLine, promptOnlyMarker } from "../render/format.ts";
import type { SessionRead, SessionSummary, TurnRange } from "../search/index.ts";
import { finishOutput, sessionItemOf, type ToolOutput } from "./format.ts";

/** Default character budget of one answer (~2,000 tokens at ~4 characters a token). */
export const defaultBudgetChars = 8000;
const budgetRange = [500, 200_000] as const;

/** Output lines shown under a tool call, and the longest line kept (characters). */
export const outputLinesShown = 5;
const outputLineChars = 160;

/** Tools whose output is the file itself or noise: only the call is shown. */
const quietTools = new Set(["Read", "Edit", "MultiEdit", "Write", "NotebookEdit", "Patch", "TodoWrite"]);

/**
 * Check a `budget` argument. Examples: undefined → 8000; 20000 → 20000; 10 → UsageError.
 * @throws UsageError "budget must be a whole number from 500 to 200000, got <value>"
 */
export function parseBudget(value: number | undefined): number {
  if (value === undefined) return defaultBudgetChars;
  if (!Number.isInteger(value) || value < budgetRange[0] || value > budgetRange[1]) {
    throw new UsageError(`budget must be a whole number from ${budgetRange[0]} to ${budgetRange[1]}, got ${value}`);
  }
  return value;
}

/** A tool call as read_turns gives it (schemas.ts `toolCall`). */
interface CompactCall {
  name: string;
  input: string;
  is_error: boolean;
  lines_added?: number;
  lines_removed?: number;
  output?: string;
}

/** A turn as read_turns gives it; `cut` marks a turn shortened to fit the budget. */
interface CompactTurn {
  turn: number;
  timestamp: string | null;
  prompt: string;
  response: string;
  tools: CompactCall[];
  cut?: boolean;
}

function firstOutputLines(call: ToolCall): string | undefined {
  if (!call.output || quietTools.has(call.name)) return undefined;
  const lines = call.output.replace(/\s+$/, "").split("\n");
  const shown = lines
    .slice(0, outputLinesShown)
    .map((line) => (line.length > outputLineChars ? `${line.slice(0, outputLineChars - 1)}…` : line));
  if (lines.length > outputLinesShown) shown.push(`… (${lines.length - outputLinesShown} more lines)`);
  return shown.join("\n");
}

function compactCall(call: ToolCall): CompactCall {
  const output = firstOutputLines(call);
  return {
    name: call.name,
    input: call.input,
    is_error: call.isError,
    ...(call.linesAdded !== undefined ? { lines_added: call.linesAdded } : {}),
    ...(call.linesRemoved !== undefined ? { lines_removed: call.linesRemoved } : {}),
    ...(output !== undefined ? { output } : {}),
  };
}

const compactTurn = (turn: Turn): CompactTurn => ({
  turn: turn.number,
  timestamp: isoTime(turn.timestamp),
  prompt: turn.prompt,
  response: turn.response,
  tools: turn.toolCalls.map(compactCall),
});

/** One call as a line: `[Edit] src/x.ts (+12 −3)`, `[Write] a.md (40 lines)`, `[Bash] npm test (error)` + output. */
function callText(call: CompactCall): string {
  const counts =
    call.name === "Write"
      ? ` (${call.lines_added ?? 0} lines)`
      : call.lines_added !== undefined || call.lines_removed !== undefined
        ? ` (+${call.lines_added ?? 0} −${call.lines_removed ?? 0})`
        : "";
  const head = `[${call.name}] ${oneLine(call.input, 300)}${counts}${call.is_error ? " (error)" : ""}`;
  return call.output ? `${head}\n${call.output.replace(/^/gm, "    ")}` : head;
}

function turnText(turn: CompactTurn): string {
  const parts = [
    `── turn ${turn.turn} · ${turn.timestamp ? localMinute(Date.parse(turn.timestamp)) : "unknown"} ──`,
    turn.prompt.replace(/^/gm, "> "),
  ];
  if (turn.response) parts.push(turn.response);
  if (turn.tools.length > 0) parts.push(turn.tools.map(callText).join("\n"));
  return parts.join("\n");
}

/** A turn shortened to about `maxChars` of text: outputs dropped, then prompt and reply cut, calls listed first 10. */
function shrinkTurn(turn: CompactTurn, maxChars: number): CompactTurn {
  const cut = (text: string, chars: number) =>
    text.length > chars ? `${text.slice(0, Math.max(0, chars - 1))}…` : text;
  const tools = turn.tools.slice(0, 10).map(({ output: _output, ...call }) => call);
  const room = Math.max(100, maxChars - 80 - tools.reduce((sum, call) => sum + callText(call).length + 1, 0));
  const prompt = cut(turn.prompt, Math.floor(room / 3));
  return { ...turn, prompt, response: cut(turn.response, room - prompt.length), tools, cut: true };
}

/** What read_turns renders. */
export interface ReadTurnsView {
  summary: SessionSummary;
  read: SessionRead;
  range: TurnRange;
  budgetChars: number;
}

/**
 * The read_turns answer: a header (session, project, title, "turns X-Y of N", archive note, resume command),
 * then whole turns while they fit the budget. A first turn longer than the whole budget is shortened
 * (`cut: true`); the rest is announced by the marker with the turns to ask for next.
 */
export function readTurnsOutput(view: ReadTurnsView): ToolOutput {
  const { summary, read, range } = view;
  const session = sessionItemOf(summary, "full");
  const note = archiveNote({
    fromArchive: read.fromArchive,
    archiveReason: read.archiveReason,
    sourceStatus: summary.sourceStatus,
    lastSeenAt: summary.lastSeenAt,
  });
  const header = (to: number) => [
    `${summary.sessionId} · ${summary.source} · ${summary.projectPath || "?"}${summary.title ? ` · "${oneLine(summary.title, 100)}"` : ""}`,
    `${range.total === 0 ? noTurnsNote : `turns ${range.from}-${to} of ${range.total}`}${note ? ` · ${note}` : ""}`,
    `resume: ${session.resume_command ?? `none ${promptOnlyMarker}`}`,
  ];
  let remaining = view.budgetChars - header(range.to).join("\n").length;
  const shown: CompactTurn[] = [];
  const texts: string[] = [];
  let moreChars = 0;
  let nextFrom: number | undefined;
  for (const turn of range.turns.map(compactTurn)) {
    const text = turnText(turn);
    if (nextFrom === undefined && text.length + 1 <= remaining) {
      shown.push(turn);
      texts.push(text);
      remaining -= text.length + 1;
      continue;
    }
    if (nextFrom === undefined && shown.length === 0) {
      const shrunk = shrinkTurn(turn, remaining);
      const shrunkText = turnText(shrunk);
      shown.push(shrunk);
      texts.push(shrunkText);
      moreChars += Math.max(0, text.length - shrunkText.length);
      nextFrom = turn.turn + 1 <= range.to ? turn.turn + 1 : turn.turn;
      continue;
    }
    nextFrom ??= turn.turn;
    moreChars += text.length + 1;
  }
  const truncated = nextFrom === undefined ? null : { more_chars: moreChars, next_from: nextFrom, next_to: range.to };
  const lastShown = shown.length > 0 ? shown[shown.length - 1]!.turn : range.to;
  const lines = [...header(lastShown), ...texts];
  if (truncated) {
    const whole = shown.some((turn) => turn.cut)
      ? ` (turn ${shown[0]!.turn} was cut: ask for it alone with a larger budget)`
      : "";
    lines.push(
      `[truncated, ${truncated.more_chars} more characters, ask for turns ${truncated.next_from}-${truncated.next_to}${whole}]`,
    );
  }
  return finishOutput(lines, {
    session,
    from: range.from,
    to: lastShown,
    total_turns: range.total,
    from_archive: read.fromArchive,
    turns: shown,
    truncated,
  });
}
