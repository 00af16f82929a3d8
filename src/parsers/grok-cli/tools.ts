/**
 * Grok CLI tool calls → the shared vocabulary (src/parsers/tool-calls.ts). A call is an assistant message part
 * `{type: "tool-call", toolCallId, toolName, input}`; its result a `tool` message part `{type: "tool-result",
 * toolCallId, toolName, output: {type: "json" | "text" | "error-text" | …, value}}`, the json value being the CLI's
 * `ToolResult {success, output?, error?, diff?, …}` (AI SDK 6 `ModelMessage`; superagent-ai/grok-cli
 * `src/storage/tool-results.ts` `extractToolResultFromOutput`, commit fb97af83). Tools and inputs from
 * `src/grok/tools.ts` (same commit): `bash {command}`, `read_file {path, start_line?, end_line?}`,
 * `write_file {path, content}`, `edit_file {path, old_string, new_string}`, `grep {pattern, path?, include?}`,
 * `search_web {query}`, `task {agent, description, prompt}` (a sub-agent); others (`search_x`, `lsp`, `computer_*`,
 * `generate_image`, …) pass unchanged.
 */
import { withFileChange } from "../file-change.ts";
import { buildToolCall, normalizeToolInput, normalizeToolName } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";

/** Grok CLI tool names → shared names; others go through `normalizeToolName` or pass unchanged. */
const grokToolNames: Record<string, string> = {
  read_file: "Read",
  write_file: "Write",
  edit_file: "Edit",
  search_web: "WebSearch",
};

/** The shared name of a Grok CLI call. Examples: `bash` → `Bash`; `edit_file` → `Edit`; `search_x` → `search_x`. */
export function grokToolName(name: string): string {
  return grokToolNames[name] ?? normalizeToolName(name);
}

/**
 * One call as recall keeps it: shared name, compact input, file path, edit line counts; with `withChange` (level 3)
 * also the change to draw.
 */
export function grokToolCall(name: string, rawInput: unknown, withChange: boolean): ToolCall {
  const shared = grokToolName(name);
  const input = normalizeToolInput(rawInput);
  if ((shared === "Read" || shared === "Write" || shared === "Edit") && input.file_path === undefined)
    input.file_path = input.path;
  const call = buildToolCall(shared, input, false);
  return withChange ? withFileChange(call, input) : call;
}

/**
 * What a `tool-result` part's `output` says: its text (the ToolResult's `output`, else its `error`, else the value as
 * JSON) and whether the call failed (`success: false`, or an `error-*` output).
 * Examples: `{type:"json",value:{success:true,output:"ok"}}` → ("ok", false); `{type:"error-text",value:"boom"}` →
 *   ("boom", true).
 */
export function toolOutputOf(output: unknown): { text: string; isError: boolean } {
  if (output === null || typeof output !== "object")
    return { text: typeof output === "string" ? output : "", isError: false };
  const record = output as Record<string, unknown>;
  const kind = typeof record.type === "string" ? record.type : "";
  const value = "value" in record ? record.value : record;
  if (value !== null && typeof value === "object" && "success" in value) {
    const result = value as Record<string, unknown>;
    const text = [result.output, result.error].find((part) => typeof part === "string" && part.length > 0);
    return { text: typeof text === "string" ? text : "", isError: result.success === false };
  }
  const text = typeof value === "string" ? value : value === undefined ? "" : JSON.stringify(value);
  return { text, isError: kind.startsWith("error") };
}
