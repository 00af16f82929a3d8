/**
 * Parsing one aider chat session (one header block of a history file, or the text before its first header)
 * into a `Session` and its `Turn`s, fully or resumed from an {@link AiderResumeState} (docs/formats.md §6).
 * Pipeline, the same for both:
 *   1. read the block's bytes (from its header, or from the file's start, to the next header or the end of the file);
 *   2. split into lines → records (records.ts) → turn drafts (turns.ts) → turns;
 *   3. for the file's last block: resume state = offset after the last complete line + digest of the
 *      block before it + the last turn's lines (from the turn before it while the last prompt may still grow
 *      or turn out to be an echo) + hashes of the turns returned from there on.
 * A resumed parse reads the block once, hashes the already-parsed part (`bytesVerified`), decodes only
 * the appended bytes (`bytesRead`), re-groups the tail's lines plus the new ones, and returns the turns from the
 * first that differs from what was returned before; it parses fully when the block moved, shrank or changed
 * before the offset.
 * Times (local time of this machine, no zone in the files): `startedAt` = the header's (sessions.ts
 * `headerTimeOf`); each turn's `timestamp` = its prompt's entry in `.aider.input.history` when one matches
 * (input-history.ts), else the time before it; `endedAt` = the last turn's time (the header's without any).
 * The text before the first header has no header time: its window of input entries ends at the first header,
 * a turn without a matching entry before it has 0 ("unknown"), and `startedAt` is its first turn's time (0 without any).
 */
import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { basename, dirname } from "node:path";
import { SourceError } from "../../errors.ts";
import { fsReason } from "../file-stats.ts";
import { prefixHashOf } from "../shared/prefix-hash.ts";
import type { ParseOptions, ParseResult, Session, SourceUnit, Turn } from "../types.ts";
import { classifyLines } from "./records.ts";
import { readInputWindow, stampPrompt, type InputEntry, type PromptClock } from "./input-history.ts";
import { isUsableState, type AiderResumeState } from "./resume.ts";
import { findSessionBlocks, headerPrefix, headerTimeOf, sessionBlocksOf, sessionIdOf } from "./sessions.ts";
import { finishTurn, groupTurns, turnHashOf, type TurnDraft } from "./turns.ts";

/** Where a unit's block is, from its locator (or found again in the file). */
interface BlockPlace {
  start: number;
  /** End offset for a block followed by another one; null for the file's last block (read to the end). */
  end: number | null;
  /** The header line; "" for the text before the file's first header. */
  header: string;
  /** Header line of the next session (the end of this one's time window), null for the last. */
  nextHeader: string | null;
}

/** Per-parse context. */
interface Context {
  unit: SourceUnit;
  path: string;
  withOutputs: boolean;
  /** False for the text before the file's first header (line 1 is text, records before a prompt form turn 1). */
  hasHeader: boolean;
  /** The header's time, 0 without one. */
  startedAt: number;
  /** End of the session's time window (the next header's time), null for the file's last session. */
  windowEndMs: number | null;
  /** Input history entries of the session's window, read on first use. */
  entries?: InputEntry[];
  bytesRead: number;
  bytesVerified: number;
}

/** The lines of a byte range that starts at a line start: complete ones, and the unterminated rest ("" when none). */
interface RangeLines {
  complete: string[];
  partial: string;
  /** Bytes up to and including the last "\n". */
  completeBytes: number;
}

/**
 * Parse one session, resuming when `options.resume` is a usable state for it.
 * @throws SourceError when the file cannot be read (`cannot read aider history /p/.aider.chat.history.md:
 *   permission denied`) or no longer holds the session (`aider session aider-… not found in /p/…`)
 */
export function parseAiderUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const withOutputs = options.withOutputs === true;
  const place = placeOf(unit);
  const context: Context = {
    unit,
    path: unit.containerPath,
    withOutputs,
    hasHeader: place.header !== "",
    startedAt: headerTimeOf(place.header),
    windowEndMs: place.nextHeader === null ? null : headerTimeOf(place.nextHeader) || null,
    bytesRead: 0,
    bytesVerified: 0,
  };
  if (
    isUsableState(options.resume, unit.sessionId, withOutputs) &&
    options.resume.blockStart === place.start &&
    place.end === null
  ) {
    const resumed = parseResumed(context, options.resume);
    if (resumed) return resumed;
    context.bytesRead = 0;
    context.bytesVerified = 0;
  }
  return parseFull(context, place);
}

