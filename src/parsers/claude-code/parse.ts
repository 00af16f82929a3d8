/**
 * Parsing one Claude Code transcript into a `Session` and its `Turn`s, fully or resumed from a
 * {@link ClaudeResumeState} (docs/formats.md §1.2–§1.9). Pipeline, the same for both:
 *   1. decode lines → drop the parent copy inside `acompact`/`aside_question` agent files → metadata + tree records
 *      (sidechain lines marked);
 *   2. the records this unit owns (select.ts: the main conversation, a whole sub-agent file, or one inline sub-agent
 *      chain) → the active branch of every tree (tree.ts) → main turns, then rewound turns (turns.ts) → `Turn`s;
 *   3. resume state = records from the last turn's prompt onward + metadata + byte offset + prefix hash.
 * A resumed parse hashes the already-parsed prefix (resume.ts), decodes only the appended bytes,
 * re-groups only the last turn's records plus the new ones, and falls back to a full parse whenever
 * that could differ (file shrank, any prefix byte changed, a branch left the last turn or was rewound, the file
 * turned out to be a sub-agent's or not, a new `summary` record, other options).
 */
import { existsSync, readFileSync } from "node:fs";
import { SourceError } from "../../errors.ts";
import { fsReason } from "../file-stats.ts";
import type { RawLine } from "../shared/jsonl-lines.ts";
import { decodeAppended, decodeWhole, type LinePosition } from "../shared/resume-lines.ts";
import { hashOf } from "../shared/sha1.ts";
import { emptySkips, noteSkip } from "../shared/skips.ts";
import type { ParseOptions, ParseResult, SkipReport, SourceUnit } from "../types.ts";
import { applyMeta, createMeta, matchSummaries, type MetaState } from "./meta.ts";
import { noteQueued, notePromptSent, queuedNeverSent, type QueuedPrompts } from "./queue.ts";
import { toRec, type Rec, type RecOptions } from "./records.ts";
import { isUsableState, type ClaudeResumeState } from "./resume.ts";
import { describePath, parentTranscriptPath, type PathInfo } from "./scan.ts";
import { ownedRecords, inlineAgentLinks, unownedSidechainRecords, type Ownership } from "./select.ts";
import { buildSession, type SessionSource } from "./session.ts";
import { inlineSidechainRoots, splitUnitKey } from "./sidechains.ts";
import { createOutputResolver } from "./tool-results.ts";
import { findActivePaths } from "./tree.ts";
import { finishTurn, groupRewound, groupTurns, type TurnDraft } from "./turns.ts";

/** Per-parse context: the file, its kind, and the options. */
interface Context {
  unit: SourceUnit;
  /** The transcript file (a sidechain unit's key names a chain inside it). */
  path: string;
  info: PathInfo;
  /** First uuid of the inline sub-agent chain this unit is, or null (sidechains.ts). */
  sidechainRoot: string | null;
  withOutputs: boolean;
  recOptions: RecOptions;
  /** Uuids of the parent main file (copy agents only): lines with these uuids are the copied conversation. */
  copyUuids: Set<string> | null;
  /** Bytes read and decoded (the whole file, or only what was appended, plus side files). */
  bytesRead: number;
  /** Bytes read only to hash the already-parsed prefix of a resumed parse. */
  bytesVerified: number;
  skipped: SkipReport;
}

/** Mutable ingest state: metadata, records, every uuid seen (for summary leaves), what decides ownership. */
interface Ingest {
  meta: MetaState;
  recs: Rec[];
  uuids: Set<string>;
  sawSummary: boolean;
  /** A user/assistant line without `isSidechain: true` was seen (the file is a main conversation, not a sub-agent's). */
  sawMainLine: boolean;
  /** A user/assistant line with `isSidechain: true` was seen. */
  sawSidechainLine: boolean;
  /** Prompts typed while the agent was busy that no prompt line has matched yet (queue.ts). */
  queued: QueuedPrompts;
}

/**
 * Parse one transcript, resuming when `options.resume` is a usable state for this file.
 * @throws SourceError when the file cannot be opened or read at all, e.g.
 *   `cannot read claude code transcript /x/s.jsonl: permission denied` (the index keeps what it stored
 *   and retries the file on its next run)
 */
export function parseClaudeUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const context = createContext(unit, options.withOutputs === true);
  if (context.sidechainRoot === null && isUsableState(options.resume, context.withOutputs)) {
    const resumed = parseResumed(context, options.resume);
    if (resumed) return resumed;
  }
  return parseFull(context);
}

