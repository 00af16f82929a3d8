/**
 * Parsing one Claude Code transcript into a `Session` and its `Turn`s, fully or resumed from a
 * {@link ClaudeResumeState} (docs/formats.md §1.2–§1.9). Pipeline, the same for both:
 *   1. decode lines → drop excluded lines (inline sidechains of a main file; the parent copy inside
 *      `acompact`/`aside_question` agent files) → metadata + tree records;
 *   2. active branch (tree.ts) → turns (turns.ts) → `Turn`s;
 *   3. resume state = records from the last turn's prompt onward + metadata + byte offset + prefix hash.
 * A resumed parse hashes the already-parsed prefix (resume.ts), decodes only the appended bytes,
 * re-groups only the last turn's records plus the new ones, and falls back to a full parse whenever
 * that could differ (file shrank, any prefix byte changed, the branch left the last turn, a new
 * `summary` record, other options).
 */
import { existsSync, readFileSync } from "node:fs";
import { SourceError } from "../../errors.ts";
import { fsReason } from "../file-stats.ts";
import { projectNameOf } from "../shared/fields.ts";
import type { RawLine } from "../shared/jsonl-lines.ts";
import { decodeAppended, decodeWhole, type LinePosition } from "../shared/resume-lines.ts";
import { hashOf } from "../shared/sha1.ts";
import type { ParseOptions, ParseResult, Session, SkipReport, SourceUnit } from "../types.ts";
import { applyMeta, createMeta, matchSummaries, pickTitle, type MetaState } from "./meta.ts";
import { toRec, type Rec, type RecOptions } from "./records.ts";
import { isUsableState, type ClaudeResumeState } from "./resume.ts";
import { describePath, parentTranscriptPath, type PathInfo } from "./scan.ts";
import { createOutputResolver } from "./tool-results.ts";
import { findActivePath } from "./tree.ts";
import { finishTurn, groupTurns, type TurnDraft } from "./turns.ts";

/** Per-parse context: the file, its kind, and the options. */
interface Context {
  unit: SourceUnit;
  path: string;
  info: PathInfo;
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

/** Mutable ingest state: metadata, sub-agent mode, records and every uuid seen (for summary leaves). */
interface Ingest {
  meta: MetaState;
  agentMode: boolean | null;
  recs: Rec[];
  uuids: Set<string>;
  sawSummary: boolean;
}

/**
 * Parse one transcript, resuming when `options.resume` is a usable state for this file.
 * @throws SourceError when the file cannot be opened or read at all, e.g.
 *   `cannot read claude code transcript /x/s.jsonl: permission denied` (the index keeps what it stored
 *   and retries the file on its next run)
 */
export function parseClaudeUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const context = createContext(unit, options.withOutputs === true);
  if (isUsableState(options.resume, context.withOutputs)) {
    const resumed = parseResumed(context, options.resume);
    if (resumed) return resumed;
  }
  return parseFull(context);
}

function createContext(unit: SourceUnit, withOutputs: boolean): Context {
  const path = unit.key;
  const context: Context = {
    unit,
    path,
    info: describePath(path),
    withOutputs,
    copyUuids: null,
    bytesRead: 0,
    bytesVerified: 0,
    skipped: { count: 0 },
    recOptions: { withOutputs, resolveOutput: (text) => text },
  };
  if (withOutputs)
    context.recOptions.resolveOutput = createOutputResolver(path, (bytes) => (context.bytesRead += bytes));
  return context;
}

