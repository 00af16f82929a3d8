/**
 * Parsing one Gemini CLI session (all its files, units.ts) into a `Session` and `Turn`s, formats.md §4.
 * Full parse: 1. read and decode every file (decode.ts, format by content); 2. merge messages by id
 * across files (first place kept, last version wins; a `.json` and its `.jsonl` twin: the twin decides for
 * every id it ever held), order by time, group into turns (turns.ts), and what `$rewindTo`s cut that no file holds
 * into rewound turns (-1, -2, …, issue 26); 3. resume state (resume.ts): `whole` when the newest file is JSON,
 * `append` when it is JSONL.
 * An `append` resume hashes the newest file's parsed prefix, decodes only the appended bytes on top of
 * the last turn's messages, and parses fully whenever that could differ (another file changed, the
 * prefix changed, a record touches a message before the last turn, a `$set.messages` checkpoint, a
 * rewind, a message sorting before the last prompt, a session with rewound turns resumed from turn 1, other
 * options). A `whole` resume parses fully and returns the turns from the first one whose hash changed.
 * `skipped` covers the whole session in every case (issue 26): records no message came from, and what
 * messages hold that no turn can (turns.ts), the latter at `<newest file>: message <id>`.
 */
import { readFileSync, statSync } from "node:fs";
import { SourceError } from "../../errors.ts";
import { fsReason, statFingerprint } from "../file-stats.ts";
import { projectNameOf } from "../shared/fields.ts";
import type { RawLine } from "../shared/jsonl-lines.ts";
import { withAbstract } from "../shared/abstract.ts";
import { prefixHashOf, readAppended } from "../shared/prefix-hash.ts";
import type { LinePosition } from "../shared/resume-lines.ts";
import { hashOf } from "../shared/sha1.ts";
import { copySkips, emptySkips, mergeSkips, noteSkip } from "../shared/skips.ts";
import type { ParseOptions, ParseResult, Session, SkipReport, SourceUnit } from "../types.ts";
import {
  applyLine,
  decodeJsonDocument,
  decodeJsonl,
  detectFormat,
  splitLines,
  type DecodedChat,
  type LineTarget,
} from "./decode.ts";
import { isProjectHash, matchProjectHash, shortProjectName } from "./projects.ts";
import { MessageStore, type ChatMeta, type GeminiMessage } from "./records.ts";
import { geminiStateKind, isUsableState, type GeminiResumeState } from "./resume.ts";
import { groupTurns, orderByTime, type GroupedTurns, type Unplaced } from "./turns.ts";

/** Per-parse context. */
interface Context {
  unit: SourceUnit;
  /** The session's files in merge order; the newest last. */
  files: string[];
  withOutputs: boolean;
  bytesRead: number;
  bytesVerified: number;
  skipped: SkipReport;
}

/**
 * Parse one session, resuming when `options.resume` is a usable state for the same files.
 * @throws SourceError when a file of the session cannot be read, or is a JSON document cut mid-write
 *   (`/x/chats/session-….json is not a complete json document (being written?)`): the index keeps
 *   what it stored and retries on its next run
 */
export function parseGeminiUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const listed = typeof unit.locator?.files === "string" ? unit.locator.files.split("\n").filter(Boolean) : [];
  const context: Context = {
    unit,
    files: listed.length > 0 ? listed : [unit.containerPath],
    withOutputs: options.withOutputs === true,
    bytesRead: 0,
    bytesVerified: 0,
    skipped: emptySkips(),
  };
  const state =
    isUsableState(options.resume, context.withOutputs) && olderFilesUnchanged(context, options.resume)
      ? options.resume
      : undefined;
  if (state?.mode === "append") {
    const resumed = parseAppended(context, state);
    if (resumed) return resumed;
    context.bytesRead = 0;
    context.bytesVerified = 0;
    context.skipped = emptySkips();
  }
  const full = parseFull(context);
  return state?.mode === "whole" ? keepChangedTurns(full, state.turnHashes) : full;
}

/** Stats fingerprint of a file, or "-" when it cannot be stat'ed now (then no later state matches it). */
function fingerprintOrMissing(path: string): string {
  try {
    return statFingerprint(statSync(path));
  } catch {
    return "-";
  }
}