function createContext(unit: SourceUnit, withOutputs: boolean): Context {
  const { path, rootUuid } = splitUnitKey(unit.key);
  const info = describePath(path);
  const context: Context = {
    unit,
    path,
    info: rootUuid === null ? info : { ...info, kind: "sidechain" },
    sidechainRoot: rootUuid,
    withOutputs,
    copyUuids: null,
    bytesRead: 0,
    bytesVerified: 0,
    skipped: emptySkips(),
    recOptions: { withOutputs, resolveOutput: (text) => text },
  };
  if (withOutputs)
    context.recOptions.resolveOutput = createOutputResolver(path, (bytes) => {
      context.bytesRead += bytes;
    });
  return context;
}

function newIngest(
  meta: MetaState,
  recs: Rec[],
  seen: { sawMainLine: boolean; sawSidechainLine: boolean },
  queued: QueuedPrompts,
): Ingest {
  return { meta, recs, uuids: new Set(), sawSummary: false, ...seen, queued };
}

function parseFull(context: Context): ParseResult {
  const bytes = readWhole(context.path);
  context.bytesRead += bytes.length;
  if (context.info.kind === "acompact" || context.info.kind === "aside_question")
    context.copyUuids = readParentUuids(context);
  context.skipped = emptySkips();
  const decoded = decodeWhole(bytes, context.path, context.skipped);
  const ingest = newIngest(createMeta(), [], { sawMainLine: false, sawSidechainLine: false }, []);
  ingestLines(context, ingest, decoded.lines);
  const result = finish(context, ingest, decoded.partial, null, 1, decoded.position, null);
  if (!result) throw new Error("unreachable: a full parse has no anchor to miss");
  return result;
}

function parseResumed(context: Context, state: ClaudeResumeState): ParseResult | null {
  const decoded = decodeAppended(context.path, state, context.skipped);
  if (!decoded) return null;
  context.bytesVerified += decoded.bytesVerified;
  context.bytesRead += decoded.bytesRead;
  const seen = { sawMainLine: state.sawMainLine, sawSidechainLine: state.sawSidechainLine };
  const ingest = newIngest(structuredClone(state.meta), [...state.tail], seen, [...state.queued]);
  ingestLines(context, ingest, decoded.lines);
  // A first main or sidechain line can change what the whole file is (ownershipOf): parse it whole then.
  if (ingest.sawSummary || ingest.sawMainLine !== seen.sawMainLine || ingest.sawSidechainLine !== seen.sawSidechainLine)
    return null;
  return finish(context, ingest, decoded.partial, state.anchor, state.anchorTurn, decoded.position, state.lastTurnHash);
}

function readWhole(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new SourceError(`cannot read claude code transcript ${path}: ${fsReason(error)}`, path, { cause: error });
  }
}

/**
 * Uuids of the parent main file of a copy agent (`<dir>/<session>.jsonl`), or null when it is missing.
 * @throws SourceError when the parent exists but cannot be read
 */
function readParentUuids(context: Context): Set<string> | null {
  const parentPath = parentTranscriptPath(context.path);
  if (parentPath === null || !existsSync(parentPath)) return null;
  let text: string;
  try {
    text = readFileSync(parentPath, "utf8");
  } catch (error) {
    // Without the parent's uuids the copied conversation would be indexed twice: fail, be retried.
    throw new SourceError(
      `cannot read ${parentPath}, the parent transcript of ${context.path}: ${fsReason(error)}`,
      context.path,
      { cause: error },
    );
  }
  context.bytesRead += Buffer.byteLength(text);
  const uuids = new Set<string>();
  for (const match of text.matchAll(/"uuid":\s*"([^"]+)"/g)) uuids.add(match[1] as string);
  return uuids;
}

function ingestLines(context: Context, ingest: Ingest, lines: readonly RawLine[]): void {
  for (const { line, value } of lines) ingestOne(context, ingest, withTreeLinks(ingest, value, line), line);
}

/**
 * A conversation line without tree links (hand-written or converted transcripts, issue 11) is linked as the linear
 * conversation it was written as: without `uuid` it gets `line-<n>` (its 1-based line number: stable across resumed
 * parses, as the file only grows); without a `parentUuid` key at all, the previous tree record is its parent. Lines
 * that carry both are returned unchanged (every real line does; a real `parentUuid: null` is a root, §1.7).
 */
function withTreeLinks(ingest: Ingest, value: Record<string, unknown>, line: number): Record<string, unknown> {
  if (value.type !== "user" && value.type !== "assistant") return value;
  const hasUuid = typeof value.uuid === "string";
  if (hasUuid && "parentUuid" in value) return value;
  const parentUuid = "parentUuid" in value ? value.parentUuid : (ingest.recs.at(-1)?.u ?? null);
  return { ...value, uuid: hasUuid ? value.uuid : `line-${line}`, parentUuid };
}

