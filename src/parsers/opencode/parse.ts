/**
 * Listing the sessions of OpenCode containers and parsing one (../opencode.ts's parser): loaded at its first use, so a
 * search's freshness check and resume commands never load it (issue 42, cold start).
 */
import { reportUnavailable } from "../shared/database-units.ts";
import { relative } from "node:path";
import { SourceError } from "../../errors.ts";
import { errorCode, fsReason } from "../file-stats.ts";
import type { OpencodeParserOptions } from "../opencode.ts";
import type { ParseOptions, ParseResult, ParserHooks, SourceContainer, SourceUnit } from "../types.ts";
import { opencodeAbstract } from "./abstract.ts";
import { buildSession, buildTurns, sortMessages, type RawConversation } from "./messages.ts";
import { noteSkip } from "../shared/skips.ts";
import { withAbstract } from "../shared/abstract.ts";
import { containerKind, type ContainerKind } from "./scan.ts";
import { listDbSessions, loadDbConversation, openOpencodeDatabase } from "./sqlite.ts";
import { describeSqliteError } from "../shared/readonly-sqlite.ts";
import { listJsonSessions, loadJsonConversation, type JsonSessionEntry } from "./json-storage.ts";
import { listLegacySessions, loadLegacyConversation } from "./legacy.ts";

/** Preference when one session id appears in several containers: databases first (formats.md §2.2). */
const kindRank: Record<ContainerKind, number> = { db: 0, json: 1, legacy: 2 };

interface Candidate {
  unit: SourceUnit;
  rank: number;
  timeUpdated: number;
}

/** Keep one candidate per session id: the lower rank, then the newer `time_updated`. */
function offer(candidates: Map<string, Candidate>, candidate: Candidate): void {
  const current = candidates.get(candidate.unit.sessionId);
  const isBetter =
    !current ||
    candidate.rank < current.rank ||
    (candidate.rank === current.rank && candidate.timeUpdated > current.timeUpdated);
  if (isBetter) candidates.set(candidate.unit.sessionId, candidate);
}

function makeUnit(
  containerPath: string,
  sessionId: string,
  changeKey: string,
  locator: SourceUnit["locator"],
): SourceUnit {
  return { source: "opencode", key: `${containerPath}#${sessionId}`, sessionId, containerPath, changeKey, locator };
}

/** One phrase for a file-system error inside a storage folder, naming the place: `permission denied (session/prj)`. */
function storageReason(containerPath: string, error: unknown): string {
  const place = (error as { path?: unknown }).path;
  const where = typeof place === "string" ? relative(containerPath, place) : "";
  return where ? `${fsReason(error)} (${where})` : fsReason(error);
}

/**
 * Units of one container. A db that cannot be opened or queried now, or a storage folder with a folder
 * or session file that cannot be read, is reported unavailable and yields no units; never an exception.
 * Db change key: `<session.time_updated>:<messages>:<newest message.time_updated>:<parts>:<newest part.time_updated>`.
 */
function listContainerUnits(
  container: SourceContainer,
  options: OpencodeParserOptions,
  hooks: ParserHooks | undefined,
): Candidate[] {
  const kind = containerKind(container.path);
  const warn = (place: string) => hooks?.onWarning?.(`skipped ${place}`);
  if (kind === "db") {
    try {
      const handle = openOpencodeDatabase(container.path, {
        busyTimeoutMs: options.busyTimeoutMs ?? 2000,
        forceCopy: options.forceCopy,
      });
      return listDbSessions(handle).map((row) => ({
        unit: makeUnit(
          container.path,
          row.id,
          `${row.timeUpdated}:${row.messageCount}:${row.lastMessageUpdatedMs}:${row.partCount}:${row.lastPartUpdatedMs}`,
          { kind },
        ),
        rank: kindRank.db,
        timeUpdated: row.timeUpdated,
      }));
    } catch (error) {
      reportUnavailable(hooks, container.path, describeSqliteError(error));
      return [];
    }
  }
  let entries: JsonSessionEntry[];
  try {
    entries = kind === "json" ? listJsonSessions(container.path, warn) : listLegacySessions(container.path, warn);
  } catch (error) {
    if (errorCode(error) === undefined) throw error; // a bug, not the disk
    reportUnavailable(hooks, container.path, storageReason(container.path, error));
    return [];
  }
  return entries.map((entry) => ({
    unit: makeUnit(container.path, entry.session.id, entry.changeKey, { kind, projectDir: entry.projectDir }),
    rank: kindRank[kind],
    timeUpdated: entry.session.timeUpdated,
  }));
}

