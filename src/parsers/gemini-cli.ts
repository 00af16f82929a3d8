/**
 * Gemini CLI parser (docs/formats.md §4; checked on JSON and JSONL chat files of 2025-10 … 2026-04 in
 * ../shared/corpus/gemini-cli). Data: `$GEMINI_CLI_HOME/.gemini` else `~/.gemini`, chats in
 * `tmp/<project-id>/chats/` (recall's override: `--gemini-dir` / `RECALL_GEMINI_DIRS`, paths.ts). One
 * container = one chat file; one unit = one session id, merged across the files a resumed session
 * spreads over. Sub-agents (`chats/<parentSessionId>/<id>.json[l]`) link to their parent. Project path:
 * `.project_root`, else for a folder named by a hash (before CLI 0.29) the recorded path whose SHA-256 it is
 * (`projects.json`, other folders' `.project_root`, the chat's `directories`: gemini-cli/projects.ts), else ""
 * (unknown) with the folder name, a hash shortened to 8 hex digits, as the name. Messages typed `model` or without
 * an id (other writers of the format) are kept; whatever cannot be placed is counted in `skipped`.
 * Resume command: `gemini --resume <sessionId>`, run in the project folder (google-gemini/gemini-cli
 * docs/cli/session-management.md). Each project folder's `logs.json` (typed prompts) adds a prompt-only session for
 * every session id whose chat is not listed (shared/prompt-history.ts). Code in ./gemini-cli/ (scan, units, projects, decode, records, tools, turns, resume, parse).
 */
import type { Parser } from "./types.ts";
import { withPromptHistory } from "./shared/prompt-history.ts";
import { agentTreeDepth, isJsonSessionFile } from "./shared/watch-tree.ts";
import { geminiLogsSpec } from "./gemini-cli/logs.ts";
import { rescanGeminiFolders, scanGeminiRoots } from "./gemini-cli/scan.ts";

export { scanGeminiRoots, skippedDirs as geminiSkippedDirs, maxDepth as geminiMaxDepth } from "./gemini-cli/scan.ts";
export type { GeminiResumeState } from "./gemini-cli/resume.ts";

// the listing and parse code loads at first use: a search's freshness check and resume commands never need it (issue 42)
const unitsSide = () => require("./gemini-cli/units.ts") as typeof import("./gemini-cli/units.ts");
const parseSide = () => require("./gemini-cli/parse.ts") as typeof import("./gemini-cli/parse.ts");

/**
 * The Gemini CLI `Parser`: `scan` walks roots by stats only; `listUnits` reads each file's header and
 * groups files by session id; `parse` reads a session's files, resuming the newest one from a byte
 * offset when it is JSONL and only grew (see ./gemini-cli/parse.ts).
 */
export const geminiCliParser: Parser = withPromptHistory(
  {
    id: "gemini-cli",
    // 3: a Qwen Code chat in a Gemini folder is a rejected file, not an empty session (issue 37).
    // 4: turns carry their replies' models and tokens (issue 38 item 14).
    // 5: the session carries its abstract (compression summaries, replaced summaries; issue 41), and a compression
    // summary and its acknowledgement are no longer a turn.
    // 6: a `$set.messages` checkpoint adds to the messages instead of replacing them: the turns a compression took out
    // of the history, and the tool outputs masking replaced, stay (records.ts addCheckpoint); what a `$rewindTo` cut
    // is the session's rewound turns (issue 26, as Claude Code's).
    version: 6,
    scan: (roots) => scanGeminiRoots(roots),
    scansContainerPaths: true,
    rescanFolders: (roots, folders) => rescanGeminiFolders(roots, folders),
    listUnits: (containers, hooks) => unitsSide().listGeminiUnits(containers, hooks),
    parse: (unit, options) => parseSide().parseGeminiUnit(unit, options),
    // `tmp/<project>/chats/<sub-agent>/`: chat files and `.project_root` start a cycle.
    watch: { kind: "tree", depth: agentTreeDepth, isSessionFile: isJsonSessionFile, missingRootPending: true },
    // Gemini CLI docs: `gemini --resume <session id|index|latest>`, per project folder.
    resumeInvocation: (sessionId, projectPath) => ({
      cwd: projectPath || undefined,
      argv: ["gemini", "--resume", sessionId],
    }),
  },
  geminiLogsSpec,
);
