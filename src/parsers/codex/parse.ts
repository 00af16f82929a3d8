/**
 * Parsing one Codex rollout into a `Session` and its `Turn`s, fully or resumed from a
 * {@link CodexResumeState} (docs/formats.md §3). Pipeline, the same for both:
 *   1. decode lines → metadata (first `session_meta` = identity; copied fork history skipped) → items;
 *   2. items → turns (turns.ts); what neither decodes nor finds a place is counted in `skipped` (issue 26);
 *   3. resume state = items from the last turn's first item + grouper state + metadata + byte offset + prefix hash
 *      + what the lines and items before that first item skipped; the metadata carries the `compacted` summaries, so a
 *      resumed parse returns the whole abstract.
 * A resumed parse hashes the parsed prefix, decodes only the appended bytes, re-groups only the last turn's
 * items plus the new ones, and parses fully when that could differ (file shrank, a prefix byte changed, other options).
 */
import { readFileSync } from "node:fs";
import { SourceError } from "../../errors.ts";
import { fsReason } from "../file-stats.ts";
import { projectNameOf } from "../shared/fields.ts";
import type { RawLine } from "../shared/jsonl-lines.ts";
import { decodeAppended, decodeWhole, type LinePosition } from "../shared/resume-lines.ts";
import { withAbstract } from "../shared/abstract.ts";
import { hashOf } from "../shared/sha1.ts";
import { copySkips, noteSkip } from "../shared/skips.ts";
import type { ParseOptions, ParseResult, Session, SkipReport, SourceUnit } from "../types.ts";
import { applyLine, createMeta, stripInjectedPreamble, type CodexMeta } from "./meta.ts";
import { itemsOfLine, type Item } from "./records.ts";
import { isUsableState, type CodexResumeState } from "./resume.ts";
import { findReviewParent } from "./review-parent.ts";
import { usageItemOfLine } from "./usage.ts";
import { codexHomeOf, readTitles } from "./session-index.ts";
import {
  finishTurn,
  groupTurns,
  initialGroupState,
  type GroupState,
  type TurnDraft,
  type UnplacedItem,
} from "./turns.ts";

/** Per-parse context. */
interface Context {
  unit: SourceUnit;
  path: string;
  withOutputs: boolean;
  bytesRead: number;
  bytesVerified: number;
  skipped: SkipReport;
}

/**
 * Parse one rollout, resuming when `options.resume` is a usable state for it.
 * @throws SourceError when the file cannot be opened or read at all, e.g.
 *   `cannot read codex rollout /x/rollout-….jsonl: permission denied`
 */
export function parseCodexUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const context: Context = {
    unit,
    path: unit.key,
    withOutputs: options.withOutputs === true,
    bytesRead: 0,
    bytesVerified: 0,
    skipped: { count: 0 },
  };
  if (isUsableState(options.resume, context.withOutputs)) {
    const resumed = parseResumed(context, options.resume);
    if (resumed) return resumed;
    context.bytesRead = 0;
    context.bytesVerified = 0;
    context.skipped = { count: 0 };
  }
  return parseFull(context);
}

function parseFull(context: Context): ParseResult {
  let bytes: Buffer;
  try {
    bytes = readFileSync(context.path);
  } catch (error) {
    throw new SourceError(`cannot read codex rollout ${context.path}: ${fsReason(error)}`, context.path, {
      cause: error,
    });
  }
  context.bytesRead += bytes.length;
  context.skipped = { count: 0 }; // a resumed parse that gave up may have counted the earlier lines' skips already
  const decoded = decodeWhole(bytes, context.path, context.skipped);
  const meta = createMeta();
  const items = ingest(context, meta, decoded.lines);
  if (meta.isSubagent && meta.parentId === null && meta.subagentKind === "review") {
    meta.parentId = findReviewParent(context.path, meta.metaAt, (read) => (context.bytesRead += read));
  }
  return finish(context, meta, items, initialGroupState(), 1, decoded.partial, decoded.position, null, true);
}

function parseResumed(context: Context, state: CodexResumeState): ParseResult | null {
  const decoded = decodeAppended(context.path, state, context.skipped);
  if (!decoded) return null;
  context.bytesVerified += decoded.bytesVerified;
  context.bytesRead += decoded.bytesRead;
  const meta = structuredClone(state.meta);
  const items = [...state.tail, ...ingest(context, meta, decoded.lines)];
  return finish(
    context,
    meta,
    items,
    state.tailState,
    state.anchorTurn,
    decoded.partial,
    decoded.position,
    state.lastTurnHash,
    false,
  );
}

/** Metadata and items of decoded lines (mutates `meta`); a call without id is named after its 1-based line. */
function ingest(context: Context, meta: CodexMeta, lines: readonly RawLine[]): Item[] {
  const items: Item[] = [];
  for (const { line, value } of lines) {
    const belongs = applyLine(meta, value);
    // A forked parent's copied lines add no turns, but their model and token totals are where the fork starts from.
    if (belongs === "copied") {
      const usage = usageItemOfLine(value, line);
      if (usage) items.push(usage);
    }
    if (belongs !== "own") continue;
    for (const item of itemsOfLine(value, context.withOutputs, line)) {
      if (item.k === "prompt" || item.k === "userItem") {
        item.text = stripInjectedPreamble(meta, item.text);
        if (item.text.length === 0) continue;
      }
      items.push(item);
    }
  }
  return items;
}

