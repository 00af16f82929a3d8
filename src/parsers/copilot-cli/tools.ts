/**
 * GitHub Copilot CLI tool calls → the shared vocabulary (src/parsers/tool-calls.ts). A call is an
 * `assistant.message` `toolRequests[]` entry `{toolCallId, name, arguments, mcpServerName?, mcpToolName?}` or, for a
 * call no message announced, a `tool.execution_start` `{toolCallId, toolName, arguments}`; its end is the
 * `tool.execution_complete` `{toolCallId, success, result: {content, detailedContent?}, error?: {message}}`
 * (github/copilot-sdk nodejs/src/generated/session-events.ts, commit cc0438d6). Tool and argument names are those seen
 * in logs people published: `bash {command, description}`, `view {path}`, `edit {path, old_str, new_str}`,
 * `create {path, file_text}`, `grep {pattern, path}`, `glob {pattern}`, `web_fetch {url}`, `task {description, prompt}`,
 * `skill {skill}` (a CLI 1.0.76 session exported with its raw event lines, "Copilot CLI Session 0465767f-…", by
 * edburns of github/copilot-sdk: its repository could not be pinned; test logs of wesm/agentsview
 * internal/parser/copilot_test.go, commit aea2eb12; docs/formats/copilot-cli.md).
 */
import { withFileChange } from "../file-change.ts";
import { buildToolCall, normalizeToolInput, normalizeToolName } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";

/** Copilot CLI tool names → shared names; others go through `normalizeToolName` (`skill` → `Skill`) or pass unchanged. */
const copilotToolNames: Record<string, string> = {
  bash: "Bash",
  powershell: "Bash",
  view: "Read",
  edit: "Edit",
  str_replace: "Edit",
  create: "Write",
  grep: "Grep",
  rg: "Grep",
  glob: "Glob",
  web_fetch: "WebFetch",
  web_search: "WebSearch",
  task: "Task",
};

/** `str_replace_editor {command, path, …}` (early builds): the shared name of each command. */
const editorCommands: Record<string, string> = { view: "Read", create: "Write", str_replace: "Edit", insert: "Edit" };

/**
 * The shared name of a Copilot CLI call.
 * Examples: (`bash`) → `Bash`; (`view`) → `Read`; (`github-mcp-server-get_issue`, server `github-mcp-server`, tool
 *   `get_issue`) → `mcp__github-mcp-server__get_issue`; (`str_replace_editor`, {command: "create"}) → `Write`;
 *   (`report_intent`) → `report_intent`.
 */
export function copilotToolName(name: string, args: Record<string, unknown>, server?: string, tool?: string): string {
  if (server && tool) return `mcp__${server}__${tool}`;
  if (name === "str_replace_editor" && typeof args.command === "string") return editorCommands[args.command] ?? name;
  return copilotToolNames[name] ?? normalizeToolName(name);
}

/** Copilot argument names → the names `buildToolCall` and file-change.ts read. */
function adaptArguments(name: string, args: Record<string, unknown>): Record<string, unknown> {
  const input = normalizeToolInput(args);
  if ((name === "Read" || name === "Edit" || name === "Write") && input.file_path === undefined)
    input.file_path = input.path;
  if (input.old_string === undefined && input.old_str !== undefined) input.old_string = input.old_str;
  if (input.new_string === undefined && input.new_str !== undefined) input.new_string = input.new_str;
  if (name === "Write" && input.content === undefined) input.content = input.file_text;
  return input;
}

/**
 * One call as recall keeps it: shared name, compact input, file path, edit line counts; with `withChange` (level 3)
 * also the change to draw. `isError` starts false and is set when the call's completion says so.
 */
export function copilotToolCall(
  name: string,
  rawArgs: unknown,
  withChange: boolean,
  server?: string,
  tool?: string,
): ToolCall {
  const args = argumentsOf(rawArgs);
  const shared = copilotToolName(name, args, server, tool);
  const input = adaptArguments(shared, args);
  const call = buildToolCall(shared, input, false);
  return withChange ? withFileChange(call, input) : call;
}

/** Arguments as an object: Copilot writes an object; a JSON string (seen in hand-made logs) is decoded. */
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
 * The output text of a `tool.execution_complete`: `result.detailedContent` (the whole text, diffs included), else
 * `result.content` (what the model saw), else `error.message`; "" when none.
 */
export function toolOutputOf(data: Record<string, unknown>): string {
  const result = data.result;
  if (typeof result === "string") return result;
  if (result !== null && typeof result === "object") {
    const record = result as Record<string, unknown>;
    for (const key of ["detailedContent", "content"]) {
      const text = record[key];
      if (typeof text === "string" && text.length > 0) return text;
    }
  }
  const error = data.error;
  if (error !== null && typeof error === "object") {
    const message = (error as Record<string, unknown>).message;
    if (typeof message === "string") return message;
  }
  return "";
}
