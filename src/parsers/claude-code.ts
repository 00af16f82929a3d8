/**
 * Claude Code parser (docs/formats.md §1; versions checked: 1.0.17 – 2.1.114 in ../shared/corpus).
 * Data: `~/.claude/projects/<encoded-cwd>/<session>.jsonl` (+ `agent-*.jsonl`, `<session>/subagents/`),
 * moved by `CLAUDE_CONFIG_DIR`; recall's own overrides are `--claude-dir` / `RECALL_CLAUDE_DIRS`
 * (src/parsers/paths.ts). One container = one unit = one JSONL file. Session ids: the file stem, i.e.
 * the Claude session UUID for main files and `agent-<agentId>` for sub-agent files (their
 * `parentSessionId` is the `sessionId` field of their lines). "Warmup" agent files yield 0 turns.
 * Implementation lives in ./claude-code/ (scan, records, meta, tree, turns, resume, parse, tool-results).
 */
import type { Parser } from "./types.ts";
import { parseClaudeUnit } from "./claude-code/parse.ts";
import { listClaudeUnits, scanClaudeRoots } from "./claude-code/scan.ts";

export { parseClaudeUnit } from "./claude-code/parse.ts";
export { describePath, listClaudeUnits, scanClaudeRoots, unitForContainer, type AgentKind, type PathInfo } from "./claude-code/scan.ts";
export { classifyPromptText } from "./claude-code/records.ts";
export { projectNameOf } from "./shared/fields.ts";
export type { ClaudeResumeState } from "./claude-code/resume.ts";

/**
 * The Claude Code `Parser`: `scan` walks roots by stats only; `listUnits` maps each file to one unit
 * (deduplicating copies of the same file); `parse` reads one file, resuming from the state of an
 * earlier parse when the file only grew (see ./claude-code/parse.ts).
 */
export const claudeCodeParser: Parser = {
  id: "claude-code",
  scan: (roots) => scanClaudeRoots(roots),
  listUnits: (containers) => listClaudeUnits(containers),
  parse: (unit, options) => parseClaudeUnit(unit, options),
};
