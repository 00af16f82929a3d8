/**
 * OpenClaw parser (docs/formats/openclaw.md). Data: `$OPENCLAW_STATE_DIR`, else `~/.openclaw` (or a legacy
 * `~/.clawdbot`, `~/.moltbot`); one transcript per session, `agents/<agent id>/sessions/<session id>.jsonl`, in pi's
 * session format, beside the agent's `sessions.json` index. One container = one unit = one transcript; session id =
 * the header's `id`. Resume command: `openclaw resume`, which opens OpenClaw's picker of the Gateway's recent sessions
 * (docs.openclaw.ai/cli/resume): it takes a session key or label, which a transcript does not hold, so no id is passed.
 * Code in ./openclaw/ (source, session-index, scan, tools, parse).
 */
import type { Parser } from "./types.ts";
import { agentTreeDepth, isJsonSessionFile } from "./shared/watch-tree.ts";
import { listOpenclawUnits, scanOpenclawRoots } from "./openclaw/scan.ts";

export { listOpenclawUnits, scanOpenclawRoots } from "./openclaw/scan.ts";

// the parse code loads at the first parse: a search's freshness check and resume commands never need it (issue 42)
const parseSide = () => require("./openclaw/parse.ts") as typeof import("./openclaw/parse.ts");

/**
 * The OpenClaw `Parser`: `scan` walks roots by stats only; `listUnits` reads each transcript's header and the agent's
 * sessions.json; `parse` reads one transcript whole.
 */
export const openclawParser: Parser = {
  id: "openclaw",
  version: 2, // 2: compaction and branch summaries are the session's abstract (issue 41)
  scan: (roots) => scanOpenclawRoots(roots),
  scansContainerPaths: true,
  listUnits: (containers, hooks) => listOpenclawUnits(containers, hooks),
  parse: (unit, options) => parseSide().parseOpenclawUnit(unit, options),
  // `agents/<id>/sessions/`: transcripts and sessions.json start a cycle.
  watch: { kind: "tree", depth: agentTreeDepth, isSessionFile: isJsonSessionFile, missingRootPending: true },
  resumeInvocation: (_sessionId, _projectPath) => ({ cwd: undefined, argv: ["openclaw", "resume"] }),
};
