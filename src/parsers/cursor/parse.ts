/**
 * Listing the chats of Cursor databases and parsing one (../cursor.ts's parser): loaded at its first use, so a search's
 * freshness check and resume commands never load it (issue 42, cold start).
 */
import { withAbstract } from "../shared/abstract.ts";
import { reportUnavailable } from "../shared/database-units.ts";
import { projectNameOf } from "../shared/fields.ts";
import { describeSqliteError } from "../shared/readonly-sqlite.ts";
import type { ParseOptions, ParseResult, ParserHooks, Session, SourceContainer, SourceUnit, Turn } from "../types.ts";
import { openCursorDatabase } from "./database.ts";
import { loadChat } from "./load.ts";
import { buildTurns } from "./turns.ts";
import { listDatabaseChats, mergeListings, type DatabaseListing } from "./units.ts";

/**
 * The units of the Cursor databases among `containers` (createCursorParser's `listUnits`).
 * @param busyTimeoutMs how long a read waits for Cursor's write lock, ms (undefined: database.ts's default)
 */
export function listCursorUnits(
  containers: readonly SourceContainer[],
  hooks: ParserHooks | undefined,
  busyTimeoutMs: number | undefined,
): SourceUnit[] {
  const listings: DatabaseListing[] = [];
  for (const container of containers) {
    if (container.source !== "cursor") continue;
    try {
      const handle = openCursorDatabase(container.path, busyTimeoutMs);
      listings.push(listDatabaseChats(handle, hooks));
    } catch (error) {
      reportUnavailable(hooks, container.path, describeSqliteError(error));
    }
  }
  return mergeListings(listings);
}

/**
 * Parse one chat (createCursorParser's `parse`): a full parse.
 * @param busyTimeoutMs how long a read waits for Cursor's write lock, ms (undefined: database.ts's default)
 * @throws SourceError when the db cannot be read now or the chat is gone
 */
export function parseCursorUnit(
  unit: SourceUnit,
  parseOptions: ParseOptions,
  busyTimeoutMs: number | undefined,
): ParseResult {
  const chat = loadChat(unit, parseOptions.withOutputs ?? false, busyTimeoutMs);
  const parentId = typeof unit.locator?.parentId === "string" ? unit.locator.parentId : null;
  const turns = buildTurns(unit.sessionId, chat.messages, parentId !== null);
  // Bubbles before 2025 carry no times: the composer's createdAt is when its first prompt was sent,
  // a legacy tab's lastSendTime when its last one was; other turns take the nearest earlier time (dateDatelessTurns).
  const firstTurn = turns[0];
  const lastTurn = turns.at(-1);
  if (firstTurn && firstTurn.timestamp === 0 && chat.createdAt > 0) firstTurn.timestamp = chat.createdAt;
  if (lastTurn && lastTurn.timestamp === 0 && chat.lastPromptAt > 0) lastTurn.timestamp = chat.lastPromptAt;
  const times = chat.messages.map((message) => message.timestamp).filter((time) => time > 0);
  const startedAt = chat.createdAt || (times.length > 0 ? Math.min(...times) : 0) || chat.updatedAt;
  const endedAt = Math.max(chat.updatedAt, times.length > 0 ? Math.max(...times) : 0, startedAt);
  dateDatelessTurns(turns, startedAt);
  // The listing's folder (a workspace db that lists the chat) first, else the one the chat names itself.
  const projectPath = String(unit.locator?.projectPath ?? "") || chat.projectPath;
  const session: Session = {
    id: unit.sessionId,
    source: "cursor",
    projectPath,
    projectName: projectNameOf(projectPath),
    gitBranch: chat.gitBranch && chat.gitBranch !== "HEAD" ? chat.gitBranch : null,
    startedAt,
    endedAt,
    title: chat.title,
    turnCount: turns.length,
    parentSessionId: parentId,
    isSubagent: parentId !== null,
    location: unit.containerPath,
  };
  // Cursor records no time for its conversation summary (composerData `latestConversationSummary`).
  const summary = chat.conversationSummary;
  return {
    session: withAbstract(session, summary ? [{ source: "compaction", text: summary, at: 0 }] : []),
    turns,
    fromTurn: 1,
    bytesRead: chat.bytesRead,
    skipped: chat.skipped,
  };
}

/**
 * Give the turns that still have no time (0) the best evidence there is (issue 38: they showed "Turn 1 · unknown"
 * in a dated session): the time of the nearest earlier dated turn (such a prompt was sent at or after it), and for
 * the turns before the first dated one, the earlier of the session's start and that turn's time. Mutates `turns`.
 *   times [0, 0, 500, 0], start 400 → [400, 400, 500, 500];  start 0 and no dated turn → unchanged
 * @param startedAt the session's start, epoch ms (0 when unknown)
 */
function dateDatelessTurns(turns: Turn[], startedAt: number): void {
  const firstDated = turns.find((turn) => turn.timestamp > 0)?.timestamp ?? 0;
  let previous = [startedAt, firstDated].filter((time) => time > 0).reduce((a, b) => Math.min(a, b), Infinity);
  if (previous === Infinity) return;
  for (const turn of turns) {
    if (turn.timestamp > 0) previous = turn.timestamp;
    else turn.timestamp = previous;
  }
}
