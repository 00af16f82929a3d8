/**
 * Codebuff parser (docs/formats/codebuff.md). Data: `~/.config/manicode`; one folder per chat,
 * `projects/<project folder name>/chats/<chat id>/`, whose `chat-messages.json` (read) and `run-state.json` (its
 * project root) are rewritten whole after each run. One container = one unit = one chat; session id = the chat id (its
 * start time). Resume command: `codebuff --continue <chat id>` in the project folder (CodebuffAI/codebuff
 * `cli/src/index.tsx`: `--continue [conversation-id]`; `cli/src/utils/run-state-storage.ts` `loadMostRecentChatState`
 * opens `chats/<id>` of the current project). Code in ./codebuff/ (source, scan, tools, parse).
 */
import type { Parser } from "./types.ts";
import { agentTreeDepth, isJsonSessionFile } from "./shared/watch-tree.ts";
import { listCodebuffUnits, scanCodebuffRoots } from "./codebuff/scan.ts";

export { listCodebuffUnits, scanCodebuffRoots } from "./codebuff/scan.ts";

// the parse code loads at the first parse: a search's freshness check and resume commands never need it (issue 42)
const parseSide = () => require("./codebuff/parse.ts") as typeof import("./codebuff/parse.ts");

/** The Codebuff `Parser`: `scan` walks roots by stats only; `listUnits` names chats by folder; `parse` reads one chat. */
export const codebuffParser: Parser = {
  id: "codebuff",
  version: 1,
  scan: (roots) => scanCodebuffRoots(roots),
  scansContainerPaths: true,
  listUnits: (containers) => listCodebuffUnits(containers),
  parse: (unit, options) => parseSide().parseCodebuffUnit(unit, options),
  // `projects/<project>/chats/<id>/`: chat-messages.json and run-state.json start a cycle.
  watch: { kind: "tree", depth: agentTreeDepth, isSessionFile: isJsonSessionFile, missingRootPending: true },
  resumeInvocation: (sessionId, projectPath) => ({
    cwd: projectPath || undefined,
    argv: ["codebuff", "--continue", sessionId],
  }),
};
