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
import type { Parser } from "./types.ts";
import { rescanCursorFolders, scanCursorRoots } from "./cursor/scan.ts";
import { optionSafe } from "./shared/option-safe.ts";

export { closeCursorDatabases, openCursorDatabase } from "./cursor/database.ts";
export { scanCursorRoots } from "./cursor/scan.ts";

// the listing and parse code loads at first use: a search's freshness check and resume commands never need it (issue 42)
const parseSide = () => require("./cursor/parse.ts") as typeof import("./cursor/parse.ts");

/** Options of {@link createCursorParser}. */
export interface CursorParserOptions {
  /** How long a read waits for Cursor's write lock before the db is reported unavailable, ms. Default 2000. */
  busyTimeoutMs?: number;
}

/**
 * Build a Cursor parser.
 * scan: stats only (the quick freshness check re-stats the last day's databases and the folders read; a changed folder
 * is walked again alone). listUnits: one unit per chat tab / composer, key `<db path>#<session id>`, change
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
    scansContainerPaths: true,
    rescanFolders: (roots, folders) => rescanCursorFolders(roots, folders),
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
    listUnits: (containers, hooks) => parseSide().listCursorUnits(containers, hooks, options.busyTimeoutMs),
    parse: (unit, parseOptions = {}) => parseSide().parseCursorUnit(unit, parseOptions, options.busyTimeoutMs),
  };
}

/** The Cursor parser with default options. */
export const cursorParser: Parser = createCursorParser();
