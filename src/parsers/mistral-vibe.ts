/**
 * Mistral Vibe parser (docs/formats/mistral-vibe.md). Data: `$VIBE_HOME`, else `~/.vibe`; one folder per session,
 * `logs/session/<prefix>_<YYYYmmdd_HHMMSS>_<short id>/` with `messages.jsonl` (read) and `meta.json` (id, times,
 * folder, branch, title, token totals). One container = one unit = one messages.jsonl; session id = meta.json's
 * `session_id`. Resume command: `vibe --resume <session id>` (mistralai/mistral-vibe `vibe/cli/entrypoint.py` and
 * `vibe/cli/textual_ui/session_exit.py`, which prints it on exit, commit ac8f1a09). Code in ./mistral-vibe/ (source,
 * scan, tools, parse).
 */
import type { Parser } from "./types.ts";
import { agentTreeDepth, isJsonSessionFile } from "./shared/watch-tree.ts";
import { listVibeUnits, scanVibeRoots } from "./mistral-vibe/scan.ts";

export { listVibeUnits, scanVibeRoots } from "./mistral-vibe/scan.ts";

// the parse code loads at the first parse: a search's freshness check and resume commands never need it (issue 42)
const parseSide = () => require("./mistral-vibe/parse.ts") as typeof import("./mistral-vibe/parse.ts");

/**
 * The Mistral Vibe `Parser`: `scan` walks roots by stats only; `listUnits` reads each session's meta.json for its id;
 * `parse` reads one session folder whole.
 */
export const mistralVibeParser: Parser = {
  id: "mistral-vibe",
  version: 2, // 2: a compaction context that opens a continued session is its abstract, never a turn (issue 41)
  scan: (roots) => scanVibeRoots(roots),
  scansContainerPaths: true,
  listUnits: (containers, hooks) => listVibeUnits(containers, hooks),
  parse: (unit, options) => parseSide().parseVibeUnit(unit, options),
  // `logs/session/<folder>/`: messages.jsonl and meta.json start a cycle.
  watch: { kind: "tree", depth: agentTreeDepth, isSessionFile: isJsonSessionFile, missingRootPending: true },
  resumeInvocation: (sessionId, projectPath) => ({
    cwd: projectPath || undefined,
    argv: ["vibe", "--resume", sessionId],
  }),
};
