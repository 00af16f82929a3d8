/**
 * The `read_turns` answer (level 3 for an agent, issue 10): whole prompts and replies with compact tool calls —
 * a Read is its path, a Write its path and line count, an Edit its path and +/− lines, a Bash its command,
 * error status and first output lines; never a raw JSON payload. The text is a hard maximum of `budget`
 * characters, header and marker included (issue 26: 1,570 characters came back for 1,500), and paging loses
 * nothing: a page ends at a turn boundary or inside a turn, and its marker names the turn and character to
 * continue from. Paging (which turns and characters fit) is turns-page.ts; this module renders. A turn's header line
 * (`── turn 3 · 2026-03-01 10:04 ──`) is recall's; everything after it (prompt, reply, calls and their output) is
 * session text, fenced on each page (session-text.ts, issue 37). Character positions (`from_char`, `part`) count the
 * turn's text without the fences, so they do not depend on the nonce.
 */
import { UsageError } from "../errors.ts";
import { searchableChars, unsearchableChars } from "../index/write/documents.ts";
import { type ToolCall, type Turn, turnLabel } from "../parsers/index.ts";
import { neutralizeControls } from "../render/escapes.ts";
import { localMinute, isoTime, noTurnsNote, oneLine, projectLabel, turnSpan } from "../render/format.ts";
import { archiveNote, noResumeNote } from "../render/show.ts";
import type { SessionRead, SessionSummary, TurnRange } from "../search/index.ts";
import { finishOutput, sessionItemOf, type ToolOutput } from "./format.ts";
import { type AnswerLine, fenceChars, neutralizeSessionText, sessionText } from "./session-text.ts";
import { fillPage } from "./turns-page.ts";

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

/**
 * Check a `from_char` argument. Examples: undefined → 0; 1234 → 1234; -1 or 1.5 → UsageError.
 * @throws UsageError "from_char must be a whole number of at least 0, got <value>"
 */
