/**
 * Continue's tool calls in the shared vocabulary (tool-calls.ts). Continue's built-in tools (`core/tools/builtIn.ts`
 * `BuiltInToolNames`, inputs in `core/tools/definitions/*.ts` at d0a3c0b6): `read_file` and `read_file_range
 * {filepath, …}` (→ `Read`), `create_new_file {filepath, contents}` (→ `Write`), `single_find_and_replace {filepath,
 * old_string, new_string, replace_all?}` (→ `Edit`), `multi_edit {filepath, edits}` (→ `MultiEdit`),
 * `edit_existing_file {filepath, changes}` (→ `Edit`, a sketch of the change, not a replacement: no change drawn),
 * `run_terminal_command {command}` (→ `Bash`), `grep_search {query}` (→ `Grep`), `file_glob_search {pattern}` (→
 * `Glob`), `search_web {query}` (→ `WebSearch`), `fetch_url_content {url}` (→ `WebFetch`), `ls {dirPath}` (→ `LS`);
 * MCP and other tools keep their names.
 */
import { withFileChange } from "../file-change.ts";
import { buildToolCall, normalizeToolInput } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";

const continueNames = new Map([
  ["read_file", "Read"],
  ["read_file_range", "Read"],
  ["create_new_file", "Write"],
  ["single_find_and_replace", "Edit"],
  ["multi_edit", "MultiEdit"],
  ["edit_existing_file", "Edit"],
  ["run_terminal_command", "Bash"],
  ["grep_search", "Grep"],
  ["file_glob_search", "Glob"],
  ["search_web", "WebSearch"],
  ["fetch_url_content", "WebFetch"],
  ["ls", "LS"],
]);

/**
 * A tool call as a `ToolCall` (no output yet; its change when `withChange`).
 * @param args the parsed arguments, or the JSON text the model streamed (`function.arguments`)
 */
export function continueToolCall(name: string, args: unknown, withChange: boolean): ToolCall {
  let parsed = args;
  if (typeof args === "string") {
    try {
      parsed = args.length > 0 ? JSON.parse(args) : {};
    } catch {
      parsed = { arguments: args }; // cut off mid-stream: its text kept as it is
    }
  }
  const input = normalizeToolInput(parsed);
  const normalized = continueNames.get(name) ?? name;
  if (normalized !== name) {
    input.file_path ??= input.filepath;
    if (normalized === "Write") input.content ??= input.contents;
  }
  const call = buildToolCall(normalized, input, false);
  if (name === "edit_existing_file") {
    delete call.linesAdded; // `changes` is a sketch with "… existing code …" markers: no line counts, no change
    delete call.linesRemoved;
    return call;
  }
  return withChange ? withFileChange(call, input) : call;
}
