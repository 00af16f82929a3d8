/**
 * pi's tool calls in the shared vocabulary (tool-calls.ts). pi's built-in tools (badlogic/pi-mono
 * `packages/coding-agent/src/core/tools/*.ts` at 83378aad): `read {path, offset?, limit?}`, `bash {command,
 * timeout?}`, `edit {path, oldText, newText}`, `write {path, content}`, `grep {pattern, path?, glob?, …}`,
 * `find {pattern, path?}`, `ls {path?}`; extensions add tools under their own names (kept as named).
 */
import { withFileChange } from "../file-change.ts";
import { buildToolCall, normalizeToolInput, normalizeToolName } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";

/**
 * A `toolCall` content block `{type:"toolCall", id, name, arguments}` as a `ToolCall` (no output yet): `find` → `Glob`,
 * the others by tool-calls.ts; `edit`'s `oldText`/`newText` read as `old_string`/`new_string` (line counts, and the
 * change drawn at level 3 when `withChange`).
 */
export function piToolCall(name: string, args: unknown, withChange: boolean): ToolCall {
  const normalized = name === "find" ? "Glob" : normalizeToolName(name);
  const input = normalizeToolInput(args);
  if (normalized === "Edit") {
    input.old_string ??= input.old_text;
    input.new_string ??= input.new_text;
  }
  const call = buildToolCall(normalized, input, false);
  return withChange ? withFileChange(call, input) : call;
}

/** The text blocks of a tool result's `content` (string or `[{type:"text", text}|{type:"image"}]`), joined by "\n". */
export function resultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const texts: string[] = [];
  for (const block of content) {
    if (block?.type === "text" && typeof block.text === "string") texts.push(block.text);
  }
  return texts.join("\n");
}
