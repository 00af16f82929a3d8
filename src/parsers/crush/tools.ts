/**
 * Crush's tool calls in the shared vocabulary (tool-calls.ts). Crush's tools (charmbracelet/crush `internal/agent/
 * tools/*.go`, inputs in `internal/proto/tools.go` at 37f36e93) take Claude Code's snake_case inputs: `bash {command}`,
 * `view {file_path}` (→ `Read`), `edit {file_path, old_string, new_string}`, `multiedit {file_path, edits}`, `write
 * {file_path, content}`, `glob {pattern, path}`, `grep {pattern, path, include}`, `ls {path}`, `fetch` and `web_fetch
 * {url}` (→ `WebFetch`), `web_search {query}` (→ `WebSearch`), `agent {prompt}` (→ `Task`), `todos` (→ `TodoWrite`);
 * MCP and other tools keep their names. A call's `input` is the JSON text the model streamed.
 */
import { withFileChange } from "../file-change.ts";
import { buildToolCall, normalizeToolInput, normalizeToolName } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";

const crushNames = new Map([
  ["view", "Read"],
  ["fetch", "WebFetch"],
  ["web_fetch", "WebFetch"],
  ["web_search", "WebSearch"],
  ["todos", "TodoWrite"],
]);

/** A `tool_call` part's `{name, input}` as a `ToolCall` (no output yet; its change when `withChange`). */
export function crushToolCall(name: string, inputJson: unknown, withChange: boolean): ToolCall {
  let parsed: unknown = {};
  if (typeof inputJson === "string" && inputJson.length > 0) {
    try {
      parsed = JSON.parse(inputJson);
    } catch {
      parsed = { input: inputJson }; // a call cut off mid-stream: its text kept as it is
    }
  }
  const input = normalizeToolInput(parsed);
  const call = buildToolCall(crushNames.get(name) ?? normalizeToolName(name), input, false);
  return withChange ? withFileChange(call, input) : call;
}
