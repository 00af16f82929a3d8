/**
 * The GitHub Copilot Chat parser (docs/formats/copilot-chat.md): the chat sessions VS Code stores for its chat panel,
 * `<VS Code user data>/User/workspaceStorage/<workspace id>/chatSessions/<session id>.json` (whole) or `.jsonl` (a
 * mutation log, newer builds), and `globalStorage/emptyWindowChatSessions/` for windows without a folder; folders in
 * copilot-chat/source.ts. One container = one unit = one file. A separate source from the GitHub Copilot CLI
 * (`copilot-cli`), whose event logs share nothing with these files.
 * Resume: VS Code has no command line that reopens a chat; the closest is opening the project, `code <folder>`
 * (code.visualstudio.com/docs/configure/command-line), whose chat history lists the session (as for Cline).
 */
import { optionSafe } from "./shared/option-safe.ts";
import type { Parser } from "./types.ts";
import {
  listCopilotChatUnits,
  rescanCopilotChatFolders,
  scanCopilotChatRoots,
  workspaceFileName,
} from "./copilot-chat/scan.ts";

// the parse code loads at the first parse: a search's freshness check and resume commands never need it (issue 42)
const parseSide = () => require("./copilot-chat/parse.ts") as typeof import("./copilot-chat/parse.ts");

/**
 * The Copilot Chat `Parser`: `scan` by stats only (the quick freshness check re-stats the last day's files and the
 * folders read; a changed folder is walked again alone); `listUnits` checks each file's head; `parse` reads one file
 * whole.
 */
export const copilotChatParser: Parser = {
  id: "copilot-chat",
  version: 1,
  scan: (roots) => scanCopilotChatRoots(roots),
  scansContainerPaths: true,
  rescanFolders: (roots, folders) => rescanCopilotChatFolders(roots, folders),
  listUnits: (containers, hooks) => listCopilotChatUnits(containers, hooks),
  parse: (unit, options) => parseSide().parseCopilotChatUnit(unit, options),
  // `User/workspaceStorage/<id>/chatSessions/<file>` (3 folder levels below the User folder): session files and
  // workspace manifests start a cycle.
  watch: {
    kind: "tree",
    depth: 3,
    isSessionFile: (name) => name.endsWith(".json") || name.endsWith(".jsonl") || name === workspaceFileName,
    missingRootPending: true,
  },
  resumeInvocation: (_sessionId, projectPath) => ({
    cwd: undefined,
    argv: projectPath ? ["code", ...optionSafe(projectPath)] : ["code"],
  }),
};