/**
 * Read one unit's raw conversation from its container.
 * @throws SourceError when the container or a file of the session cannot be read now, e.g.
 *   `cannot read /d/storage/part/msg_1/prt_1.json: permission denied`, or the session is gone
 */
function loadConversation(unit: SourceUnit, options: OpencodeParserOptions): RawConversation {
  const kind = containerKind(unit.containerPath);
  let conversation: RawConversation | null;
  try {
    if (kind === "db") {
      const handle = openOpencodeDatabase(unit.containerPath, {
        busyTimeoutMs: options.busyTimeoutMs ?? 2000,
        forceCopy: options.forceCopy,
      });
      conversation = loadDbConversation(handle, unit.sessionId);
    } else if (kind === "json") {
      conversation = loadJsonConversation(unit.containerPath, String(unit.locator?.projectDir ?? ""), unit.sessionId);
    } else {
      conversation = loadLegacyConversation(unit.containerPath, unit.sessionId);
    }
  } catch (error) {
    if (error instanceof SourceError) throw error;
    const place = (error as { path?: unknown }).path;
    if (errorCode(error) !== undefined && typeof place === "string") {
      throw new SourceError(`cannot read ${place}: ${fsReason(error)}`, unit.containerPath, { cause: error });
    }
    throw new SourceError(`${unit.containerPath}: ${(error as Error).message}`, unit.containerPath, { cause: error });
  }
  if (!conversation)
    throw new SourceError(`session ${unit.sessionId} not found in ${unit.containerPath}`, unit.containerPath);
  return conversation;
}

/**
 * The units of the OpenCode containers among `containers` (createOpencodeParser's `listUnits`): one per session, the
 * best container kind first (db, JSON storage, legacy), the latest copy among equals.
 */
export function listOpencodeUnits(
  containers: readonly SourceContainer[],
  hooks: ParserHooks | undefined,
  options: OpencodeParserOptions,
): SourceUnit[] {
  const ordered = containers
    .filter((container) => container.source === "opencode")
    .sort((a, b) => kindRank[containerKind(a.path)] - kindRank[containerKind(b.path)]);
  const candidates = new Map<string, Candidate>();
  for (const container of ordered)
    for (const candidate of listContainerUnits(container, options, hooks)) offer(candidates, candidate);
  return [...candidates.values()].map((candidate) => candidate.unit);
}

/**
 * Parse one session (createOpencodeParser's `parse`): a full parse.
 * @throws SourceError when its container or a file of the session cannot be read now, or the session is gone
 */
export function parseOpencodeUnit(
  unit: SourceUnit,
  parseOptions: ParseOptions,
  options: OpencodeParserOptions,
): ParseResult {
  const conversation = loadConversation(unit, options);
  const messages = sortMessages(conversation.messages);
  for (const message of messages) {
    const role = message.data.role;
    if (role !== "user" && role !== "assistant")
      noteSkip(conversation.skipped, `${conversation.location}: message ${message.id}`, "no role");
  }
  const isSubagent = conversation.session.parentId !== null;
  const turns = buildTurns(conversation.session.id, messages, isSubagent, parseOptions.withOutputs ?? false);
  const session = withAbstract(
    buildSession(conversation.session, messages, turns.length, conversation.location),
    opencodeAbstract(messages),
  );
  return { session, turns, fromTurn: 1, bytesRead: conversation.bytesRead, skipped: conversation.skipped };
}