/** The block of a unit from its locator; a unit without one (built by hand) is found by its session id. */
function placeOf(unit: SourceUnit): BlockPlace {
  const locator = unit.locator ?? {};
  if (typeof locator.start === "number" && typeof locator.header === "string") {
    const nextHeader = typeof locator.nextHeader === "string" ? locator.nextHeader : null;
    return {
      start: locator.start,
      end: typeof locator.end === "number" ? locator.end : null,
      header: locator.header,
      nextHeader,
    };
  }
  return findPlace(unit);
}

/** Find the unit's block by reading the whole file. @throws SourceError when unreadable or absent */
function findPlace(unit: SourceUnit): BlockPlace {
  const bytes = readWhole(unit.containerPath);
  const blocks = sessionBlocksOf(bytes);
  const index = blocks.findIndex(
    (block) => sessionIdOf(unit.containerPath, block.header, block.ordinal) === unit.sessionId,
  );
  const block = blocks[index];
  if (!block)
    throw new SourceError(`aider session ${unit.sessionId} not found in ${unit.containerPath}`, unit.containerPath);
  return {
    start: block.start,
    end: index === blocks.length - 1 ? null : block.end,
    header: block.header,
    nextHeader: blocks[index + 1]?.header ?? null,
  };
}

function readWhole(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new SourceError(`cannot read aider history ${path}: ${fsReason(error)}`, path, { cause: error });
  }
}

/** Bytes [start, end) of a file (`end` null: to the end of the file). @throws SourceError */
function readRange(path: string, start: number, end: number | null): Buffer {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (error) {
    throw new SourceError(`cannot read aider history ${path}: ${fsReason(error)}`, path, { cause: error });
  }
  try {
    const size = fstatSync(fd).size;
    const stop = Math.min(end ?? size, size);
    const buffer = Buffer.allocUnsafe(Math.max(0, stop - start));
    let done = 0;
    while (done < buffer.length) {
      const n = readSync(fd, buffer, done, buffer.length - done, start + done);
      if (n === 0) break;
      done += n;
    }
    return buffer.subarray(0, done);
  } catch (error) {
    throw new SourceError(`cannot read aider history ${path}: ${fsReason(error)}`, path, { cause: error });
  } finally {
    closeSync(fd);
  }
}

/** Length of `bytes` up to the next session header line (one that starts after a "\n" at or after `from`). */
function cutAtNextHeader(bytes: Buffer, from: number, startsAtLine: boolean): number {
  let index = from;
  for (;;) {
    const at = bytes.indexOf(headerPrefix, index, "utf8");
    if (at < 0) return bytes.length;
    if ((at === 0 && startsAtLine) || (at > 0 && bytes[at - 1] === 10)) {
      const lineEnd = bytes.indexOf(10, at);
      if (lineEnd >= 0 && findSessionBlocks(bytes.subarray(at, lineEnd + 1)).length === 1) return at;
    }
    index = at + 1;
  }
}

function splitLines(bytes: Buffer): RangeLines {
  const lastNewline = bytes.lastIndexOf(10);
  const complete = lastNewline < 0 ? [] : bytes.toString("utf8", 0, lastNewline).split("\n");
  return { complete, partial: bytes.toString("utf8", lastNewline + 1), completeBytes: lastNewline + 1 };
}

