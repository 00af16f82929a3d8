/**
 * Cursor tool data → shared `ToolCall`s. Two shapes (docs/formats.md §5; layouts from third-party
 * readers: michaeldhood/chatrxiv docs/cursor/storage-reference.md, Cursor's ClientSideToolV2 names as
 * listed by jverre/agents-for-cursor investigations/TOOLS_SYSTEM.md):
 *   - newer bubbles: `toolFormerData {name, rawArgs|params (JSON text), result (JSON text), status}`
 *     with names like `run_terminal_cmd`, `read_file`, `edit_file`, `search_replace`, `write`,
 *     `grep_search`, `file_search`, `glob_file_search`, `list_dir`, `codebase_search`, `web_search`;
 *   - 2024 composer bubbles (real corpus): `codeBlocks[{uri:{fsPath,path}}]` = code proposed for a
 *     file, reported as an `Edit` of that file.
 */
import { asObject } from "../shared/fields.ts";
import { buildToolCall, normalizeToolName } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";

/** Cursor tool name (lower case, `_v2` suffix dropped) → shared vocabulary name. Unknown names pass through. */
const cursorToolNames: Record<string, string> = {
  run_terminal_cmd: "Bash",
  run_terminal_command: "Bash",
  read_file: "Read",
  edit_file: "Edit",
  search_replace: "Edit",
  multi_edit: "MultiEdit",
  write: "Write",
  create_file: "Write",
  grep_search: "Grep",
  grep: "Grep",
  ripgrep_search: "Grep",
  ripgrep_raw_search: "Grep",
  file_search: "Glob",
  glob_file_search: "Glob",
  list_dir: "LS",
  codebase_search: "CodeSearch",
  web_search: "WebSearch",
  fetch: "WebFetch",
  web_fetch: "WebFetch",
  todo_write: "TodoWrite",
  todo_read: "TodoRead",
  task: "Task",
};

/** Parse JSON text to an object; {} for anything else (arguments may be missing or partial while streaming). */
function jsonObject(text: unknown): Record<string, unknown> {
  if (typeof text !== "string" || text.length === 0) return asObject(text) ?? {};
  try {
    return asObject(JSON.parse(text)) ?? {};
  } catch {
    return {};
  }
}

const firstString = (input: Record<string, unknown>, ...keys: string[]): string | undefined => {
  for (const key of keys) {
    const value = input[key];
    if (typeof value === "string" && value.length > 0) return value;
  }
  return undefined;
};

/** Cursor argument names → the shared input keys `buildToolCall` reads (file_path, command, pattern, path, query, url). */
function sharedInput(name: string, args: Record<string, unknown>): Record<string, unknown> {
  const filePath = firstString(
    args,
    "file_path",
    "target_file",
    "targetFile",
    "path",
    "filePath",
    "relative_workspace_path",
  );
  switch (name) {
    case "Bash":
      return { command: firstString(args, "command", "cmd") ?? "" };
    case "Read":
      return { file_path: filePath ?? "" };
    case "Edit":
      return {
        file_path: filePath ?? "",
        old_string: args.old_string ?? args.oldString,
        new_string: args.new_string ?? args.newString,
      };
    case "Write":
      return { file_path: filePath ?? "", content: firstString(args, "contents", "content", "code_edit") ?? "" };
    case "Grep":
      return {
        pattern: firstString(args, "pattern", "query", "regex") ?? "",
        path: firstString(args, "path", "include_pattern", "glob"),
      };
    case "Glob":
      return {
        pattern: firstString(args, "glob_pattern", "pattern", "query") ?? "",
        path: firstString(args, "target_directory", "path"),
      };
    case "LS":
      return { path: firstString(args, "target_directory", "relative_workspace_path", "path") ?? "" };
    case "CodeSearch":
      return { query: firstString(args, "query") ?? "" };
    case "WebSearch":
      return { query: firstString(args, "search_term", "query") ?? "" };
    case "WebFetch":
      return { url: firstString(args, "url") ?? "" };
    case "Task":
      return { description: firstString(args, "description", "prompt") ?? "" };
    default:
      return args;
  }
}

/** Output text of a tool result: the JSON's `output`/`contents`/`content` string when it has one, else the raw text. */
function outputText(result: unknown): string {
  if (typeof result !== "string") return result === undefined || result === null ? "" : JSON.stringify(result);
  const parsed = jsonObject(result);
  return firstString(parsed, "output", "contents", "content", "text") ?? result;
}

/**
 * The tool call of one bubble's `toolFormerData`, or undefined when it names no tool.
 * `isError` when `status` or `additionalData.status` is "error". `output` only with `withOutputs`.
 */
export function toolFormerCall(data: Record<string, unknown>, withOutputs: boolean): ToolCall | undefined {
  const rawName = typeof data.name === "string" ? data.name : "";
  if (!rawName) return undefined;
  const base = rawName.toLowerCase().replace(/_v\d+$/, "");
  const name = cursorToolNames[base] ?? normalizeToolName(rawName);
  const args = { ...jsonObject(data.params), ...jsonObject(data.rawArgs) };
  const status = typeof data.status === "string" ? data.status : String(asObject(data.additionalData)?.status ?? "");
  const call = buildToolCall(name, sharedInput(name, args), status === "error");
  if (name === "Edit" && args.old_string === undefined && args.new_string === undefined) {
    delete call.linesAdded; // edit_file sends a sketch with "// ... existing code ..." markers, not old/new text
    delete call.linesRemoved;
  }
  if (withOutputs) call.output = outputText(data.result);
  return call;
}

/** File path of a code block's `uri` (`fsPath`, else the URI `path`), or undefined. */
function codeBlockPath(block: unknown): string | undefined {
  const uri = asObject(asObject(block)?.uri);
  if (!uri) return undefined;
  return firstString(uri, "fsPath", "path");
}

/**
 * `Edit` calls for the file-bound code blocks of a 2024 composer answer (`codeBlocks[].uri`), one per
 * file in first-mention order; code blocks without a file (plain Markdown fences) are not tool calls.
 * `output` (with `withOutputs`) is the block's proposed content from the composer's `codeBlockData` when found.
 */
export function codeBlockCalls(
  blocks: unknown,
  codeBlockData: Record<string, unknown> | undefined,
  withOutputs: boolean,
): ToolCall[] {
  if (!Array.isArray(blocks)) return [];
  const calls: ToolCall[] = [];
  const seen = new Set<string>();
  for (const block of blocks) {
    const filePath = codeBlockPath(block);
    if (!filePath || seen.has(filePath)) continue;
    seen.add(filePath);
    const call: ToolCall = { name: "Edit", input: filePath, filePath, isError: false };
    if (withOutputs) call.output = proposedContent(block, codeBlockData) ?? "";
    calls.push(call);
  }
  return calls;
}

function proposedContent(block: unknown, codeBlockData: Record<string, unknown> | undefined): string | undefined {
  const object = asObject(block);
  const external = asObject(object?.uri)?.external;
  if (!codeBlockData || typeof external !== "string") return undefined;
  const versions = codeBlockData[external];
  if (!Array.isArray(versions)) return undefined;
  const match = versions.find((entry) => asObject(entry)?.version === object?.version) ?? versions.at(-1);
  const content = asObject(match)?.content;
  return typeof content === "string" ? content : undefined;
}