/** True when the state lists the same files and every file but the newest still has its fingerprint. */
function olderFilesUnchanged(context: Context, state: GeminiResumeState): boolean {
  if (state.files.length !== context.files.length || state.files.some((file, index) => file !== context.files[index]))
    return false;
  return context.files.slice(0, -1).every((file, index) => {
    const fingerprint = fingerprintOrMissing(file);
    return fingerprint !== "-" && fingerprint === state.olderFingerprints[index];
  });
}

function readWhole(path: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new SourceError(`cannot read gemini cli chat ${path}: ${fsReason(error)}`, path, { cause: error });
  }
}

/**
 * Decode one file by its content, counting what it cannot place into `context.skipped`. The unterminated last line
 * of the newest file is returned undecided (its skip, when it is not JSON, goes to `partialSkipped`); that of an older
 * file, which is never resumed by offset, is applied here.
 * @throws SourceError for a JSON document cut mid-write
 */
function decodeFile(
  context: Context,
  path: string,
  isNewest: boolean,
  partialSkipped: SkipReport,
): DecodedChat & { bytes: Buffer } {
  const bytes = readWhole(path);
  context.bytesRead += bytes.length;
  const detected = detectFormat(bytes.toString("utf8"));
  if (detected === "broken") {
    throw new SourceError(`${path} is not a complete json document (being written?)`, path);
  }
  if (detected.format === "json" && detected.document)
    return { ...decodeJsonDocument(detected.document, path, context.withOutputs, context.skipped), bytes };
  const decoded = decodeJsonl(
    bytes,
    path,
    context.withOutputs,
    context.skipped,
    isNewest ? partialSkipped : context.skipped,
  );
  if (!isNewest && decoded.partial) {
    applyLine(decoded.partial.value, decoded.partial.line, lineTarget(context, path, decoded.meta, decoded.store));
    return { ...decoded, partial: null, bytes };
  }
  return { ...decoded, bytes };
}

function lineTarget(context: Context, path: string, meta: ChatMeta, store: MessageStore): LineTarget {
  return { meta, store, withOutputs: context.withOutputs, path, skipped: context.skipped };
}

/**
 * Messages of the session's files merged by id: first place kept, last version wins. A `.json` file whose `.jsonl`
 * twin is also listed (CLI ≥ 0.39 copies a resumed `.json` whole into the `.jsonl` and continues there,
 * chatRecordingService.ts `initialize`) adds only the ids the twin never held: the twin's rewinds hold, and a message
 * written to the `.json` alone (an older CLI run after the copy) is kept.
 */
function mergeMessages(files: readonly string[], stores: readonly MessageStore[]): GeminiMessage[] {
  const byId = new Map<string, GeminiMessage>();
  stores.forEach((store, index) => {
    const file = files[index]!;
    const twin = file.endsWith(".json") ? stores[files.indexOf(`${file}l`)] : undefined;
    for (const message of store.values()) if (!twin?.hasSeen(message.id)) byId.set(message.id, message);
  });
  return [...byId.values()];
}

/**
 * The messages the session's rewinds cut (`$rewindTo`, records.ts `rewoundValues`) that no file holds now, merged by
 * id as {@link mergeMessages} merges the held ones: the rewound turns' messages (issue 26, as Claude Code's rewound
 * branches: a prompt the person rewound past stays searchable).
 */
function mergeRewound(stores: readonly MessageStore[], held: readonly GeminiMessage[]): GeminiMessage[] {
  const heldIds = new Set(held.map((message) => message.id));
  const byId = new Map<string, GeminiMessage>();
  for (const store of stores)
    for (const message of store.rewoundValues()) if (!heldIds.has(message.id)) byId.set(message.id, message);
  return [...byId.values()];
}

/**
 * The rewound turns of `messages` (ordered), numbered -1, -2, … (types.ts `Turn`), and what they hold that no turn can.
 */
function groupRewound(
  messages: readonly GeminiMessage[],
  sessionId: string,
  isSubagent: boolean,
  withOutputs: boolean,
): GroupedTurns {
  const grouped = groupTurns(messages, 1, sessionId, isSubagent, withOutputs);
  for (const turn of grouped.turns) turn.number = -turn.number;
  return grouped;
}