function parseFull(context: Context, place: BlockPlace, isRetry = false): ParseResult {
  let block = readRange(context.path, place.start, place.end);
  let bodyOffset = 0;
  let isPlaced: boolean;
  if (context.hasHeader) {
    bodyOffset = block.indexOf(10) + 1;
    isPlaced = bodyOffset > 0 && block.toString("utf8", 0, bodyOffset - 1).replace(/\r$/, "") === place.header;
  } else {
    // The text before the first header starts the file, and a file that now starts with a header has none.
    isPlaced = place.start === 0 && cutAtNextHeader(block, 0, true) > 0;
  }
  if (!isPlaced) {
    // The file was rewritten since it was listed: find the session again (once).
    if (isRetry)
      throw new SourceError(`aider session ${context.unit.sessionId} not found in ${context.path}`, context.path);
    return parseFull(context, findPlace(context.unit), true);
  }
  context.bytesRead += block.length;
  if (place.end === null) block = block.subarray(0, cutAtNextHeader(block, bodyOffset, !context.hasHeader));
  const body = splitLines(block.subarray(bodyOffset));
  const isLast = place.end === null;
  const clock: PromptClock = { cursor: 0, lastAt: context.startedAt };
  return finish(
    context,
    body,
    context.hasHeader ? 2 : 1,
    1,
    clock,
    isLast ? { blockStart: place.start, blockBytes: block, bodyOffset } : null,
    [],
    true,
  );
}

function parseResumed(context: Context, state: AiderResumeState): ParseResult | null {
  const block = readRange(context.path, state.blockStart, null);
  const parsedLength = state.offset - state.blockStart;
  if (block.length < parsedLength || prefixHashOf(block, parsedLength) !== state.prefixHash) return null;
  context.bytesVerified += parsedLength;
  const appended = block.subarray(parsedLength, parsedLength + cutAtNextHeader(block.subarray(parsedLength), 0, true));
  context.bytesRead += appended.length;
  const lines = splitLines(appended);
  const body: RangeLines = {
    complete: [...state.tailLines, ...lines.complete],
    partial: lines.partial,
    completeBytes: lines.completeBytes,
  };
  const blockBytes = block.subarray(0, parsedLength + appended.length);
  return finish(
    context,
    body,
    state.tailLine,
    state.anchorTurn,
    { ...state.clock },
    { blockStart: state.blockStart, blockBytes, bodyOffset: parsedLength - tailBytes(state.tailLines) },
    state.turnHashes,
    false,
  );
}

/** Bytes of `lines` as they stood in the file, each with its "\n". */
function tailBytes(lines: readonly string[]): number {
  return lines.reduce((sum, line) => sum + Buffer.byteLength(line, "utf8") + 1, 0);
}

/** Where the body's lines sit in the block, for the next resume state (null: no state, the block is not the file's last). */
interface StateSource {
  blockStart: number;
  /** The block's bytes read so far (from its header). */
  blockBytes: Buffer;
  /** Offset in `blockBytes` of the body's first complete line. */
  bodyOffset: number;
}

/** Input history entries of the session's window, read once per parse (their bytes count as read). */
function entriesOf(context: Context): InputEntry[] {
  if (!context.entries) {
    const window = readInputWindow(context.path, context.startedAt, context.windowEndMs);
    context.bytesRead += window.bytesRead;
    context.entries = window.entries;
  }
  return context.entries;
}

/** Turns of drafts, each stamped with its prompt's time (input-history.ts); `clock` advances. */
function stampedTurns(context: Context, drafts: readonly TurnDraft[], clock: PromptClock): Turn[] {
  const entries = entriesOf(context);
  return drafts.map((draft) =>
    finishTurn(draft, context.unit.sessionId, stampPrompt(draft.prompt, entries, clock), context.withOutputs),
  );
}

/** The prompt-time clock before `drafts[index]`, from `startClock` before `drafts[0]` (only prompts move it). */
function clockBefore(
  context: Context,
  drafts: readonly TurnDraft[],
  index: number,
  startClock: PromptClock,
): PromptClock {
  const entries = entriesOf(context);
  const clock = { ...startClock };
  for (const draft of drafts.slice(0, index)) stampPrompt(draft.prompt, entries, clock);
  return clock;
}

/**
 * Steps 2–3 for full (`isFull`) and resumed parses. `firstLine` is the block-relative number of `body`'s
 * first line; `clock` is the prompt-time clock before the first turn of `body`.
 */
