/**
 * Mistral Vibe tool calls → the shared vocabulary (src/parsers/tool-calls.ts). A call is an assistant message's
 * `tool_calls[]` entry `{id, index, type: "function", function: {name, arguments}}` with `arguments` a JSON string; its
 * result a `tool` message `{content, name, tool_call_id}` whose content starts with `<tool_error>` when the call
 * failed (mistralai/mistral-vibe `vibe/core/types.py` `ToolCall`, `vibe/core/agent_loop.py` and
 * `vibe/core/utils/tags.py` `TOOL_ERROR_TAG`, commit ac8f1a09). A tool's name is its class name in snake case
 * (`vibe/core/tools/base.py` `get_name`); arguments as `vibe/core/tools/builtins/` defines them: `bash {command}`,
 * `read {file_path}`, `edit {file_path, old_string, new_string}`, `write_file {path, content}`, `grep {pattern, path}`,
 * `web_fetch {url}`, `web_search {query}`, `task {task, agent}` (a sub-agent run in memory: its answer is the call's
 * result); before June 2026 (commit 3f8487f removed them) `read_file {path}` and `search_replace {file_path, content}`
 * (SEARCH/REPLACE blocks). Other names (`todo`, `ask_user_question`, MCP tools) pass unchanged.
 */
import { withFileChange } from "../file-change.ts";
import { buildToolCall, normalizeToolInput, normalizeToolName } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";

/** Vibe tool names → shared names; others go through `normalizeToolName` or pass unchanged. */
const vibeToolNames: Record<string, string> = {
  read_file: "Read",
  write_file: "Write",
  search_replace: "Edit",
  web_fetch: "WebFetch",
  web_search: "WebSearch",
};

/** The shared name of a Vibe call. Examples: `bash` → `Bash`; `read_file` → `Read`; `todo` → `todo`. */
export function vibeToolName(name: string): string {
  return vibeToolNames[name] ?? normalizeToolName(name);
}

/** Arguments as an object: Vibe writes a JSON string; a string that is not JSON is kept as `{input}`. */
function argumentsOf(value: unknown): Record<string, unknown> {
  if (typeof value === "string") {
    try {
      return argumentsOf(JSON.parse(value));
    } catch {
      return { input: value };
    }
  }
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/**
 * One call as recall keeps it: shared name, compact input, file path, edit line counts; with `withChange` (level 3)
 * also the change to draw. `isError` starts false and is set from the call's result.
 */
export function vibeToolCall(name: string, rawArguments: unknown, withChange: boolean): ToolCall {
  const shared = vibeToolName(name);
  const input = normalizeToolInput(argumentsOf(rawArguments));
  if ((shared === "Read" || shared === "Write" || shared === "Edit") && input.file_path === undefined)
    input.file_path = input.path;
  if (shared === "Task" && input.prompt === undefined) input.prompt = input.task;
  const call = buildToolCall(shared, input, false);
  return withChange ? withFileChange(call, input) : call;
}

/** Whether a tool result's content is Vibe's error form `<tool_error>…</tool_error>`. */
export function isToolError(content: string): boolean {
  return content.trimStart().startsWith("<tool_error>");
}