/** Steps 2–3 for full (`isFull`) and resumed parses. */
function finish(
  context: Context,
  meta: CodexMeta,
  items: Item[],
  startState: GroupState,
  firstNumber: number,
  partial: RawLine | null,
  position: LinePosition,
  lastTurnHash: string | null,
  isFull: boolean,
): ParseResult {
  const stateMeta = structuredClone(meta);
  let viewMeta = meta;
  let viewItems = items;
  if (partial) {
    viewMeta = structuredClone(meta);
    viewItems = [...items, ...ingest(context, viewMeta, [partial])];
  }
  const grouped = groupTurns(viewItems, startState, firstNumber);
  noteUnplaced(context, context.skipped, grouped.unplaced, viewItems.length);
  const sessionId = context.unit.sessionId;
  const turns = grouped.drafts.map((draft) => finishTurn(draft, sessionId, viewMeta.isSubagent, context.withOutputs));
  let fromTurn = firstNumber;
  if (!isFull && turns[0] && lastTurnHash === hashOf(JSON.stringify(turns[0]))) {
    turns.shift();
    fromTurn++;
  }
  const turnCount = grouped.drafts.at(-1)?.number ?? firstNumber - 1;
  const session = buildSession(context, viewMeta, turnCount);
  const stateGroups = partial ? groupTurns(items, startState, firstNumber) : grouped;
  // The state keeps what the items before its tail could not place; the tail is grouped (and counted) again.
  const statePosition = { ...position, skipped: copySkips(position.skipped) };
  const tailStart = stateGroups.drafts.at(-1)?.startIndex ?? items.length;
  noteUnplaced(context, statePosition.skipped, stateGroups.unplaced, tailStart);
  const resume = buildState(
    context,
    stateMeta,
    items,
    stateGroups.drafts,
    stateGroups.state,
    firstNumber,
    statePosition,
  );
  return {
    session,
    turns,
    fromTurn: isFull ? 1 : fromTurn,
    resume,
    bytesRead: context.bytesRead,
    bytesVerified: context.bytesVerified,
    skipped: { ...context.skipped },
  };
}

/** Count the unplaced items before index `end` into `report` (place `<path>:<line>`). */
function noteUnplaced(context: Context, report: SkipReport, unplaced: readonly UnplacedItem[], end: number): void {
  for (const item of unplaced) if (item.index < end) noteSkip(report, `${context.path}:${item.n}`, item.reason);
}

function buildState(
  context: Context,
  meta: CodexMeta,
  items: Item[],
  drafts: TurnDraft[],
  endState: GroupState,
  firstNumber: number,
  position: LinePosition,
): CodexResumeState {
  const last = drafts.at(-1);
  const lastTurn = last ? finishTurn(last, context.unit.sessionId, meta.isSubagent, context.withOutputs) : null;
  return {
    kind: "codex/v5",
    offset: position.offset,
    lineCount: position.lineCount,
    prefixHash: position.prefixHash,
    skipped: position.skipped,
    withOutputs: context.withOutputs,
    meta,
    tail: last ? items.slice(last.startIndex) : [],
    tailState: last ? last.stateBefore : endState,
    anchorTurn: last ? last.number : firstNumber,
    lastTurnHash: lastTurn ? hashOf(JSON.stringify(lastTurn)) : null,
  };
}

function buildSession(context: Context, meta: CodexMeta, turnCount: number): Session {
  const projectPath = meta.cwd ?? "";
  const parentSessionId = meta.isSubagent && meta.parentId !== context.unit.sessionId ? meta.parentId : null;
  const title = titleOf(context, meta);
  const session: Session = {
    id: context.unit.sessionId,
    source: "codex",
    projectPath,
    projectName: projectNameOf(projectPath),
    gitBranch: meta.branch,
    startedAt: meta.startedAt,
    endedAt: meta.endedAt,
    title,
    turnCount,
    parentSessionId,
    isSubagent: meta.isSubagent,
    location: context.path,
  };
  return withAbstract(session, meta.compactions);
}

/**
 * The title: the `session_index.jsonl` name given by listUnits (`locator.indexTitle`; read here when the unit
 * did not come from listUnits), else the last `thread_name_updated` event, else null.
 */
function titleOf(context: Context, meta: CodexMeta): string | null {
  const locator = context.unit.locator;
  if (locator && "indexTitle" in locator)
    return typeof locator.indexTitle === "string" ? locator.indexTitle : meta.threadName;
  const home = codexHomeOf(context.path);
  if (home === null) return meta.threadName;
  try {
    const { titles, bytesRead } = readTitles(home);
    context.bytesRead += bytesRead;
    return titles.get(context.unit.sessionId) ?? meta.threadName;
  } catch {
    return meta.threadName;
  }
}
