/**
 * Kimi CLI tool calls → the shared vocabulary (src/parsers/tool-calls.ts). A call is a wire `ToolCall` `{id, function:
 * {name, arguments}}` whose arguments are a JSON string (streamed pieces `ToolCallPart {arguments_part}` appended);
 * its result a `ToolResult {tool_call_id, return_value: {is_error, output, message}}`. Names and parameters are those of
 * MoonshotAI/kimi-cli `src/kimi_cli/tools/` (commit 4a550eff): `Shell {command}`, `ReadFile {path}`, `ReadMediaFile
 * {path}`, `WriteFile {path, content, mode}`, `StrReplaceFile {path, edit: {old, new} | [{old, new}]}`, `Glob {pattern,
 * directory}`, `Grep {pattern, path}`, `FetchURL {url}`, `SearchWeb {query}`, `Agent {description, prompt}` (named
 * `Task` before), `SetTodoList {todos}`; others (`Think`, `AskUserQuestion`, `ExitPlanMode`, MCP tools) keep their name.
 */
import { withFileChange } from "../file-change.ts";
import { buildToolCall } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";

/** Kimi CLI tool names → shared names. */
const kimiToolNames: Record<string, string> = {
  Shell: "Bash",
  ReadFile: "Read",
  ReadMediaFile: "Read",
  WriteFile: "Write",
  StrReplaceFile: "Edit",
  Glob: "Glob",
  Grep: "Grep",
  FetchURL: "WebFetch",
  SearchWeb: "WebSearch",
  Agent: "Task",
  Task: "Task",
  SetTodoList: "TodoWrite",
};

/** The arguments object of a call: its JSON text decoded; `{}` when absent, `{input: text}` when not JSON. */
export function argumentsOf(text: string | null): Record<string, unknown> {
  if (!text) return {};
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : {};
  } catch {
    return { input: text };
  }
}

/** Kimi's parameters → the names `buildToolCall` and file-change.ts read. */
function adaptArguments(name: string, args: Record<string, unknown>): Record<string, unknown> {
  const input: Record<string, unknown> = { ...args };
  if (typeof args.path === "string" && (name === "Read" || name === "Write" || name === "Edit" || name === "MultiEdit"))
    input.file_path = args.path;
  if (name === "Glob" && input.path === undefined && typeof args.directory === "string") input.path = args.directory;
  return input;
}

/**
 * One call as recall keeps it. `StrReplaceFile` with one edit is an `Edit` (`old_string`/`new_string`), with a list a
 * `MultiEdit`; with `withChange` (level 3) also the change to draw. `isError` starts false; the result sets it.
 * Example: (`Shell`, `{"command":"pytest -q"}`) → `{name:"Bash", input:"pytest -q", isError:false}`.
 */
export function kimiToolCall(name: string, argumentsText: string | null, withChange: boolean): ToolCall {
  const args = argumentsOf(argumentsText);
  let shared = kimiToolNames[name] ?? name;
  const input = adaptArguments(shared, args);
  if (shared === "Edit") {
    const edits = (Array.isArray(args.edit) ? args.edit : [args.edit]).map((edit) => {
      const record = edit !== null && typeof edit === "object" ? (edit as Record<string, unknown>) : {};
      return { old_string: record.old, new_string: record.new };
    });
    if (Array.isArray(args.edit)) {
      shared = "MultiEdit";
      input.edits = edits;
    } else Object.assign(input, edits[0]);
  }
  const call = buildToolCall(shared, input, false);
  return withChange ? withFileChange(call, input) : call;
}