/** The newest file's store with its unterminated last line applied (a copy), or null when it touches prior ids. */
function withPartial(
  decoded: { meta: ChatMeta; store: MessageStore },
  partial: RawLine | null,
  context: Context,
  resume: LineTarget["resume"],
): { meta: ChatMeta; store: MessageStore } | null {
  if (!partial) return decoded;
  const meta = structuredClone(decoded.meta);
  const store = decoded.store.copy();
  const target = { ...lineTarget(context, context.files.at(-1)!, meta, store), resume };
  return applyLine(partial.value, partial.line, target) === "touches-prior" ? null : { meta, store };
}

/** Count what no turn holds (`from` ≤ index < `to`) at `<newest file>: message <id>`. */
function noteUnplaced(
  report: SkipReport,
  context: Context,
  unplaced: readonly Unplaced[],
  from = 0,
  to = Infinity,
): void {
  for (const entry of unplaced) {
    if (entry.index >= from && entry.index < to)
      noteSkip(report, `${context.files.at(-1)}: message ${entry.id}`, entry.reason);
  }
}

function parseFull(context: Context): ParseResult {
  const partialSkipped = emptySkips();
  const decoded = context.files.map((file, index) =>
    decodeFile(context, file, index === context.files.length - 1, partialSkipped),
  );
  const completeSkipped = copySkips(context.skipped);
  mergeSkips(context.skipped, partialSkipped);
  const newest = decoded.at(-1)!;
  const older = decoded.slice(0, -1);
  const final = withPartial(newest, newest.partial, context, undefined)!;
  const stores = [...older.map((chat) => chat.store), final.store];
  const ordered = orderByTime(mergeMessages(context.files, stores));
  const metas = [...older.map((chat) => chat.meta), final.meta];
  const isSubagent = isSubagentSession(context.unit, metas);
  const grouped = groupTurns(ordered, 1, context.unit.sessionId, isSubagent, context.withOutputs);
  noteUnplaced(context.skipped, context, grouped.unplaced);
  const rewound = groupRewound(
    orderByTime(mergeRewound(stores, ordered)),
    context.unit.sessionId,
    isSubagent,
    context.withOutputs,
  );
  noteUnplaced(context.skipped, context, rewound.unplaced);
  const session = buildSession(context, metas, grouped.turns.length, isSubagent);
  let resume: GeminiResumeState;
  if (newest.format === "json") {
    resume = baseState(
      context,
      "whole",
      older.map((chat) => chat.meta),
      newest.meta,
    );
    resume.turnHashes = grouped.turns.map((turn) => hashOf(JSON.stringify(turn)));
  } else {
    const completeOrdered = newest.partial
      ? orderByTime(mergeMessages(context.files, [...older.map((chat) => chat.store), newest.store]))
      : ordered;
    const completeGrouped = newest.partial
      ? groupTurns(completeOrdered, 1, context.unit.sessionId, isSubagent, context.withOutputs)
      : grouped;
    const position = {
      offset: newest.completeBytes,
      lineCount: newest.lineCount,
      prefixHash: prefixHashOf(newest.bytes, newest.completeBytes),
      skipped: completeSkipped,
    };
    resume = appendState(
      context,
      older.map((chat) => chat.meta),
      newest.meta,
      completeOrdered,
      completeGrouped,
      1,
      [],
      null,
      position,
      emptySkips(),
    );
  }
  resume.rewoundTurns = rewound.turns.length;
  return {
    session,
    turns: [...grouped.turns, ...rewound.turns],
    fromTurn: 1,
    resume,
    bytesRead: context.bytesRead,
    bytesVerified: 0,
    skipped: copySkips(context.skipped),
  };
}

