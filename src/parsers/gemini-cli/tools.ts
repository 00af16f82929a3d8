/**
 * Gemini CLI tool calls → the shared vocabulary (src/parsers/tool-calls.ts). Owns the name map
 * (`run_shell_command` → `Bash`, `mcp_<server>_<tool>` → `mcp__<server>__<tool>`, …), the argument
 * renames that let `buildToolCall` find the path / command / pattern, the status → `isError` rule and
 * the output text of a `ToolCallRecord` (docs/formats.md §4.2). Names and argument names are those of
 * google-gemini/gemini-cli `packages/core/src/tools/tool-names.ts` and `definitions/coreTools.ts`,
 * checked against every tool name in ../shared/corpus/gemini-cli (2025-10 … 2026-04).
 */
import { withFileChange } from "../file-change.ts";
import { buildToolCall, normalizeToolInput } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";

/**
 * Gemini CLI tool names → shared names. Names not listed pass through unchanged (`read_many_files`,
 * `save_memory`, `cli_help`, `complete_task`, `codebase_investigator`, `tracker_*`, …): they have no
 * equivalent in the Claude Code vocabulary, which is the reference.
 */
const geminiToolNames: Record<string, string> = {
  run_shell_command: "Bash",
  read_file: "Read",
  write_file: "Write",
  replace: "Edit",
  edit: "Edit",
  glob: "Glob",
  // `search_file_content` is the legacy name of `grep_search` (TOOL_LEGACY_ALIASES in tool-names.ts).
  search_file_content: "Grep",
  grep_search: "Grep",
  grep: "Grep",
  list_directory: "LS",
  web_fetch: "WebFetch",
  google_web_search: "WebSearch",
  write_todos: "TodoWrite",
  ask_user: "AskUserQuestion",
  activate_skill: "Skill",
};

/**
 * Normalize a Gemini CLI tool name.
 * Examples: `run_shell_command` → `Bash`; `search_file_content` → `Grep`;
 *   `mcp_postgresql_execute_sql` → `mcp__postgresql__execute_sql` (Gemini splits server and tool at the
 *   second `_`, parseMcpToolName in mcp-tool.ts); `read_many_files` → `read_many_files`.
 */
export function normalizeGeminiToolName(name: string): string {
  const mapped = geminiToolNames[name];
  if (mapped) return mapped;
  if (name.startsWith("mcp_") && !name.startsWith("mcp__")) {
    const rest = name.slice(4);
    const split = rest.indexOf("_");
    if (split > 0 && split < rest.length - 1) return `mcp__${rest.slice(0, split)}__${rest.slice(split + 1)}`;
  }
  return name;
}

/** Gemini argument names → the names `buildToolCall` reads (file_path, path, include, url). */
function adaptArguments(name: string, args: Record<string, unknown>): Record<string, unknown> {
  const input = normalizeToolInput(args);
  if (input.file_path === undefined && typeof input.absolute_path === "string") input.file_path = input.absolute_path;
  if (name === "Read" || name === "Write" || name === "Edit") {
    if (input.file_path === undefined && typeof input.path === "string") input.file_path = input.path;
  }
  if (input.path === undefined && typeof input.dir_path === "string") input.path = input.dir_path;
  if (input.include === undefined && typeof input.include_pattern === "string") input.include = input.include_pattern;
  if (name === "WebFetch" && input.url === undefined && typeof input.prompt === "string") {
    // web_fetch takes a prompt that contains the URL(s); show the first URL, else the prompt.
    input.url = /https?:\/\/\S+/.exec(input.prompt)?.[0] ?? input.prompt;
  }
  if (name === "read_many_files" && Array.isArray(input.include)) {
    input.include = input.include.filter((entry) => typeof entry === "string").join(" ");
  }
  return input;
}

/** Statuses that mean the call did not succeed (`Status` of packages/core/src/scheduler/types.ts). */
const failedStatuses = new Set(["error", "cancelled"]);

/**
 * The text of a `result` list (`[{functionResponse: {response: {output | error}}}]`, or plain `{text}`
 * parts), joined by "\n"; non-string outputs are JSON-encoded. Falls back to a string `resultDisplay`.
 */
function resultText(raw: Record<string, unknown>): string {
  const texts: string[] = [];
  const result = raw.result;
  const parts = Array.isArray(result) ? result : result && typeof result === "object" ? [result] : [];
  for (const part of parts) {
    if (!part || typeof part !== "object") continue;
    const record = part as Record<string, unknown>;
    if (typeof record.text === "string") texts.push(record.text);
    const response = (record.functionResponse as { response?: unknown } | undefined)?.response;
    if (!response || typeof response !== "object") continue;
    for (const key of ["output", "error"]) {
      const value = (response as Record<string, unknown>)[key];
      if (typeof value === "string") texts.push(value);
      else if (value !== undefined && value !== null) texts.push(JSON.stringify(value));
    }
  }
  if (typeof result === "string") texts.push(result);
  if (texts.length === 0 && typeof raw.resultDisplay === "string") texts.push(raw.resultDisplay);
  return texts.join("\n");
}

/** True when any function response of the call carries an `error` field. */
function hasErrorResponse(raw: Record<string, unknown>): boolean {
  if (!Array.isArray(raw.result)) return false;
  return raw.result.some((part) => {
    const response = (part as { functionResponse?: { response?: unknown } } | null)?.functionResponse?.response;
    return !!response && typeof response === "object" && (response as Record<string, unknown>).error !== undefined;
  });
}

/**
 * One `ToolCallRecord` (§4.2: `{id, name, args, result, status, …}`) as a shared `ToolCall`.
 * `isError` is true for status `error` or `cancelled` (the user declined; Claude Code marks its
 * rejections `is_error` too) or when a function response has an `error` field. `output` (only when
 * `withOutputs`) is the function responses' output/error text; also only then, `replace {file_path, old_string,
 * new_string}` and `write_file {file_path, content}` keep what they changed (`change`, file-change.ts).
 * @returns null when the record has no string `name`
 * Example: `{name:"run_shell_command", args:{command:"ls"}, status:"success"}` → `{name:"Bash", input:"ls", isError:false}`.
 */
export function toToolCall(raw: unknown, withOutputs: boolean): ToolCall | null {
  if (!raw || typeof raw !== "object") return null;
  const record = raw as Record<string, unknown>;
  if (typeof record.name !== "string" || record.name.length === 0) return null;
  const name = normalizeGeminiToolName(record.name);
  const args =
    record.args && typeof record.args === "object" && !Array.isArray(record.args)
      ? (record.args as Record<string, unknown>)
      : {};
  const isError = (typeof record.status === "string" && failedStatuses.has(record.status)) || hasErrorResponse(record);
  const input = adaptArguments(name, args);
  const call = buildToolCall(name, input, isError);
  if (withOutputs) {
    call.output = resultText(record);
    withFileChange(call, input);
  }
  return call;
}
