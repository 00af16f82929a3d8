/**
 * The Cursor parser (docs/formats.md §5). Data: Cursor's `User` folder (`~/.config/Cursor/User`,
 * `~/Library/Application Support/Cursor/User`, `%APPDATA%\Cursor\User`) with
 * `workspaceStorage/<hash>/state.vscdb` (+ `workspace.json`) and `globalStorage/state.vscdb`.
 * Pieces: cursor/scan.ts (containers), database.ts (read-only SQLite, chat keys only), units.ts
 * (listing, change keys, de-duplication), load.ts + records.ts + tools.ts (reading one chat),
 * turns.ts (turn rules). Checked against the real Cursor ~0.4x workspace db of Nov 2024 in
 * ../shared/corpus/cursor; the newer global layout follows third-party readers (see records.ts).
 * A database that exists but cannot be read now (locked, zero bytes, malformed, not a state db) is
 * reported through `onUnavailable` and yields no units: "unavailable", never "empty".
 * Resume: Cursor has no CLI resume; the closest is opening the project folder, `cursor <folder>`
 * (cursor.com/docs/configuration/shell), then the chat from the Agents/Chat history panel.
 * Parses are full parses (no resume state): the per-chat change key re-parses only the changed chat.
 */
import { withAbstract } from "./shared/abstract.ts";
import { reportUnavailable } from "./shared/database-units.ts";
import { projectNameOf } from "./shared/fields.ts";
import type {
  ParseOptions,
  ParseResult,
  Parser,
  ParserHooks,
  Session,
  SourceContainer,
  SourceUnit,
  Turn,
} from "./types.ts";
import { describeSqliteError } from "./shared/readonly-sqlite.ts";
import { openCursorDatabase } from "./cursor/database.ts";
import { loadChat } from "./cursor/load.ts";
import { scanCursorRoots } from "./cursor/scan.ts";
import { buildTurns } from "./cursor/turns.ts";
import { listDatabaseChats, mergeListings, type DatabaseListing } from "./cursor/units.ts";
import { optionSafe } from "./shared/option-safe.ts";

export { closeCursorDatabases, openCursorDatabase } from "./cursor/database.ts";
export { scanCursorRoots, fingerprintStateDatabase } from "./cursor/scan.ts";

/** Options of {@link createCursorParser}. */
export interface CursorParserOptions {
  /** How long a read waits for Cursor's write lock before the db is reported unavailable, ms. Default 2000. */
  busyTimeoutMs?: number;
}

/**
 * Build a Cursor parser.
 * scan: stats only. listUnits: one unit per chat tab / composer, key `<db path>#<session id>`, change
 * key per chat (units.ts); unreadable databases → `onUnavailable`; a chat value that holds no session recall can
 * read (not JSON, no id) → `onRejected` as `<db path>#<key>` (units.ts).
 * parse: one chat, full parse; throws SourceError when the db cannot be read now or the chat is gone.
 */
export function createCursorParser(options: CursorParserOptions = {}): Parser {
  return {
    id: "cursor",
    // 3: turns without a time of their own take the nearest earlier one (issue 38); 4: a composer's conversation
    // summary (latestConversationSummary) is the session's abstract (issue 41)
    version: 4,
    scan: scanCursorRoots,
    // The User folder down to `workspaceStorage/<hash>/`: its databases and workspace.json start a cycle.
    watch: {
      kind: "tree",
      depth: 2,
      isSessionFile: (name) => name === "state.vscdb" || name === "state.vscdb-wal" || name === "workspace.json",
      missingRootPending: true,
    },
    // Cursor cannot reopen one chat from a shell: its workspace opens, whose chat history lists the session.
    resumeInvocation: (_sessionId, projectPath) => ({
      cwd: undefined,
      argv: projectPath ? ["cursor", ...optionSafe(projectPath)] : ["cursor"],
    }),
    listUnits(containers: SourceContainer[], hooks?: ParserHooks): SourceUnit[] {
      const listings: DatabaseListing[] = [];
      for (const container of containers) {
        if (container.source !== "cursor") continue;
        try {
          const handle = openCursorDatabase(container.path, options.busyTimeoutMs);
          listings.push(listDatabaseChats(handle, hooks));
        } catch (error) {
          reportUnavailable(hooks, container.path, describeSqliteError(error));
        }
      }
      return mergeListings(listings);
    },
    parse(unit: SourceUnit, parseOptions: ParseOptions = {}): ParseResult {
      const chat = loadChat(unit, parseOptions.withOutputs ?? false, options.busyTimeoutMs);
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
    },
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

/** The Cursor parser with default options. */
export const cursorParser: Parser = createCursorParser();