function parseAppended(context: Context, state: GeminiResumeState): ParseResult | null {
  const newestPath = context.files.at(-1)!;
  let read: ReturnType<typeof readAppended>;
  try {
    read = readAppended(newestPath, state.offset, state.prefixHash);
  } catch {
    return null; // the full parse reports why the file cannot be read
  }
  if (!read) return null;
  context.bytesVerified = state.offset;
  context.bytesRead = read.appended.length;
  context.skipped = copySkips(state.skipped);
  const partialSkipped = emptySkips();
  const split = splitLines(read.appended, state.lineCount + 1, newestPath, context.skipped, partialSkipped);
  const meta = structuredClone(state.meta);
  const store = new MessageStore(state.tail);
  const resume = { prior: new Set(state.priorIds), merged: context.files.length > 1 };
  const target = { ...lineTarget(context, newestPath, meta, store), resume };
  for (const { line, value } of split.lines) {
    if (applyLine(value, line, target) === "touches-prior") return null;
  }
  const completeSkipped = copySkips(context.skipped);
  mergeSkips(context.skipped, partialSkipped);
  const completeOrdered = orderByTime(store.values());
  if (state.anchor !== null && completeOrdered[0]?.id !== state.anchor) return null;
  const final = withPartial({ meta, store }, split.partial, context, resume);
  if (!final) return null;
  const ordered = split.partial ? orderByTime(final.store.values()) : completeOrdered;
  if (state.anchor !== null && ordered[0]?.id !== state.anchor) return null;
  const metas = [...state.olderMetas, final.meta];
  const isSubagent = isSubagentSession(context.unit, metas);
  const firstNumber = state.anchor === null ? 1 : state.anchorTurn;
  const grouped = groupTurns(ordered, firstNumber, context.unit.sessionId, isSubagent, context.withOutputs);
  // What the messages before the anchor held that no turn does is in the state; with no anchor the tail is all.
  mergeSkips(context.skipped, state.prefixSkipped);
  noteUnplaced(context.skipped, context, grouped.unplaced);
  let turns = grouped.turns;
  let fromTurn = firstNumber;
  if (state.anchor !== null && turns[0] && hashOf(JSON.stringify(turns[0])) === state.lastTurnHash) {
    turns = turns.slice(1);
    fromTurn++;
  }
  if (fromTurn === 1 && (state.rewoundTurns ?? 0) > 0) return null; // a parse from turn 1 holds the rewound turns too
  const session = buildSession(context, metas, firstNumber - 1 + grouped.turns.length, isSubagent);
  const completeGrouped = split.partial
    ? groupTurns(completeOrdered, firstNumber, context.unit.sessionId, isSubagent, context.withOutputs)
    : grouped;
  const position = {
    offset: state.offset + split.completeBytes,
    lineCount: state.lineCount + split.lineCount,
    prefixHash: read.digestThrough(split.completeBytes),
    skipped: completeSkipped,
  };
  const next = appendState(
    context,
    state.olderMetas,
    meta,
    completeOrdered,
    completeGrouped,
    firstNumber,
    state.priorIds,
    state.anchor,
    position,
    state.prefixSkipped,
  );
  next.rewoundTurns = state.rewoundTurns;
  return {
    session,
    turns,
    fromTurn,
    resume: next,
    bytesRead: context.bytesRead,
    bytesVerified: context.bytesVerified,
    skipped: copySkips(context.skipped),
  };
}

function baseState(
  context: Context,
  mode: GeminiResumeState["mode"],
  olderMetas: ChatMeta[],
  meta: ChatMeta,
): GeminiResumeState {
  return {
    kind: geminiStateKind,
    mode,
    withOutputs: context.withOutputs,
    files: context.files,
    olderFingerprints: context.files.slice(0, -1).map(fingerprintOrMissing),
    turnHashes: [],
    offset: 0,
    lineCount: 0,
    prefixHash: "",
    anchor: null,
    anchorTurn: 1,
    lastTurnHash: null,
    tail: [],
    skipped: emptySkips(),
    prefixSkipped: emptySkips(),
    priorIds: [],
    meta,
    olderMetas,
  };
}

/**
 * An `append` state from the complete lines' ordered messages and turns: the tail starts at the last
 * turn's prompt (or, with no turn yet, keeps the previous anchor and every message after it).
 * `prefixSkipped` = what the messages before the previous anchor held that no turn does; the messages
 * between it and the new anchor add theirs.
 */
