/**
 * GitHub Copilot CLI parser (docs/formats/copilot-cli.md). Data: `$COPILOT_HOME`, else `~/.copilot`; one event log per
 * session, `session-state/<session id>/events.jsonl` (earlier builds: `session-state/<session id>.jsonl`). One
 * container = one unit = one log; session id = the `session.start` event's `sessionId`. Resume command:
 * `copilot --resume <session id>` (github/copilot-cli issues 4397 and 3458: the CLI prints it as its own exit hint).
 * Code in ./copilot-cli/ (source, scan, tools, parse).
 */
import type { Parser } from "./types.ts";
import { agentTreeDepth, isJsonSessionFile } from "./shared/watch-tree.ts";
import { listCopilotUnits, rescanCopilotFolders, scanCopilotRoots } from "./copilot-cli/scan.ts";

export { listCopilotUnits, scanCopilotRoots } from "./copilot-cli/scan.ts";

// the parse code loads at the first parse: a search's freshness check and resume commands never need it (issue 42)
const parseSide = () => require("./copilot-cli/parse.ts") as typeof import("./copilot-cli/parse.ts");

/**
 * The Copilot CLI `Parser`: `scan` walks roots by stats only; `listUnits` reads each log's first line for its session
 * id; `parse` reads one log whole.
 */
export const copilotCliParser: Parser = {
  id: "copilot-cli",
  version: 2, // 2: compaction and task-complete summaries are the session's abstract (issue 41)
  scan: (roots) => scanCopilotRoots(roots),
  scansContainerPaths: true,
  rescanFolders: (roots, folders) => rescanCopilotFolders(roots, folders),
  listUnits: (containers, hooks) => listCopilotUnits(containers, hooks),
  parse: (unit, options) => parseSide().parseCopilotUnit(unit, options),
  // `session-state/<id>/`: event logs start a cycle.
  watch: { kind: "tree", depth: agentTreeDepth, isSessionFile: isJsonSessionFile, missingRootPending: true },
  resumeInvocation: (sessionId, projectPath) => ({
    cwd: projectPath || undefined,
    argv: ["copilot", "--resume", sessionId],
  }),
};
