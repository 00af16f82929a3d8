/**
 * cursor-agent tool calls → the shared vocabulary (src/parsers/tool-calls.ts). A call is an assistant message part
 * `{type: "tool-call", toolCallId, toolName, args}` and its result a `tool` message part `{type: "tool-result",
 * toolCallId, toolName, result}` (the AI SDK's message parts; yashas-salankimatt/sidecar
 * docs/plans/cursor-cli-adapter.md @4b230572). The one name the sources show is `Shell {command, description}`; every
 * name goes through `normalizeToolName` (`Shell` → `Bash`, `Read` → `Read`, …) and its arguments through
 * `normalizeToolInput` (`filePath` → `file_path`); names it does not know are kept as cursor-agent wrote them.
 */
import { withFileChange } from "../file-change.ts";
import { buildToolCall, normalizeToolInput, normalizeToolName } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";

/**
 * One call as recall keeps it; with `withChange` (level 3) also the change to draw. `isError` starts false.
 * Example: (`Shell`, `{command: "bun test"}`) → `{name: "Bash", input: "bun test", isError: false}`.
 */
export function cursorAgentToolCall(name: string, args: unknown, withChange: boolean): ToolCall {
  const input = normalizeToolInput(args);
  const call = buildToolCall(normalizeToolName(name), input, false);
  return withChange ? withFileChange(call, input) : call;
}