function appendState(
  context: Context,
  olderMetas: ChatMeta[],
  meta: ChatMeta,
  ordered: GeminiMessage[],
  grouped: GroupedTurns,
  firstNumber: number,
  priorIds: string[],
  previousAnchor: string | null,
  position: LinePosition & { skipped: SkipReport },
  prefixSkipped: SkipReport,
): GeminiResumeState {
  const state = baseState(context, "append", olderMetas, meta);
  Object.assign(state, position);
  const lastIndex = grouped.promptIndexes.at(-1);
  const lastTurn = grouped.turns.at(-1);
  if (lastIndex === undefined || !lastTurn) {
    state.anchor = previousAnchor;
    state.anchorTurn = firstNumber;
    state.tail = ordered;
    state.priorIds = priorIds;
    state.prefixSkipped = copySkips(prefixSkipped);
    return state;
  }
  state.anchor = ordered[lastIndex]!.id;
  state.anchorTurn = lastTurn.number;
  state.lastTurnHash = hashOf(JSON.stringify(lastTurn));
  state.tail = ordered.slice(lastIndex);
  state.priorIds = [...priorIds, ...ordered.slice(0, lastIndex).map((message) => message.id)];
  state.prefixSkipped = copySkips(prefixSkipped);
  noteUnplaced(state.prefixSkipped, context, grouped.unplaced, 0, lastIndex);
  return state;
}

/** A `whole` resume: the full parse's turns from the first one whose hash differs from the last parse's. */
function keepChangedTurns(full: ParseResult, previousHashes: readonly string[]): ParseResult {
  let first = 0;
  while (
    first < full.turns.length &&
    first < previousHashes.length &&
    hashOf(JSON.stringify(full.turns[first])) === previousHashes[first]
  )
    first++;
  return { ...full, turns: full.turns.slice(first), fromTurn: first + 1 };
}

/** Sub-agent: nested under a parent's folder (units.ts), or `kind: "subagent"` in a header (§4.2). */
function isSubagentSession(unit: SourceUnit, metas: readonly ChatMeta[]): boolean {
  return unit.locator?.isNested === true || metas.some((meta) => meta.kind === "subagent");
}

/**
 * The project path: the unit's (`.project_root`, learnt from another folder with the same `projectHash`, or matched
 * against the registry, units.ts), else a workspace directory (or a parent of one) whose SHA-256 is the folder's
 * hash or a `projectHash` (projects.ts), else "" (unknown).
 */
function resolveProjectPath(unit: SourceUnit, metas: readonly ChatMeta[]): string {
  const known = unit.locator?.projectPath;
  if (typeof known === "string" && known) return known;
  const folder = typeof unit.locator?.projectDir === "string" ? unit.locator.projectDir : "";
  const hashes = [folder, ...metas.map((meta) => meta.projectHash ?? "")].filter(isProjectHash);
  return (
    matchProjectHash(
      hashes,
      metas.flatMap((meta) => meta.directories),
    ) ?? ""
  );
}

function buildSession(context: Context, metas: readonly ChatMeta[], turnCount: number, isSubagent: boolean): Session {
  const { unit } = context;
  const projectPath = resolveProjectPath(unit, metas);
  const starts = metas.flatMap((meta) => [meta.startTime, meta.firstMessageAt]).filter((t) => t > 0);
  const ends = metas.flatMap((meta) => [meta.lastUpdated, meta.lastMessageAt]).filter((t) => t > 0);
  const title =
    metas
      .map((meta) => meta.summary)
      .filter((summary): summary is string => !!summary)
      .at(-1) ?? null;
  const parent = typeof unit.locator?.parentSessionId === "string" ? unit.locator.parentSessionId : null;
  const projectDir = typeof unit.locator?.projectDir === "string" ? unit.locator.projectDir : "";
  const session: Session = {
    id: unit.sessionId,
    source: "gemini-cli",
    projectPath,
    projectName: projectPath ? projectNameOf(projectPath) : shortProjectName(projectDir),
    gitBranch: null, // Gemini CLI records no branch
    startedAt: starts.length > 0 ? Math.min(...starts) : 0,
    endedAt: ends.length > 0 ? Math.max(...ends) : 0,
    title,
    turnCount,
    parentSessionId: isSubagent && parent !== unit.sessionId ? parent : null,
    isSubagent,
    location: context.files.at(-1)!,
  };
  return withAbstract(
    session,
    metas.flatMap((meta) => meta.abstract),
  );
}