function parseFull(context: Context): ParseResult {
  const bytes = readWhole(context.path);
  context.bytesRead += bytes.length;
  if (context.info.kind === "acompact" || context.info.kind === "aside_question")
    context.copyUuids = readParentUuids(context);
  context.skipped = { count: 0 };
  const decoded = decodeWhole(bytes, context.path, context.skipped);
  const ingest: Ingest = {
    meta: createMeta(),
    agentMode: context.info.kind === "main" ? null : true,
    recs: [],
    uuids: new Set(),
    sawSummary: false,
  };
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
  const meta = structuredClone(state.meta);
  const ingest: Ingest = {
    meta,
    agentMode: state.agentMode,
    recs: [...state.tail],
    uuids: new Set(),
    sawSummary: false,
  };
  ingestLines(context, ingest, decoded.lines);
  if (ingest.sawSummary) return null;
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
  for (const { line, value } of lines) ingestOne(context, ingest, withTreeLinks(ingest, value, line));
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

function ingestOne(context: Context, ingest: Ingest, value: Record<string, unknown>): void {
  const uuid = typeof value.uuid === "string" ? value.uuid : null;
  if (uuid !== null) ingest.uuids.add(uuid);
  if (uuid !== null && context.copyUuids?.has(uuid)) return;
  if (ingest.agentMode === null && (value.type === "user" || value.type === "assistant")) {
    // A file not named agent-* whose first message is a sidechain line is a sub-agent transcript (§1.8).
    ingest.agentMode = value.isSidechain === true;
  }
  if (ingest.agentMode === false && value.isSidechain === true) return;
  if (value.type === "summary") ingest.sawSummary = true;
  applyMeta(ingest.meta, value);
  const rec = toRec(value, context.recOptions);
  if (rec) ingest.recs.push(rec);
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
  const stateAgentMode = ingest.agentMode;
  const completeRecs = ingest.recs;
  if (partial) {
    ingest.recs = [...completeRecs];
    ingestOne(context, ingest, withTreeLinks(ingest, partial.value, partial.line));
  }
  matchSummaries(ingest.meta, ingest.uuids);
  const drafts = draftsOf(ingest.recs, anchor, firstNumber);
  if (!drafts) return null;
  const isSubagent = ingest.agentMode === true;
  const isWarmup = isSubagent && drafts[0]?.number === 1 && drafts[0].prompt === "Warmup";
  const turns = isWarmup
    ? []
    : drafts.map((draft) => finishTurn(draft, context.unit.sessionId, isSubagent, context.withOutputs));
  let fromTurn = anchor === null ? 1 : firstNumber;
  if (anchor !== null && turns[0] && lastTurnHash === hashOf(JSON.stringify(turns[0]))) {
    turns.shift();
    fromTurn++;
  }
  const turnCount = isWarmup ? 0 : (drafts.at(-1)?.number ?? firstNumber - 1);
  const session = buildSession(context, ingest, turnCount, isSubagent);
  // Copy agents (acompact, aside_question) are written once and need the parent's uuids: never resumed.
  const resumable = !isWarmup && (context.info.kind === "main" || context.info.kind === "task");
  let resume: ClaudeResumeState | undefined;
  if (resumable) {
    const stateDrafts = partial ? draftsOf(completeRecs, anchor, firstNumber) : drafts;
    if (stateDrafts) {
      matchSummaries(stateMeta, ingest.uuids);
      resume = buildState(
        context,
        completeRecs,
        stateDrafts,
        firstNumber,
        position,
        stateMeta,
        stateAgentMode,
        isSubagent,
      );
    }
  }
  return {
    session,
    turns,
    fromTurn,
    resume,
    bytesRead: context.bytesRead,
    bytesVerified: context.bytesVerified,
    skipped: { ...context.skipped },
  };
}

function draftsOf(recs: readonly Rec[], anchor: string | null, firstNumber: number): TurnDraft[] | null {
  const path = findActivePath(recs, anchor);
  if (!path.reachedAnchor) return null;
  return groupTurns(recs, path.onPath, firstNumber);
}

function buildState(
  context: Context,
  recs: Rec[],
  drafts: TurnDraft[],
  firstNumber: number,
  position: LinePosition,
  meta: MetaState,
  agentMode: boolean | null,
  isSubagent: boolean,
): ClaudeResumeState {
  const last = drafts.at(-1);
  const lastTurn = last ? finishTurn(last, context.unit.sessionId, isSubagent, context.withOutputs) : null;
  return {
    kind: "claude-code/v2",
    offset: position.offset,
    lineCount: position.lineCount,
    prefixHash: position.prefixHash,
    skipped: position.skipped,
    withOutputs: context.withOutputs,
    anchor: last ? (recs[last.promptIndex]?.u ?? null) : null,
    anchorTurn: last ? last.number : firstNumber,
    lastTurnHash: lastTurn ? hashOf(JSON.stringify(lastTurn)) : null,
    tail: last ? recs.slice(last.promptIndex) : recs,
    meta,
    agentMode,
  };
}

function buildSession(context: Context, ingest: Ingest, turnCount: number, isSubagent: boolean): Session {
  const { meta } = ingest;
  const projectPath = meta.cwd ?? "";
  let parentSessionId: string | null = null;
  if (isSubagent) {
    parentSessionId = meta.sessionIdField ?? context.info.parentFromPath;
    if (parentSessionId === context.unit.sessionId) parentSessionId = null;
  }
  return {
    id: context.unit.sessionId,
    source: "claude-code",
    projectPath,
    projectName: projectNameOf(projectPath),
    gitBranch: meta.branch,
    startedAt: meta.startedAt,
    endedAt: meta.endedAt,
    title: pickTitle(meta, isSubagent ? readAgentDescription(context) : null),
    turnCount,
    parentSessionId,
    isSubagent,
    location: context.path,
  };
}

/** `description` of `agent-<id>.meta.json` next to a nested sub-agent file (§1.1), or null. */
function readAgentDescription(context: Context): string | null {
  const metaPath = context.path.replace(/\.jsonl$/, ".meta.json");
  if (metaPath === context.path || !existsSync(metaPath)) return null;
  try {
    const text = readFileSync(metaPath, "utf8");
    context.bytesRead += Buffer.byteLength(text);
    const value: unknown = JSON.parse(text);
    const description = (value as { description?: unknown } | null)?.description;
    return typeof description === "string" && description.trim() ? description.trim() : null;
  } catch {
    return null;
  }
}