function ingestOne(context: Context, ingest: Ingest, value: Record<string, unknown>, line: number): void {
  const uuid = typeof value.uuid === "string" ? value.uuid : null;
  if (uuid !== null) ingest.uuids.add(uuid);
  if (uuid !== null && context.copyUuids?.has(uuid)) return;
  if (value.type === "user" || value.type === "assistant") {
    if (value.isSidechain === true) ingest.sawSidechainLine = true;
    else ingest.sawMainLine = true;
  }
  if (value.type === "summary") ingest.sawSummary = true;
  if (value.type === "queue-operation") noteQueued(ingest.queued, value, `${context.path}:${line}`);
  applyMeta(ingest.meta, value);
  const rec = toRec(value, context.recOptions);
  if (!rec) return;
  if (rec.k === "prompt" && rec.prompt !== undefined) notePromptSent(ingest.queued, rec.prompt);
  ingest.recs.push(rec);
}

/** Which records a unit owns: an inline chain, a file of sub-agent lines only, or the main conversation. */
function ownershipOf(context: Context, ingest: Ingest): Ownership {
  if (context.sidechainRoot !== null) return { kind: "chain", rootUuid: context.sidechainRoot };
  if (context.info.kind !== "main") return { kind: "all" };
  // A main-named file is a sub-agent transcript only when it holds sidechain lines and no main line (issue 26: classify
  // by the whole file, not by its first line); one without any conversation line (summary-only, empty) is a main one.
  return ingest.sawSidechainLine && !ingest.sawMainLine ? { kind: "all" } : { kind: "main" };
}

/** Steps 2–3 of the pipeline for full (anchor null, firstNumber 1) and resumed parses. */
function finish(
  context: Context,
  ingest: Ingest,
  partial: RawLine | null,
  anchor: string | null,
  firstNumber: number,
  position: LinePosition,
  lastTurnHash: string | null,
): ParseResult | null {
  const stateMeta = structuredClone(ingest.meta);
  const stateQueued = [...ingest.queued];
  const completeRecs = ingest.recs;
  if (partial) {
    ingest.recs = [...completeRecs];
    ingestOne(context, ingest, withTreeLinks(ingest, partial.value, partial.line), partial.line);
  }
  matchSummaries(ingest.meta, ingest.uuids);
  const ownership = ownershipOf(context, ingest);
  const owned = ownedRecords(ingest.recs, ownership);
  const grouped = draftsOf(owned, anchor, firstNumber);
  if (!grouped) return null;
  const unowned = ownership.kind === "main" && ingest.sawSidechainLine ? unownedSidechain(context, ingest.recs) : [];
  // A resumed parse sees only the last turn onward: only a full parse counts unowned sidechain lines over the file.
  if (anchor !== null && unowned.length > 0) return null;
  const isSubagent = ownership.kind !== "main";
  const isWarmup = isSubagent && grouped.main[0]?.number === 1 && grouped.main[0].prompt === "Warmup";
  const links = ownership.kind === "main" ? inlineAgentLinks(ingest.recs) : new Map<string, string>();
  const finishAll = (drafts: TurnDraft[]) =>
    drafts.map((draft) => finishTurn(draft, context.unit.sessionId, isSubagent, context.withOutputs, links));
  const turns = isWarmup ? [] : finishAll(grouped.main);
  let fromTurn = anchor === null ? 1 : firstNumber;
  if (anchor !== null && turns[0] && lastTurnHash === hashOf(JSON.stringify(turns[0]))) {
    turns.shift();
    fromTurn++;
  }
  const turnCount = isWarmup ? 0 : (grouped.main.at(-1)?.number ?? firstNumber - 1);
  if (!isWarmup) turns.push(...finishAll(grouped.rewound));
  const session = buildSession(sessionSourceOf(context), ingest.meta, ingest.recs, owned, turnCount, isSubagent);
  if (ownership.kind === "main") queuedNeverSent(ingest.queued, lastPromptTime(owned), context.skipped);
  for (const rec of unowned)
    noteSkip(context.skipped, `${context.path}: message ${rec.u}`, "sub-agent line in a main transcript");
  // Copy agents (acompact, aside_question) need the parent's uuids and inline chains the whole file: never resumed;
  // nor is a main file with sidechain lines no unit owns, whose count covers the whole file.
  const resumable = !isWarmup && unowned.length === 0 && (context.info.kind === "main" || context.info.kind === "task");
  let resume: ClaudeResumeState | undefined;
  if (resumable) {
    const stateGrouped = partial ? draftsOf(ownedRecords(completeRecs, ownership), anchor, firstNumber) : grouped;
    if (stateGrouped) {
      matchSummaries(stateMeta, ingest.uuids);
      const state = {
        recs: completeRecs,
        meta: stateMeta,
        queued: stateQueued,
        sawMainLine: ingest.sawMainLine,
        sawSidechainLine: ingest.sawSidechainLine,
      };
      resume = buildState(context, state, stateGrouped.main, firstNumber, position, isSubagent, links);
    }
  }
  // An inline chain's undecodable lines are the main file's, counted there.
  const skipped = context.sidechainRoot === null ? { ...context.skipped } : emptySkips();
  return {
    session,
    turns,
    fromTurn,
    resume,
    bytesRead: context.bytesRead,
    bytesVerified: context.bytesVerified,
    skipped,
  };
}

