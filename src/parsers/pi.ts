/**
 * pi coding agent parser (badlogic/pi-mono `packages/coding-agent`, session format version 3; docs/formats/pi.md).
 * Data: `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`; sessions in `sessions/--<cwd with / \ : as ->--/
 * <time>_<id>.jsonl` (session-manager.ts `getDefaultSessionDir`). One container = one unit = one file; session id =
 * the header's `id`. Resume: `pi --session <id>` in the session's folder (`src/cli/args.ts`: "--session <path>  Use
 * specific session file"; `src/main.ts` `resolveSessionPath` matches an id, or a prefix of it, in the current project
 * first). Code in ./pi/ (source, units, entries, tools, turns, parse).
 */
import { sessionTreeScans } from "./shared/session-files.ts";
import type { Parser } from "./types.ts";
import { listHeaderUnits } from "./shared/header-units.ts";
import { piHeaderSpec } from "./pi/units.ts";

// the parse code loads at the first parse: a search's freshness check and resume commands never need it (issue 42)
const parseSide = () => require("./pi/parse.ts") as typeof import("./pi/parse.ts");

const isSessionFile = (name: string): boolean => name.endsWith(".jsonl");

/** The pi `Parser`: stats-only scan of `sessions/<project>/*.jsonl`, one unit per file, whole-file parses. */
export const piParser: Parser = {
  id: "pi",
  version: 2, // 2: compaction and branch summaries are the session's abstract, no longer counted as skipped (issue 41)
  ...sessionTreeScans({ source: "pi", sessionsFolder: "sessions", isSessionFile, maxDepth: 4 }),
  scansContainerPaths: true,
  listUnits: (containers, hooks) => listHeaderUnits(piHeaderSpec, containers, hooks),
  parse: (unit, options) => parseSide().parsePiUnit(unit, options),
  // `<agent dir>/sessions/<project>/*.jsonl`: three levels below the agent folder.
  watch: { kind: "tree", depth: 3, isSessionFile, missingRootPending: true },
  resumeInvocation: (sessionId, projectPath) => ({
    cwd: projectPath || undefined,
    argv: ["pi", "--session", sessionId],
  }),
};
