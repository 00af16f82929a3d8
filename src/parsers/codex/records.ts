/**
 * Codex rollout lines → compact, JSON-serializable items for turn grouping (docs/formats.md §3.2–§3.3).
 * One stream per kind of content, so nothing recorded twice is counted twice: prompts from
 * `event_msg user_message` (the `response_item` user copy is kept only as a fallback for rollouts that
 * have no `user_message` events at all), prose from `response_item` assistant messages (never
 * `agent_message`, never `reasoning`/`agent_reasoning`), tool calls and outputs from `response_item`.
 * Injected context (developer messages, AGENTS.md, `<environment_context>`, `<turn_aborted>` …) is dropped.
 */
import { asObject, timeOf } from "../shared/fields.ts";
import type { ToolCall } from "../types.ts";
import { callsOfItem, contentText, decodeOutput } from "./tools.ts";

/** One item of the turn stream; `t` is epoch ms UTC (0 when the line has no timestamp). */
export type Item =
  | { k: "task"; t: number }
  | { k: "end"; t: number }
  | { k: "prompt"; t: number; text: string }
  | { k: "userItem"; t: number; text: string }
  | { k: "shell"; t: number; text: string }
  | { k: "text"; t: number; text: string }
  | { k: "call"; t: number; id: string; rawName: string; calls: ToolCall[] }
  | { k: "output"; id: string; isError: boolean; output?: string }
  | { k: "status"; id: string; isError: boolean }
  | { k: "mcp"; id: string; server: string; tool: string; isError: boolean };

/**
 * Leading markers of user-role text that Codex injects rather than the human typing it (seen in the
 * corpus: AGENTS.md, `<environment_context>`, `<permissions instructions>`, `<turn_aborted>`,
 * `<user_action>` (review results), skills listings; `<user_instructions>` from formats.md §3.3).
 */
const injectedPrefixes = [
  "# AGENTS.md instructions",
  "<environment_context>",
  "<user_instructions>",
  "<permissions instructions>",
  "<turn_aborted>",
  "<user_action>",
  "<INSTRUCTIONS>",
  "<skill",
  "<collaboration_mode>",
  "<developer_instructions>",
  "<personality",
  "<subagent_notification>",
  "<model_switch>",
];

/**
 * True when user-role text was injected by Codex (not typed by the human).
 * Examples: `"<environment_context>\n  <cwd>/x</cwd>…"` → true; `"# AGENTS.md instructions for /x"` → true; `"fix it"` → false.
 */
export function isInjectedText(text: string): boolean {
  const head = text.trimStart();
  return injectedPrefixes.some((prefix) => head.startsWith(prefix));
}

const shellCommand = /^<user_shell_command>\s*<command>\s*([\s\S]*?)\s*<\/command>/;

/** `! <command>` of a `<user_shell_command>` item (the TUI's `!cmd`), or null. */
export function userShellCommand(text: string): string | null {
  const match = shellCommand.exec(text.trimStart());
  return match ? `! ${(match[1] as string).trim()}` : null;
}

/**
 * The items of one decoded line (usually 0 or 1). `line` is the envelope `{timestamp, type, payload}`;
 * legacy unwrapped lines (a bare `ResponseItem`, §3.3) are accepted too.
 * @param withOutputs keep output texts (level 3 `show`)
 * @param fallbackId id for a call without `call_id` (the line number)
 */
export function itemsOfLine(line: Record<string, unknown>, withOutputs: boolean, fallbackId: string): Item[] {
  const t = timeOf(line.timestamp);
  const payload = asObject(line.payload);
  if (!payload)
    return line.type !== undefined && line.record_type === undefined
      ? itemsOfResponse(line, t, withOutputs, fallbackId)
      : [];
  if (line.type === "event_msg") return itemsOfEvent(payload, t);
  if (line.type === "response_item") return itemsOfResponse(payload, t, withOutputs, fallbackId);
  return [];
}

function itemsOfEvent(payload: Record<string, unknown>, t: number): Item[] {
  switch (payload.type) {
    case "task_started":
      return [{ k: "task", t }];
    case "task_complete":
    case "turn_aborted":
      return [{ k: "end", t }];
    case "user_message": {
      const text = typeof payload.message === "string" ? payload.message.trim() : "";
      const images =
        (Array.isArray(payload.images) ? payload.images.length : 0) +
        (Array.isArray(payload.local_images) ? payload.local_images.length : 0);
      if (text.length === 0) return images > 0 ? [{ k: "prompt", t, text: "[image]" }] : [];
      return isInjectedText(text) ? [] : [{ k: "prompt", t, text }];
    }
    case "exec_command_end": {
      const id = typeof payload.call_id === "string" ? payload.call_id : "";
      const failed =
        (typeof payload.exit_code === "number" && payload.exit_code !== 0) ||
        payload.status === "failed" ||
        payload.status === "declined";
      return id ? [{ k: "status", id, isError: failed }] : [];
    }
    case "mcp_tool_call_end": {
      const id = typeof payload.call_id === "string" ? payload.call_id : "";
      const invocation = asObject(payload.invocation);
      const result = asObject(payload.result);
      const ok = asObject(result?.Ok);
      const isError = result?.Err !== undefined || ok?.isError === true || ok?.is_error === true;
      if (!id || typeof invocation?.server !== "string" || typeof invocation.tool !== "string") return [];
      return [{ k: "mcp", id, server: invocation.server, tool: invocation.tool, isError }];
    }
    default:
      return [];
  }
}

function itemsOfResponse(
  payload: Record<string, unknown>,
  t: number,
  withOutputs: boolean,
  fallbackId: string,
): Item[] {
  switch (payload.type) {
    case "message":
      return itemsOfMessage(payload, t);
    case "function_call_output":
    case "custom_tool_call_output":
    case "tool_search_output": {
      const id = typeof payload.call_id === "string" ? payload.call_id : "";
      if (!id) return [];
      const decoded = decodeOutput(payload.output);
      const item: Item = { k: "output", id, isError: decoded.isError };
      if (withOutputs) item.output = decoded.text;
      return [item];
    }
    default: {
      const group = callsOfItem(payload, fallbackId);
      return group ? [{ k: "call", t, id: group.id, rawName: group.rawName, calls: group.calls }] : [];
    }
  }
}

function itemsOfMessage(payload: Record<string, unknown>, t: number): Item[] {
  const text = contentText(payload.content).trim();
  if (payload.role === "assistant") return text.length > 0 ? [{ k: "text", t, text }] : [];
  if (payload.role !== "user" || text.length === 0) return []; // developer/system: instructions, never prompts
  const shell = userShellCommand(text);
  if (shell !== null) return [{ k: "shell", t, text: shell }];
  return isInjectedText(text) ? [] : [{ k: "userItem", t, text }];
}
