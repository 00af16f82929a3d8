/**
 * Cursor's CLI agent parser (docs/formats/cursor-agent.md). Data: `~/.cursor/chats/<md5 of the workspace
 * path>/<chat id>/store.db`, one SQLite store per chat holding hex JSON metadata and content-addressed blobs: a
 * protocol-buffer root listing the conversation's JSON messages. One container = one unit = one store; session id = the
 * chat folder's name. A separate source from the Cursor editor (`cursor`, state.vscdb): the stores share no format.
 * Resume command: `cursor-agent --resume <chat id>` (Cursor CLI parameters `--resume [chatId]`, as coder/registry issue
 * #747 and devhints.io/cursor-cli quote them; `agent` is the newer name of the same binary), run in the workspace. Code in ./cursor-agent/ (source, scan, store, protobuf, tools, parse).
 */
import type { Parser } from "./types.ts";
import { listCursorAgentUnits, rescanCursorAgentFolders, scanCursorAgentRoots } from "./cursor-agent/scan.ts";

// the parse code loads at the first parse: a search's freshness check and resume commands never need it (issue 42)
const parseSide = () => require("./cursor-agent/parse.ts") as typeof import("./cursor-agent/parse.ts");

/**
 * The cursor-agent `Parser`: `scan` walks roots by stats only (the quick freshness check re-stats the last day's stores
 * and the folders read; a changed folder is walked again alone); `listUnits` opens each store to check its metadata;
 * `parse` reads one chat whole.
 */
export const cursorAgentParser: Parser = {
  id: "cursor-agent",
  version: 1,
  scan: (roots) => scanCursorAgentRoots(roots),
  scansContainerPaths: true,
  rescanFolders: (roots, folders) => rescanCursorAgentFolders(roots, folders),
  listUnits: (containers, hooks) => listCursorAgentUnits(containers, hooks),
  parse: (unit, options) => parseSide().parseCursorAgentUnit(unit, options),
  // `<hash>/<chat id>/store.db` (2 folder levels below the chats folder): writes to a store or its WAL start a cycle.
  watch: {
    kind: "tree",
    depth: 2,
    isSessionFile: (name) => name === "store.db" || name === "store.db-wal",
    missingRootPending: true,
  },
  resumeInvocation: (sessionId, projectPath) => ({
    cwd: projectPath || undefined,
    argv: ["cursor-agent", "--resume", sessionId],
  }),
};
