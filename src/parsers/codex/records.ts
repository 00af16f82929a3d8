/**
 * Codex rollout lines → compact, JSON-serializable items for turn grouping (docs/formats.md §3.2–§3.3).
 * One stream per kind of content, so nothing recorded twice is counted twice: prompts from
 * `event_msg user_message` and from `response_item` user messages (turns.ts drops the one of a mirrored pair;
 * Codex ≥ 0.147 writes no `user_message` events, so a resumed older rollout has both kinds of prompt), prose from
 * `response_item` assistant messages (never `reasoning`/`agent_reasoning`; an `agent_message` event is kept as a
 * `reply` item, which turns.ts uses only for a turn that has no assistant message: issue 37), tool calls and
 * outputs from `response_item`. Injected context (developer messages, AGENTS.md, `<environment_context>`,
 * `<turn_aborted>` …), reasoning, compaction summaries and UI mirrors are left out by design; a record of a kind this
 * file does not know that carries user or assistant text becomes an `unplaced` item, counted as skipped (issue 26).
 */
import { asObject, timeOf } from "../shared/fields.ts";
import type { ToolCall } from "../types.ts";
import { callsOfItem, contentText, decodeOutput } from "./tools.ts";
import { type UsageItem, usageItemOfLine } from "./usage.ts";

/**
 * One item of the turn stream; `t` is epoch ms UTC (0 when the line has no timestamp), `n` the 1-based line it came
 * from (for skip reports). `prompt` is a `user_message` event, `userItem` a `response_item` user message; `text` is a
 * `response_item` assistant message, `reply` an `agent_message` event (its UI mirror, §3.3).
 */
export type Item =
  | { k: "task"; n: number; t: number }
  | { k: "end"; n: number; t: number }
  | { k: "prompt"; n: number; t: number; text: string }
  | { k: "userItem"; n: number; t: number; text: string }
  | { k: "shell"; n: number; t: number; text: string }
  | { k: "text"; n: number; t: number; text: string }
  | { k: "reply"; n: number; t: number; text: string }
  | { k: "call"; n: number; t: number; id: string; rawName: string; calls: ToolCall[] }
  | { k: "output"; n: number; id: string; isError: boolean; output?: string }
  | { k: "status"; n: number; id: string; isError: boolean }
  | { k: "mcp"; n: number; id: string; server: string; tool: string; isError: boolean }
  | { k: "unplaced"; n: number; reason: string }
  | UsageItem;

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

/** Top-level kinds read for metadata only or left out by design (§3.2): never turn content, never counted. */
const metadataKinds = new Set([
  "session_meta",
  "turn_context",
  "compacted",
  "world_state",
  "inter_agent_communication_metadata",
]);

/** `response_item` types left out by design: reasoning (never prose, §3.3), undo snapshots, compaction blobs. */
const ignoredResponseTypes = new Set([
  "reasoning",
  "ghost_snapshot",
  "compaction",
  "context_compaction",
  "compaction_summary",
  "additional_tools",
]);

/**
 * The items of one decoded line (usually 0 or 1); `model` and `tokens` items carry usage (usage.ts). `line` is the envelope `{timestamp, type, payload}`;
 * legacy unwrapped lines (a bare `ResponseItem`, §3.3) are accepted too. A record of a kind not read here that
 * carries user or assistant text becomes one `unplaced` item naming its kind.
 * @param withOutputs keep output texts (level 3 `show`)
 * @param n the line's 1-based number (a call without `call_id` is named `line-<n>`)
 */
export function itemsOfLine(line: Record<string, unknown>, withOutputs: boolean, n: number): Item[] {
  const usage = usageItemOfLine(line, n); // a `turn_context` model or a `token_count` event (usage.ts)
  if (usage) return [usage];
  const t = timeOf(line.timestamp);
  const payload = asObject(line.payload);
  if (!payload)
    return line.type !== undefined && line.record_type === undefined ? itemsOfResponse(line, t, withOutputs, n) : [];
  if (line.type === "event_msg") return itemsOfEvent(payload, t, n);
  if (line.type === "response_item") return itemsOfResponse(payload, t, withOutputs, n);
  if (typeof line.type === "string" && metadataKinds.has(line.type)) return [];
  return carriesText(payload) ? [{ k: "unplaced", n, reason: `unknown record kind ${String(line.type)}` }] : [];
}

