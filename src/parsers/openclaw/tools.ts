/**
 * OpenClaw tool calls → the shared vocabulary (src/parsers/tool-calls.ts). A call is an assistant content block
 * `{type: "toolCall", id, name, arguments}`; its result a `toolResult` message `{toolCallId, toolName, content[],
 * isError}` (badlogic/pi-mono packages/coding-agent/docs/session.md and src/core/session-manager.ts, commit 83378aad,
 * the agent library OpenClaw runs). Arguments as pi's tools define them (packages/coding-agent/src/core/tools/,
 * commit 83378aad): `read {path, offset?, limit?}`, `write {path, content}`, `edit {path, oldText, newText}`,
 * `bash {command}`, `grep {pattern, path?}`, `find {pattern, path?}`, `ls {path?}`; OpenClaw's own (docs.openclaw.ai
 * tools pages): `exec {command, workdir?}`, `apply_patch {input}`, `web_search {query}`, `web_fetch {url}`,
 * `sessions_spawn {task, label?}` (a sub-agent). Other names (`process`, `browser`, `message`, …) pass unchanged.
 */
import { withFileChange } from "../file-change.ts";
import { buildToolCall, normalizeToolInput, normalizeToolName } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";

/** OpenClaw and pi tool names → shared names; others go through `normalizeToolName` or pass unchanged. */
const openclawToolNames: Record<string, string> = {
  exec: "Bash",
  bash: "Bash",
  find: "Glob",
  web_search: "WebSearch",
  web_fetch: "WebFetch",
  sessions_spawn: "Task",
};

/**
 * The shared name of an OpenClaw call.
 * Examples: `exec` → `Bash`; `read` → `Read`; `apply_patch` → `Patch`; `sessions_spawn` → `Task`; `browser` → `browser`.
 */
export function openclawToolName(name: string): string {
  return openclawToolNames[name] ?? normalizeToolName(name);
}

/** OpenClaw argument names → the names `buildToolCall` and file-change.ts read. */
function adaptArguments(name: string, args: unknown): Record<string, unknown> {
  const input = normalizeToolInput(args);
  if ((name === "Read" || name === "Edit" || name === "Write") && input.file_path === undefined)
    input.file_path = input.path;
  if (input.old_string === undefined && input.old_text !== undefined) input.old_string = input.old_text;
  if (input.new_string === undefined && input.new_text !== undefined) input.new_string = input.new_text;
  if (name === "Task") {
    if (input.description === undefined) input.description = input.label ?? input.task;
    if (input.prompt === undefined) input.prompt = input.task;
  }
  return input;
}

/**
 * One call as recall keeps it: shared name, compact input, file path, edit line counts; with `withChange` (level 3)
 * also the change to draw. `isError` starts false and is set from the call's `toolResult`.
 */
export function openclawToolCall(name: string, args: unknown, withChange: boolean): ToolCall {
  const shared = openclawToolName(name);
  const input = adaptArguments(shared, args);
  const call = buildToolCall(shared, input, false);
  return withChange ? withFileChange(call, input) : call;
}

/**
 * The text of a message's `content`: a string as is, or its `text` blocks joined by blank lines (images and other
 * blocks carry no text). Example: `[{type:"text",text:"a"},{type:"image"},{type:"text",text:"b"}]` → `a\n\nb`.
 */
export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  const parts: string[] = [];
  for (const block of content) {
    if (block === null || typeof block !== "object") continue;
    const record = block as Record<string, unknown>;
    if (record.type === "text" && typeof record.text === "string" && record.text.length > 0) parts.push(record.text);
  }
  return parts.join("\n\n");
}
