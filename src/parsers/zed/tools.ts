/**
 * Zed agent tool uses → the shared vocabulary (src/parsers/tool-calls.ts). A call is an agent message's `ToolUse {id,
 * name, raw_input, input, is_input_complete}` and its result the message's `tool_results[id] {tool_use_id, tool_name,
 * is_error, content: {Text: …} | {Image: …}, output}` (zed-industries/zed crates/agent/src/thread.rs,
 * crates/language_model LanguageModelToolResult). Tool names and inputs are those of Zed's built-in tools
 * (crates/agent/src/tools/): `terminal {command, cd}`, `read_file {path, start_line, end_line}`, `edit_file
 * {display_description, path, mode}`, `grep {regex, include_pattern}`, `find_path {glob}`, `list_directory {path}`,
 * `fetch {url}`, `web_search {query}`; others (`delete_path`, `move_path`, `diagnostics`, `thinking`, MCP tools) keep
 * their name.
 */
import { withFileChange } from "../file-change.ts";
import { asObject } from "../shared/fields.ts";
import { buildToolCall } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";

/** Zed tool names → shared names. */
const zedToolNames: Record<string, string> = {
  terminal: "Bash",
  read_file: "Read",
  edit_file: "Edit",
  grep: "Grep",
  find_path: "Glob",
  list_directory: "LS",
  fetch: "WebFetch",
  web_search: "WebSearch",
};

/** Zed's parameters → the names `buildToolCall` reads. */
function adaptInput(name: string, input: Record<string, unknown>): Record<string, unknown> {
  const adapted: Record<string, unknown> = { ...input };
  if ((name === "Read" || name === "Edit") && typeof input.path === "string") adapted.file_path = input.path;
  if (name === "Grep" && typeof input.regex === "string") {
    adapted.pattern = input.regex;
    if (typeof input.include_pattern === "string") adapted.glob = input.include_pattern;
  }
  if (name === "Glob" && typeof input.glob === "string") adapted.pattern = input.glob;
  if (name === "Edit" && typeof input.display_description === "string") adapted.description = input.display_description;
  return adapted;
}

/**
 * One call as recall keeps it; with `withChange` (level 3) also the change to draw. `isError` starts false.
 * Example: (`terminal`, `{command: "cargo test", cd: "zed"}`) → `{name: "Bash", input: "cargo test", isError: false}`.
 */
export function zedToolCall(name: string, input: unknown, withChange: boolean): ToolCall {
  const shared = zedToolNames[name] ?? name;
  const adapted = adaptInput(shared, asObject(input) ?? {});
  const call = buildToolCall(shared, adapted, false);
  return withChange ? withFileChange(call, adapted) : call;
}
