/**
 * OpenAI Codex CLI parser (docs/formats.md §3; versions checked: 0.66, 0.77, 0.98, 0.116-alpha, 0.118, 0.121
 * and builds reporting 0.0.0 in ../shared/corpus, 0.148 in test/fixtures/codex/issue-26). Data: `$CODEX_HOME` (default `~/.codex`):
 * `sessions/YYYY/MM/DD/rollout-<local time>-<thread uuid>.jsonl`, `archived_sessions/rollout-….jsonl`,
 * titles in `session_index.jsonl`. One container = one unit = one rollout file; session id = the thread id.
 * Resume a thread with `codex resume <id>`. The home's `history.jsonl` (typed prompts) adds a prompt-only session for
 * every thread whose rollout is not listed (shared/prompt-history.ts). Implementation in ./codex/ (scan, session-index, meta, records,
 * tools, patch, turns, resume, review-parent, parse).
 */
import type { Parser } from "./types.ts";
import { withPromptHistory } from "./shared/prompt-history.ts";
import { agentTreeDepth, isJsonSessionFile } from "./shared/watch-tree.ts";
import { codexHistorySpec } from "./codex/history.ts";
import { listCodexUnits, rescanCodexFolders, scanCodexRoots } from "./codex/scan.ts";

export {
  listCodexUnits,
  scanCodexRoots,
  skippedDirs as codexSkippedDirs,
  maxDepth as codexMaxDepth,
} from "./codex/scan.ts";
export type { CodexResumeState } from "./codex/resume.ts";

// the parse code loads at the first parse: a search's freshness check and resume commands never need it (issue 42)
const parseSide = () => require("./codex/parse.ts") as typeof import("./codex/parse.ts");

/**
 * The Codex `Parser`: `scan` walks roots by stats only; `listUnits` maps each rollout to one unit
 * (deduplicating archived/live copies, attaching `session_index.jsonl` titles); `parse` reads one rollout,
 * resuming from an earlier parse's state when the file only grew.
 */
export const codexParser: Parser = withPromptHistory(
  {
    id: "codex",
    // 3: a reply recorded only as an `agent_message` event is kept (issue 37).
    // 4: turns carry the model and tokens of their `token_count` events (issue 38 item 14).
    // 5: the session carries the summaries of its `compacted` records as its abstract (issue 41).
    version: 5,
    scan: (roots) => scanCodexRoots(roots),
    scansContainerPaths: true,
    rescanFolders: (roots, folders) => rescanCodexFolders(roots, folders),
    listUnits: (containers, hooks) => listCodexUnits(containers, hooks),
    parse: (unit, options) => parseSide().parseCodexUnit(unit, options),
    // `sessions/YYYY/MM/DD/`, `archived_sessions/`: rollouts and session_index.jsonl titles start a cycle.
    watch: { kind: "tree", depth: agentTreeDepth, isSessionFile: isJsonSessionFile, missingRootPending: true },
    // Codex CLI docs: `codex resume <SESSION_ID>`.
    resumeInvocation: (sessionId, projectPath) => ({
      cwd: projectPath || undefined,
      argv: ["codex", "resume", sessionId],
    }),
  },
  codexHistorySpec,
);
