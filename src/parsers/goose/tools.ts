/**
 * Goose's tool calls in the shared vocabulary (tool-calls.ts). Goose names a tool `<extension>__<tool>`; its built-in
 * developer extension's tool definitions (`DEVELOPER_*_TOOL_NAME`, block/goose `crates/goose-mcp/src/developer/`) have
 * `developer__shell {command}` (→ `Bash`), `developer__glob {pattern, path?}` (→ `Glob`) and `developer__text_editor
 * {command, path, file_text?, old_str?, new_str?, …}`, read by its `command`: `view` → `Read`, `write` → `Write`
 * (`file_text` as the content), `str_replace` → `Edit`. Any other command (`insert`, `undo_edit`) and every other tool
 * (`developer__grep {command}`, other extensions' tools) keep their names.
 */
import { withFileChange } from "../file-change.ts";
import { buildToolCall, normalizeToolInput } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";

const developerTools = new Map([
  ["shell", "Bash"],
  ["glob", "Glob"],
]);
const editorCommands = new Map([
  ["view", "Read"],
  ["write", "Write"],
  ["str_replace", "Edit"],
]);

/** A `toolRequest`'s `toolCall.value {name, arguments}` as a `ToolCall` (no output; its change when `withChange`). */
export function gooseToolCall(name: string, args: unknown, withChange: boolean): ToolCall {
  const input = normalizeToolInput(args);
  const tool = name.startsWith("developer__") ? name.slice("developer__".length) : "";
  let normalized = developerTools.get(tool) ?? name;
  if (tool === "text_editor" && typeof input.command === "string") {
    normalized = editorCommands.get(input.command) ?? name;
    if (normalized !== name) input.file_path ??= input.path;
    if (normalized === "Write") input.content ??= input.file_text;
    if (normalized === "Edit") {
      input.old_string ??= input.old_str;
      input.new_string ??= input.new_str;
    }
  }
  const call = buildToolCall(normalized, input, false);
  return withChange ? withFileChange(call, input) : call;
}

/**
 * A `toolResponse`'s `toolResult`: `{status:"success", value}` where `value` is rmcp's `CallToolResult {content,
 * isError?}` or, in older sessions, the content list itself (`conversation/tool_result_serde.rs` at 05132966); or
 * `{status:"error", error}`.
 * @returns the text blocks joined by "\n", and whether the call failed
 */
export function gooseToolResult(result: unknown): { text: string; isError: boolean } {
  const record = result !== null && typeof result === "object" ? (result as Record<string, unknown>) : {};
  if (record.status === "error") return { text: typeof record.error === "string" ? record.error : "", isError: true };
  const value = record.value;
  const content = Array.isArray(value) ? value : (value as { content?: unknown } | null)?.content;
  const isError = !Array.isArray(value) && (value as { isError?: unknown } | null)?.isError === true;
  const texts = Array.isArray(content)
    ? content
        .filter((block) => block?.type === "text" && typeof block.text === "string")
        .map((block) => block.text as string)
    : [];
  return { text: texts.join("\n"), isError };
}
