/** Claude Code's identity and folders (source-info.ts; formats.md §1.1). */
import { join } from "node:path";
import { expandPath, splitList } from "../shared/folders.ts";
import type { SourceInfo } from "../source-info.ts";

/** `$CLAUDE_CONFIG_DIR/projects` (comma-separated folders allowed, as Claude Code does), else `~/.claude/projects`. */
export const claudeCodeSource: SourceInfo<"claudeDir"> = {
  id: "claude-code",
  displayName: "Claude Code",
  flag: "claude-dir",
  argName: "claudeDir",
  variable: "RECALL_CLAUDE_DIRS",
  locationVariables: ["CLAUDE_CONFIG_DIR"],
  help: "Claude Code history: a .claude folder, its projects folder or any copy of them; the history.jsonl next to projects/ adds the typed prompts of sessions without transcript (repeatable; default $CLAUDE_CONFIG_DIR/projects or ~/.claude/projects; env RECALL_CLAUDE_DIRS)",
  defaultRoots(env, home) {
    const dirs = splitList(env.CLAUDE_CONFIG_DIR, ",").map((dir) => join(expandPath(dir, home), "projects"));
    return dirs.length > 0 ? dirs : [join(home, ".claude", "projects")];
  },
};