/** True when a payload of a kind not read holds user or assistant text (`content`, `text`, `message`). */
function carriesText(payload: Record<string, unknown>): boolean {
  if (contentText(payload.content).trim().length > 0) return true;
  return [payload.text, payload.message].some((value) => typeof value === "string" && value.trim().length > 0);
}

function itemsOfEvent(payload: Record<string, unknown>, t: number, n: number): Item[] {
  switch (payload.type) {
    case "task_started":
      return [{ k: "task", n, t }];
    case "task_complete":
    case "turn_aborted":
      return [{ k: "end", n, t }];
    case "user_message": {
      const text = typeof payload.message === "string" ? payload.message.trim() : "";
      const images =
        (Array.isArray(payload.images) ? payload.images.length : 0) +
        (Array.isArray(payload.local_images) ? payload.local_images.length : 0);
      if (text.length === 0) return images > 0 ? [{ k: "prompt", n, t, text: "[image]" }] : [];
      return isInjectedText(text) ? [] : [{ k: "prompt", n, t, text }];
    }
    case "agent_message": {
      const text = typeof payload.message === "string" ? payload.message.trim() : "";
      return text.length === 0 ? [] : [{ k: "reply", n, t, text }];
    }
    case "exec_command_end": {
      const id = typeof payload.call_id === "string" ? payload.call_id : "";
      const failed =
        (typeof payload.exit_code === "number" && payload.exit_code !== 0) ||
        payload.status === "failed" ||
        payload.status === "declined";
      return id ? [{ k: "status", n, id, isError: failed }] : [];
    }
    case "mcp_tool_call_end": {
      const id = typeof payload.call_id === "string" ? payload.call_id : "";
      const invocation = asObject(payload.invocation);
      const result = asObject(payload.result);
      const ok = asObject(result?.Ok);
      const isError = result?.Err !== undefined || ok?.isError === true || ok?.is_error === true;
      if (!id || typeof invocation?.server !== "string" || typeof invocation.tool !== "string") return [];
      return [{ k: "mcp", n, id, server: invocation.server, tool: invocation.tool, isError }];
    }
    default:
      return []; // UI events: other mirrors of response items (item_completed …), token counts, errors
  }
}

function itemsOfResponse(payload: Record<string, unknown>, t: number, withOutputs: boolean, n: number): Item[] {
  switch (payload.type) {
    case "message":
      return itemsOfMessage(payload, t, n);
    case "function_call_output":
    case "custom_tool_call_output":
    case "tool_search_output": {
      const id = typeof payload.call_id === "string" ? payload.call_id : "";
      if (!id) return [];
      const decoded = decodeOutput(payload.output);
      const item: Item = { k: "output", n, id, isError: decoded.isError };
      if (withOutputs) item.output = decoded.text;
      return [item];
    }
    default: {
      const group = callsOfItem(payload, `line-${n}`, withOutputs);
      if (group) return [{ k: "call", n, t, id: group.id, rawName: group.rawName, calls: group.calls }];
      const type = typeof payload.type === "string" ? payload.type : "";
      if (ignoredResponseTypes.has(type) || !carriesText(payload)) return [];
      return [{ k: "unplaced", n, reason: `unknown response_item type ${type || "(none)"}` }];
    }
  }
}

function itemsOfMessage(payload: Record<string, unknown>, t: number, n: number): Item[] {
  const text = contentText(payload.content).trim();
  if (text.length === 0) return [];
  if (payload.role === "assistant") return [{ k: "text", n, t, text }];
  if (payload.role === "developer" || payload.role === "system") return []; // instructions, never prompts
  if (payload.role !== "user") return [{ k: "unplaced", n, reason: `message of role ${String(payload.role)}` }];
  const shell = userShellCommand(text);
  if (shell !== null) return [{ k: "shell", n, t, text: shell }];
  return isInjectedText(text) ? [] : [{ k: "userItem", n, t, text }];
}
