/**
 * Continue parser (continuedev/continue: the VS Code and JetBrains extensions and the `cn` CLI share one store;
 * docs/formats/continue.md). Data: `$CONTINUE_GLOBAL_DIR`, else `~/.continue`; sessions in `sessions/<id>.json`, one
 * JSON file per session, listed with their creation times in `sessions/sessions.json` (`core/util/paths.ts`,
 * `core/util/history.ts` at d0a3c0b6). One container = one unit = one session file. Continue's IDE chats have no
 * command that reopens one; its CLI forks one into a new session: `cn --fork <sessionId>` in the session's folder
 * (`extensions/cli/src/index.ts` at d0a3c0b6: "--fork <sessionId>  Fork from an existing session ID"; `--resume` only
 * takes the last one). Code in ./continue/ (source, tools, turns, parse).
 */
import { basename } from "node:path";
import { fsReason, isMissingError } from "./file-stats.ts";
import { readHead } from "./shared/read-head.ts";
import { sessionTreeScans } from "./shared/session-files.ts";
import { rejectFile } from "./shared/skips.ts";
import type { Parser, ParserHooks, SourceContainer, SourceUnit } from "./types.ts";

// the parse code loads at the first parse: a search's freshness check and resume commands never need it (issue 42)
const parseSide = () => require("./continue/parse.ts") as typeof import("./continue/parse.ts");

/** The index Continue keeps next to the session files (titles, creation times): not a session. */
const indexFileName = "sessions.json";

const isSessionFile = (name: string): boolean => name.endsWith(".json") && name !== indexFileName;

/**
 * One unit per session file whose text opens a JSON object (Continue writes nothing else there); the session id is
 * the file name. Two copies of one session (another root) become one unit: the larger file, then the later path.
 */
function listContinueUnits(containers: readonly SourceContainer[], hooks: ParserHooks = {}): SourceUnit[] {
  const best = new Map<string, SourceContainer>();
  for (const container of containers) {
    let head: string;
    try {
      head = readHead(container.path, 64).text.trimStart();
    } catch (error) {
      if (!isMissingError(error)) hooks.onUnavailable?.(container.path, fsReason(error));
      continue;
    }
    if (!head.startsWith("{")) {
      rejectFile(hooks, container.path, head.length === 0 ? "empty file" : "not a JSON object");
      continue;
    }
    const sessionId = basename(container.path, ".json");
    const current = best.get(sessionId);
    if (!current || container.sizeBytes >= current.sizeBytes) best.set(sessionId, container);
  }
  return [...best].map(([sessionId, container]) => ({
    source: "continue",
    key: container.path,
    sessionId,
    containerPath: container.path,
    changeKey: container.fingerprint,
  }));
}

/** The Continue `Parser`: stats-only scan of `sessions/*.json`, one unit per file, whole-file parses. */
export const continueParser: Parser = {
  id: "continue",
  version: 2, // 2: conversationSummary is the session's abstract, no longer counted as not kept (issue 41)
  ...sessionTreeScans({ source: "continue", sessionsFolder: "sessions", isSessionFile, maxDepth: 2 }),
  scansContainerPaths: true,
  listUnits: listContinueUnits,
  parse: (unit, options) => parseSide().parseContinueUnit(unit, options),
  // `<continue dir>/sessions/`: session files start a cycle (sessions.json changes with them).
  watch: { kind: "tree", depth: 1, isSessionFile, missingRootPending: true },
  resumeInvocation: (sessionId, projectPath) => ({
    cwd: projectPath || undefined,
    argv: ["cn", "--fork", sessionId],
  }),
};