function finish(
  context: Context,
  body: RangeLines,
  firstLine: number,
  firstNumber: number,
  clock: PromptClock,
  source: StateSource | null,
  tailHashes: readonly string[],
  isFull: boolean,
): ParseResult {
  const viewLines = body.partial.trim().length > 0 ? [...body.complete, body.partial] : body.complete;
  const drafts = draftsOf(context, viewLines, firstLine, firstNumber);
  const startClock = { ...clock };
  const turns = stampedTurns(context, drafts, clock);
  const endedAt = clock.lastAt;
  let resume: AiderResumeState | undefined;
  if (source) {
    const stateDrafts = viewLines === body.complete ? drafts : draftsOf(context, body.complete, firstLine, firstNumber);
    resume = buildState(context, body, firstLine, firstNumber, source, stateDrafts, startClock);
    // Hashes of the turns as returned now (a partial last line included), so the next parse returns a turn again
    // exactly when it differs from what the caller holds.
    const anchorTurn = resume.anchorTurn;
    resume.turnHashes = turns.filter((turn) => turn.number >= anchorTurn).map(turnHashOf);
  }
  let fromTurn = firstNumber;
  // Turns the state already returned, unchanged, are not returned again.
  for (const hash of isFull ? [] : tailHashes) {
    if (!turns[0] || hash !== turnHashOf(turns[0])) break;
    turns.shift();
    fromTurn++;
  }
  const turnCount = drafts.at(-1)?.number ?? firstNumber - 1;
  return {
    session: buildSession(context, turnCount, context.startedAt || clock.firstAt || 0, endedAt),
    turns,
    fromTurn: isFull ? 1 : fromTurn,
    resume,
    bytesRead: context.bytesRead,
    bytesVerified: context.bytesVerified,
    skipped: { count: 0 },
  };
}

/**
 * The state after `body.complete`: its tail starts at the last turn, or at the one before it when the last turn's
 * prompt is the last record so far (more `####` lines may still come, and a complete prompt may turn out to be an
 * echo that joins the turn before it: turns.ts `isCommandEcho`, `isEditorHandoff`).
 */
function buildState(
  context: Context,
  body: RangeLines,
  firstLine: number,
  firstNumber: number,
  source: StateSource,
  drafts: readonly TurnDraft[],
  startClock: PromptClock,
): AiderResumeState {
  let anchor = drafts.length - 1;
  if (anchor > 0 && drafts[anchor]!.records.length === 0) anchor--;
  const from = drafts[anchor];
  const tailFrom = from ? from.line - firstLine : 0;
  // body.complete holds every line of the body that ends in "\n": its bytes end where the state resumes.
  const offsetInBlock = source.bodyOffset + tailBytes(body.complete);
  return {
    kind: "aider/v2",
    withOutputs: context.withOutputs,
    sessionId: context.unit.sessionId,
    blockStart: source.blockStart,
    offset: source.blockStart + offsetInBlock,
    prefixHash: prefixHashOf(source.blockBytes, offsetInBlock),
    tailLines: body.complete.slice(tailFrom),
    tailLine: firstLine + tailFrom,
    anchorTurn: from ? from.number : firstNumber,
    clock: from ? clockBefore(context, drafts, anchor, startClock) : { ...startClock },
    turnHashes: [],
  };
}

/** Turn drafts of lines that start at block line `firstLine` (line 2 follows the header). */
function draftsOf(context: Context, lines: readonly string[], firstLine: number, firstNumber: number): TurnDraft[] {
  const records = classifyLines(lines, firstLine, context.hasHeader && firstLine === 2);
  return groupTurns(records, firstNumber, context.hasHeader ? "startup" : "cut");
}

function buildSession(context: Context, turnCount: number, startedAt: number, endedAt: number): Session {
  const projectPath = dirname(context.path);
  return {
    id: context.unit.sessionId,
    source: "aider",
    projectPath,
    projectName: basename(projectPath),
    gitBranch: null,
    startedAt,
    endedAt,
    title: null,
    turnCount,
    parentSessionId: null,
    isSubagent: false,
    location: context.path,
  };
}
