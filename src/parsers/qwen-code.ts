/**
 * Qwen Code parser (docs/formats/qwen-code.md). Qwen Code is a fork of Gemini CLI; its chats are another format (one
 * `ChatRecord` per line, uuid/parentUuid linked) holding Gemini API parts, read with Gemini CLI's part, tool and usage
 * code. Data: `$QWEN_RUNTIME_DIR`, else `~/.qwen`; chats in `projects/<project>/chats/<sessionId>.jsonl` (early
 * versions: `tmp/<hash>/chats/`). One container = one unit = one file; session id = its records' `sessionId`. Resume
 * command: `qwen --resume <sessionId>` in the project folder (Qwen Code docs, CLI option `--resume`:
 * https://www.mintlify.com/QwenLM/qwen-code/cli/options/resume). Code in ./qwen-code/ (source, scan, tools, parse).
 */
import type { Parser } from "./types.ts";
import { agentTreeDepth, isJsonSessionFile } from "./shared/watch-tree.ts";
import { listQwenUnits, rescanQwenFolders, scanQwenRoots } from "./qwen-code/scan.ts";

export { listQwenUnits, scanQwenRoots } from "./qwen-code/scan.ts";

// the parse code loads at the first parse: a search's freshness check and resume commands never need it (issue 42)
const parseSide = () => require("./qwen-code/parse.ts") as typeof import("./qwen-code/parse.ts");

/**
 * The Qwen Code `Parser`: `scan` walks roots by stats only; `listUnits` reads each chat's first record for its session
 * id; `parse` reads one chat whole.
 */
export const qwenCodeParser: Parser = {
  id: "qwen-code",
  version: 2, // 2: the session carries the summaries of its chat_compression records (issue 41)
  scan: (roots) => scanQwenRoots(roots),
  scansContainerPaths: true,
  rescanFolders: (roots, folders) => rescanQwenFolders(roots, folders),
  listUnits: (containers, hooks) => listQwenUnits(containers, hooks),
  parse: (unit, options) => parseSide().parseQwenUnit(unit, options),
  // `projects/<project>/chats/`: chat files start a cycle.
  watch: { kind: "tree", depth: agentTreeDepth, isSessionFile: isJsonSessionFile, missingRootPending: true },
  resumeInvocation: (sessionId, projectPath) => ({
    cwd: projectPath || undefined,
    argv: ["qwen", "--resume", sessionId],
  }),
};
