/**
 * Kimi CLI parser (docs/formats/kimi-cli.md). Data: `$KIMI_SHARE_DIR`, else `~/.kimi`; one folder per session,
 * `sessions/<md5 of the work dir>/<session id>/`, whose `wire.jsonl` (every message of the session, with times) is read;
 * the work dir's path comes from `kimi.json`. One container = one unit = one wire log; session id = the folder's name.
 * Resume command: `kimi -r <session id>` in the work dir (MoonshotAI/kimi-cli docs/en/guides/sessions.md: the CLI prints
 * it on exit). Code in ./kimi-cli/ (source, work-dirs, scan, tools, parse).
 */
import type { Parser } from "./types.ts";
import { agentTreeDepth, isJsonSessionFile } from "./shared/watch-tree.ts";
import { listKimiUnits, scanKimiRoots } from "./kimi-cli/scan.ts";

export { listKimiUnits, scanKimiRoots } from "./kimi-cli/scan.ts";

// the parse code loads at the first parse: a search's freshness check and resume commands never need it (issue 42)
const parseSide = () => require("./kimi-cli/parse.ts") as typeof import("./kimi-cli/parse.ts");

/**
 * The Kimi CLI `Parser`: `scan` walks roots by stats only; `listUnits` checks each wire log's first line and names its
 * project from kimi.json; `parse` reads one wire log whole.
 */
export const kimiCliParser: Parser = {
  id: "kimi-cli",
  version: 1,
  scan: (roots) => scanKimiRoots(roots),
  scansContainerPaths: true,
  listUnits: (containers, hooks) => listKimiUnits(containers, hooks),
  parse: (unit, options) => parseSide().parseKimiUnit(unit, options),
  // `sessions/<hash>/<id>/`: wire logs, state.json titles and kimi.json start a cycle.
  watch: { kind: "tree", depth: agentTreeDepth, isSessionFile: isJsonSessionFile, missingRootPending: true },
  resumeInvocation: (sessionId, projectPath) => ({
    cwd: projectPath || undefined,
    argv: ["kimi", "-r", sessionId],
  }),
};
