/**
 * Qwen Code tool names → the shared vocabulary, for the names Gemini CLI's map (gemini-cli/tools.ts) does not know.
 * Qwen Code keeps Gemini CLI's `run_shell_command`, `read_file`, `write_file`, `edit`, `glob`, `grep_search`,
 * `list_directory`, `web_fetch` (with their arguments) and names its own: QwenLM/qwen-code
 * `packages/core/src/tools/tool-names.ts` (`ToolNames`, `ToolNamesMigration`), commit 00ac46fe.
 */

/** Qwen Code's own tool names (current and legacy) → shared names. */
const qwenToolNames: Record<string, string> = {
  agent: "Task",
  task: "Task", // legacy name of `agent`
  web_search: "WebSearch",
  todo_write: "TodoWrite", // legacy, replaced by the task_* tools
  skill: "Skill",
  ask_user_question: "AskUserQuestion",
};

/**
 * The name to hand to Gemini CLI's `toToolCall`: a shared name for Qwen's own tools, else the name as written (Gemini
 * CLI's map then normalizes it). Examples: `agent` → `Task`; `web_search` → `WebSearch`; `run_shell_command` →
 * `run_shell_command` (→ `Bash` there); `mcp__github__get_issue` unchanged.
 */
export function qwenToolName(name: string): string {
  return qwenToolNames[name] ?? name;
}
