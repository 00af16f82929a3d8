/**
 * Claude Code parser (docs/formats.md §1; versions checked: 1.0.17 – 2.1.114 in ../shared/corpus).
 * Data: `~/.claude/projects/<encoded-cwd>/<session>.jsonl` (+ `agent-*.jsonl`, `<session>/subagents/`),
 * moved by `CLAUDE_CONFIG_DIR`; recall's own overrides are `--claude-dir` / `RECALL_CLAUDE_DIRS`
 * (src/parsers/paths.ts). One container = one unit = one JSONL file. Session ids: the file stem, i.e.
 * the Claude session UUID for main files and `agent-<agentId>` for sub-agent files (their
 * `parentSessionId` is the `sessionId` field of their lines). "Warmup" agent files yield 0 turns.
 * The config folder's `history.jsonl` (typed prompts, §1.10) adds a prompt-only session for every session id whose
 * transcript is not listed (shared/prompt-history.ts); `isTranscript` tells the two kinds of container apart.
 * Implementation lives in ./claude-code/ (scan, records, meta, tree, turns, resume, parse, tool-results, history).
 */
import type { Parser, SourceContainer } from "./types.ts";
import { isPromptHistoryFile, withPromptHistory } from "./shared/prompt-history.ts";
import { claudeHistorySpec } from "./claude-code/history.ts";
import {
  copyAgentsPrefix,
  listClaudeUnits,
  rescanClaudeFolders,
  restatClaudeContainers,
  scanClaudeRoots,
} from "./claude-code/scan.ts";

export {
  describePath,
  listClaudeUnits,
  scanClaudeRoots,
  unitForContainer,
  type AgentKind,
  type PathInfo,
} from "./claude-code/scan.ts";
export { projectNameOf } from "./shared/fields.ts";
export type { ClaudeResumeState } from "./claude-code/resume.ts";

// the parse code loads at the first parse: a search's freshness check and resume commands never need it (issue 42)
const parseSide = () => require("./claude-code/parse.ts") as typeof import("./claude-code/parse.ts");

/**
 * The Claude Code `Parser`: `scan` walks roots by stats only; `listUnits` maps each transcript to one unit
 * (deduplicating copies of the same file) and adds the prompt-only sessions of `history.jsonl`; `parse` reads one file, resuming from the state of an
 * earlier parse when the file only grew (see ./claude-code/parse.ts).
 */
export const claudeCodeParser: Parser = withPromptHistory(
  {
    id: "claude-code",
    // 3: tool results without their call kept as calls; 2.0.x inline sub-agents and unowned sidechain lines (issue 37).
    // 4: turns carry their answers' models and tokens, once per message.id (issue 38 item 14).
    // 5: sessions carry their abstract: compaction summaries, recaps, every title the agent wrote (issue 41).
    version: 5,
    scan: (roots) => scanClaudeRoots(roots),
    scansContainerPaths: true,
    restatContainers: (paths) => restatClaudeContainers(paths),
    rescanFolders: (roots, folders) => rescanClaudeFolders(roots, folders),
    dependentsPrefix: (containerPath) => copyAgentsPrefix(containerPath),
    listUnits: (containers) => listClaudeUnits(containers),
    parse: (unit, options) => parseSide().parseClaudeUnit(unit, options),
    watch: { kind: "claude-projects" },
    // `claude --resume <id>` looks the id up under the folder it runs in (Claude Code CLI reference).
    resumeInvocation: (sessionId, projectPath) => ({
      cwd: projectPath || undefined,
      argv: ["claude", "--resume", sessionId],
    }),
  },
  claudeHistorySpec,
);

/** True for a transcript container, false for the prompt history (`history.jsonl`) that `scan` also lists. */
export const isTranscript = (container: Pick<SourceContainer, "path">): boolean =>
  !isPromptHistoryFile(claudeHistorySpec, container.path);