/**
 * Main and rewound drafts of the owned records; null when a resumed parse cannot continue: its anchor fell off the
 * active branch, a record after it hangs off a record before it (a rewind, or a branch from an earlier turn: only the
 * whole file places it), or the new records hold a rewound branch, whose turns are numbered over the whole file.
 */
function draftsOf(
  recs: readonly Rec[],
  anchor: string | null,
  firstNumber: number,
): { main: TurnDraft[]; rewound: TurnDraft[] } | null {
  if (anchor !== null && hangsOffThePrefix(recs, anchor)) return null;
  const paths = findActivePaths(recs, anchor);
  if (!paths.reachedAnchor) return null;
  const { drafts, used } = groupTurns(recs, paths.onPath, firstNumber);
  const rewound = groupRewound(recs, paths.onPath, used);
  if (anchor !== null && rewound.length > 0) return null;
  return { main: drafts, rewound };
}

/** True when a user/assistant record other than the anchor names a parent that is not among `recs`. */
function hangsOffThePrefix(recs: readonly Rec[], anchor: string): boolean {
  const known = new Set(recs.map((rec) => rec.u));
  return recs.some((rec) => {
    const parent = rec.p ?? rec.lp;
    return rec.conv && rec.u !== anchor && parent !== null && parent !== undefined && !known.has(parent);
  });
}

/**
 * The sidechain records of a main file that no sub-agent unit owns (issue 37: a 2.x main file's sidechain lines got no
 * session and no count); finish() counts them as `sub-agent line in a main transcript`, placed `<path>: message
 * <uuid>`. The chain units are the ones listUnits made (sidechains.ts `inlineSidechainRoots`, which reads the file
 * again: only files with sidechain lines pay it).
 */
function unownedSidechain(context: Context, recs: readonly Rec[]): Rec[] {
  return unownedSidechainRecords(recs, new Set(inlineSidechainRoots(context.path)));
}

/** Time of the last prompt record, epoch ms (0 when none). */
function lastPromptTime(recs: readonly Rec[]): number {
  let latest = 0;
  for (const rec of recs) if (rec.k === "prompt" && rec.t > latest) latest = rec.t;
  return latest;
}

/** What the resume state keeps besides the drafts: the complete records, metadata, queued prompts, ownership. */
interface StateParts {
  recs: Rec[];
  meta: MetaState;
  queued: QueuedPrompts;
  sawMainLine: boolean;
  sawSidechainLine: boolean;
}

function buildState(
  context: Context,
  parts: StateParts,
  drafts: TurnDraft[],
  firstNumber: number,
  position: LinePosition,
  isSubagent: boolean,
  links: ReadonlyMap<string, string>,
): ClaudeResumeState {
  const last = drafts.at(-1);
  const lastTurn = last ? finishTurn(last, context.unit.sessionId, isSubagent, context.withOutputs, links) : null;
  const anchor = last ? last.anchorUuid : null;
  const tailStart = anchor === null ? 0 : parts.recs.findIndex((rec) => rec.u === anchor);
  return {
    kind: "claude-code/v5",
    offset: position.offset,
    lineCount: position.lineCount,
    prefixHash: position.prefixHash,
    skipped: position.skipped,
    withOutputs: context.withOutputs,
    anchor,
    anchorTurn: last ? last.number : firstNumber,
    lastTurnHash: lastTurn ? hashOf(JSON.stringify(lastTurn)) : null,
    tail: parts.recs.slice(Math.max(0, tailStart)),
    meta: parts.meta,
    sawMainLine: parts.sawMainLine,
    sawSidechainLine: parts.sawSidechainLine,
    queued: parts.queued,
  };
}

/** The facts session.ts needs of the parse context. */
function sessionSourceOf(context: Context): SessionSource {
  return {
    sessionId: context.unit.sessionId,
    path: context.path,
    sidechainRoot: context.sidechainRoot,
    parentFromPath: context.info.parentFromPath,
    onRead: (bytes) => {
      context.bytesRead += bytes;
    },
  };
}
