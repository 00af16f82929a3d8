/**
 * Droid's tool calls in the shared vocabulary (tool-calls.ts). Droid's tools take Claude Code's snake_case inputs
 * under partly other names (peers' readers and tests: entireio/cli `factoryaidroid/types.go`, wesm/agentsview, the
 * Droid system prompt quoted in cristminix/qwen-api-node `…/factory-ai/glm-request.md`): `Execute {command}` → `Bash`,
 * `Create {file_path, content}` → `Write`, `FetchUrl {url}` → `WebFetch`; `Read`, `Edit`, `MultiEdit`, `LS`, `Grep`,
 * `Glob`, `TodoWrite`, `Task`, `WebSearch` keep their names.
 */
import { withFileChange } from "../file-change.ts";
import { buildToolCall, normalizeToolInput, normalizeToolName } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";

const droidNames: Record<string, string> = { Execute: "Bash", Create: "Write", FetchUrl: "WebFetch" };

/** A `tool_use` block `{id, name, input}` as a `ToolCall` (no output yet; its change at level 3 when `withChange`). */
export function droidToolCall(name: string, input: unknown, withChange: boolean): ToolCall {
  const normalized = droidNames[name] ?? normalizeToolName(name);
  const args = normalizeToolInput(input);
  const call = buildToolCall(normalized, args, false);
  return withChange ? withFileChange(call, args) : call;
}

/** A `tool_result` block's `content`: a string, or its text blocks joined by "\n" (images left out). */
export function droidResultText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter((block) => block?.type === "text" && typeof block.text === "string")
    .map((block) => block.text as string)
    .join("\n");
}