export function parseFromChar(value: number | undefined): number {
  if (value === undefined) return 0;
  if (!Number.isInteger(value) || value < 0)
    throw new UsageError(
      `from_char must be a whole number of at least 0, got ${value}`,
      "use the from_char of a [truncated] marker",
    );
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

/**
 * A turn as read_turns gives it. A turn shown only in part has `cut: true` and `part`: the characters of its text
 * shown ([from_char, to_char) of total_chars), with the prompt and reply cut to them and the calls whose line
 * starts among them (a call belongs to the page where its line starts).
 */
export interface CompactTurn {
  turn: number;
  /** True for a turn on a branch the user rewound past (issue 26). */
  rewound?: boolean;
  timestamp: string | null;
  prompt: string;
  response: string;
  tools: CompactCall[];
  cut?: boolean;
  part?: { from_char: number; to_char: number; total_chars: number };
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

/** A call with its name, input and output neutralized as session text. */
function neutralizeCall(call: CompactCall): CompactCall {
  const { output, ...rest } = call;
  return {
    ...rest,
    name: neutralizeSessionText(call.name),
    input: neutralizeSessionText(call.input),
    ...(output !== undefined ? { output: neutralizeSessionText(output) } : {}),
  };
}

/**
 * A turn in the compact form, its session text already neutralized (session-text.ts: control characters as `\xNN`,
 * fence-like lines escaped), so the text measured is the text sent; a rewound turn (-2) is numbered among the rewound
 * turns (2), as read_turns rewound=true pages them.
 */
const compactTurn = (turn: Turn): CompactTurn => ({
  turn: Math.abs(turn.number),
  timestamp: isoTime(turn.timestamp),
  prompt: neutralizeSessionText(turn.prompt),
  response: neutralizeSessionText(turn.response),
  tools: turn.toolCalls.map((call) => neutralizeCall(compactCall(call))),
  ...(turn.number < 0 ? { rewound: true } : {}),
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

/** A rendered part of a turn and the field it shows; a turn's text is its segments joined by newlines. */
interface Segment {
  kind: "head" | "prompt" | "response" | "call";
  text: string;
  /** The call's index in `tools` (kind "call"). */
  call?: number;
}

function turnSegments(turn: CompactTurn): Segment[] {
  const time = turn.timestamp ? localMinute(Date.parse(turn.timestamp)) : "unknown";
  const segments: Segment[] = [
    { kind: "head", text: `── turn ${turn.rewound ? `r${turn.turn} (rewound)` : turn.turn} · ${time} ──` },
    { kind: "prompt", text: turn.prompt.replace(/^/gm, "> ") },
  ];
  if (turn.response) segments.push({ kind: "response", text: turn.response });
  for (const [index, call] of turn.tools.entries()) segments.push({ kind: "call", text: callText(call), call: index });
  return segments;
}

/**
 * The answer lines of characters [from, to) of a turn's text whose header line is `headChars` long: the part of the
 * header as recall's line, the part after it as session text (fenced when written). Examples (text "── t ──\nhi",
 * headChars 7): (0, 10) → ["── t ──", sessionText("hi")]; (0, 8) → ["── t ──\n"]; (9, 10) → [sessionText("i")].
 */
function pieceLines(text: string, headChars: number, from: number, to: number): AnswerLine[] {
  const bodyStart = headChars + 1;
  if (to <= bodyStart) return [text.slice(from, to)];
  if (from >= bodyStart) return [sessionText(text.slice(from, to))];
  return [text.slice(from, headChars), sessionText(text.slice(bodyStart, to))];
}

/**
 * Characters a piece of a page may add to its text: the fence lines around its session text, and a backslash when the
 * piece starts inside a line that then starts like a fence (session-text.ts neutralizeSessionText).
 */
const pieceChars = fenceChars + 1;

const turnText = (turn: CompactTurn) =>
  turnSegments(turn)
    .map((segment) => segment.text)
    .join("\n");

/**
 * The index in `prompt` of position `at` of its `> `-prefixed rendering (a position inside a prefix maps to the
 * start of its line). Examples ("ab\ncd", rendered "> ab\n> cd"): 0 → 0; 3 → 1; 4 → 2; 6 → 3; 9 → 5.
 */
function promptIndex(prompt: string, at: number): number {
  let rendered = 0;
  let raw = 0;
  for (const line of prompt.split("\n")) {
    const lineEnd = rendered + 2 + line.length;
    if (at <= lineEnd) return raw + Math.max(0, Math.min(at - rendered - 2, line.length));
    rendered = lineEnd + 1;
    raw += line.length + 1;
  }
  return prompt.length;
}

/** The part of `turn` whose text is characters [from, to) of its whole text (`total` characters). */
function turnPart(turn: CompactTurn, from: number, to: number, total: number): CompactTurn {
  let prompt = "";
  let response = "";
  const tools: CompactCall[] = [];
  let start = 0;
  for (const segment of turnSegments(turn)) {
    const end = start + segment.text.length;
    const [low, high] = [Math.max(from, start) - start, Math.min(to, end) - start];
    if (segment.kind === "prompt" && low < high)
      prompt = turn.prompt.slice(promptIndex(turn.prompt, low), promptIndex(turn.prompt, high));
    if (segment.kind === "response" && low < high) response = turn.response.slice(low, high);
    if (segment.kind === "call" && start >= from && start < to) tools.push(turn.tools[segment.call!]!);
    start = end + 1;
  }
  return { ...turn, prompt, response, tools, cut: true, part: { from_char: from, to_char: to, total_chars: total } };
}

/**
 * The note of a range whose prompts or replies run past the part search reads (issue 37, index/write/documents.ts
 * searchableChars): which turns, and how many characters of each only level 3 holds; "" when none does.
 * Example: `turn 1: 49,800,055 characters past the first 200,000 of its prompt or reply are shown here but not searchable`.
 */
export function unsearchableNote(turns: readonly Turn[]): string {
  const cut = turns
    .map((turn) => ({ turn, chars: unsearchableChars(turn.prompt) + unsearchableChars(turn.response) }))
    .filter(({ chars }) => chars > 0);
  if (cut.length === 0) return "";
  const counts = cut.map(({ turn, chars }) => `turn ${turnLabel(turn.number)}: ${chars.toLocaleString("en-US")}`);
  return `${counts.join(", ")} characters past the first ${searchableChars.toLocaleString("en-US")} of its prompt or reply are shown here but not searchable`;
}

/** What read_turns renders. */
export interface ReadTurnsView {
  summary: SessionSummary;
  read: SessionRead;
  range: TurnRange;
  budgetChars: number;
  /** Where in the text of the range's first turn to start (a marker's `from_char`); 0 from its start. */
  fromChar: number;
}

/** `text` cut to at most `maxChars` characters, the cut marked by `…`. */
const capLine = (text: string, maxChars: number) => (text.length > maxChars ? `${text.slice(0, maxChars - 1)}…` : text);

/**
 * The marker that ends a page with more to read: `[truncated, N more characters, ask for turns X-Y from_char=C]`
 * (` rewound=true` when the page is of rewound turns).
 */
const markerText = (moreChars: number, nextFrom: number, nextTo: number, nextFromChar: number, rewound: boolean) =>
  `[truncated, ${moreChars} more characters, ask for turns ${nextFrom}-${nextTo}${nextFromChar > 0 ? ` from_char=${nextFromChar}` : ""}${rewound ? " rewound=true" : ""}]`;

/**
 * Check that `fromChar` (0: the start) lies inside the text of the range's first turn.
 * @throws UsageError "from_char <n> is past the end of turn <from> (<length> characters)"
 */
function checkFromChar(fromChar: number, texts: string[], range: TurnRange): void {
  if (fromChar === 0) return;
  const length = texts[0]?.length ?? 0;
  if (fromChar >= length)
    throw new UsageError(
      `from_char ${fromChar} is past the end of turn ${range.from} (${length} characters)`,
      "use the from_char of the last [truncated] marker, with the same from",
    );
}

/** Where the next page of a read_turns answer starts (schemas.ts `truncated`). */
export interface TurnsTruncation {
  more_chars: number;
  next_from: number;
  next_to: number;
  next_from_char: number;
}

/** A page of turns as {@link pageTurns} cut it. */
export interface TurnsPage {
  /** The answer lines: header, the turns shown (their session text fenced), and the marker when more is left. */
  lines: AnswerLine[];
  /** The turns shown, in the compact form (a turn shown in part has `cut` and `part`). */
  shown: CompactTurn[];
  /** The last turn shown (the range's last when none fits). */
  lastShown: number;
  truncated: TurnsTruncation | null;
}

/**
 * A page of the range's turns in at most `budgetChars` characters: `header(to)` (the lines for a page ending at turn
 * `to`, each cut to a sixth of the budget and neutralized here), then the turns from character `fromChar` of the
 * first, as many as fit, and when more is left the marker naming where to continue (the marker's room kept back).
 * Shared by the local read_turns and the team archive's (archive-format.ts).
 * @throws UsageError when `fromChar` is not inside the first turn's text
 */
export function pageTurns(
  range: TurnRange,
  header: (to: number) => string[],
  budgetChars: number,
  fromChar: number,
): TurnsPage {
  const rewound = range.branch === "rewound";
  const turns = range.turns.map(compactTurn);
  const texts = turns.map(turnText);
  const headChars = turns.map((turn) => turnSegments(turn)[0]!.text.length);
  checkFromChar(fromChar, texts, range);
  const cappedHeader = (to: number) =>
    header(to).map((line) => capLine(neutralizeControls(line), Math.floor(budgetChars / 6)));
  // The header with the range's last turn is the longest it can be (the turn shown last has no more digits).
  // No marker is longer: each of its numbers is at most the one used here.
  const longestTurnChars = texts.reduce((longest, text) => Math.max(longest, text.length), 0);
  const longestMarker = markerText(texts.join("\n").length, range.to, range.to, longestTurnChars, rewound);
  const page = fillPage(
    texts,
    fromChar,
    budgetChars - cappedHeader(range.to).join("\n").length,
    longestMarker.length,
    pieceChars,
  );
  const shown = page.pieces.map((piece) =>
    piece.from === 0 && piece.to === texts[piece.index]!.length
      ? turns[piece.index]!
      : turnPart(turns[piece.index]!, piece.from, piece.to, texts[piece.index]!.length),
  );
  const lastShown = shown.length > 0 ? shown[shown.length - 1]!.turn : range.to;
  const { next } = page;
  const truncated = next
    ? { more_chars: page.moreChars, next_from: turns[next.index]!.turn, next_to: range.to, next_from_char: next.char }
    : null;
  const lines: AnswerLine[] = [...cappedHeader(lastShown)];
  for (const piece of page.pieces)
    lines.push(...pieceLines(texts[piece.index]!, headChars[piece.index]!, piece.from, piece.to));
  if (truncated)
    lines.push(
      markerText(truncated.more_chars, truncated.next_from, truncated.next_to, truncated.next_from_char, rewound),
    );
  return { lines, shown, lastShown, truncated };
}

/**
 * The read_turns answer: a header (session, project, title, "turns X-Y of N", archive note, resume command),
 * then the turns from character `fromChar` of the first, as many as fit, and when more is left the marker naming
 * where to continue ({@link pageTurns}). The whole text is at most `budgetChars` characters.
 * @throws UsageError when `fromChar` is not inside the first turn's text
 */
export function readTurnsOutput(view: ReadTurnsView): ToolOutput {
  const { summary, read, range, budgetChars, fromChar } = view;
  const rewound = range.branch === "rewound";
  const rewoundTotal = read.result.turns.filter((turn) => turn.number < 0).length;
  const session = sessionItemOf(summary, "full");
  const note = archiveNote({
    fromArchive: read.fromArchive,
    archiveReason: read.archiveReason,
    sourceStatus: summary.sourceStatus,
    lastSeenAt: summary.lastSeenAt,
  });
  const startNote = fromChar > 0 ? `, turn ${range.from} from character ${fromChar}` : "";
  const cutNote = unsearchableNote(range.turns);
  const header = (to: number) => [
    `${summary.sessionId} · ${summary.source} · ${projectLabel(summary.projectPath)}${summary.title ? ` · "${oneLine(summary.title, 100)}"` : ""}`,
    `${range.total === 0 ? (rewound ? "no rewound turns" : noTurnsNote) : `${turnSpan(range.from, to, rewound)} of ${range.total}${startNote}`}${!rewound && rewoundTotal > 0 ? ` · ${rewoundTotal} rewound (rewound=true)` : ""}${note ? ` · ${note}` : ""}`,
    `resume: ${session.resume_command ?? noResumeNote(summary)}`,
    ...(cutNote ? [cutNote] : []),
  ];
  const page = pageTurns(range, header, budgetChars, fromChar);
  return finishOutput(page.lines, {
    session,
    branch: range.branch,
    rewound_turns: rewoundTotal,
    from: range.from,
    to: page.lastShown,
    total_turns: range.total,
    from_archive: read.fromArchive,
    turns: page.shown,
    truncated: page.truncated,
  });
}
