/**
 * Codebuff tool calls → the shared vocabulary (src/parsers/tool-calls.ts). A call is a `tool` block of a chat message,
 * `{type: "tool", toolCallId, toolName, input, output?}` (CodebuffAI/codebuff `cli/src/types/chat.ts`
 * `ToolContentBlock`, commit 03cb53dc); tool names and parameters from `common/src/tools/params/tool/` (commit
 * da0d5711): `read_files {paths[]}`, `write_file {path, instructions, content}`, `str_replace {path, replacements:
 * [{old, new}]}`, `run_terminal_command {command}`, `code_search {pattern, flags?, cwd?}`, `find_files {prompt}`,
 * `web_search {query}`, `spawn_agents {agents: [{agent_type, prompt}]}`. Others (`think_deeply`, `end_turn`,
 * `read_docs`, `create_plan`, …) pass unchanged.
 */
import { withFileChange } from "../file-change.ts";
import { buildToolCall, normalizeToolInput, normalizeToolName } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";

/** Codebuff tool names → shared names; others go through `normalizeToolName` or pass unchanged. */
const codebuffToolNames: Record<string, string> = {
  read_files: "Read",
  write_file: "Write",
  str_replace: "Edit",
  run_terminal_command: "Bash",
  code_search: "Grep",
  web_search: "WebSearch",
  spawn_agents: "Task",
};

/** The shared name of a Codebuff call. Examples: `run_terminal_command` → `Bash`; `think_deeply` → `think_deeply`. */
export function codebuffToolName(name: string): string {
  return codebuffToolNames[name] ?? normalizeToolName(name);
}

/** Codebuff arguments → the names `buildToolCall` and file-change.ts read. */
function adaptInput(name: string, raw: unknown): Record<string, unknown> {
  const input = normalizeToolInput(raw);
  if (name === "Read" && Array.isArray(input.paths)) {
    const paths = input.paths.filter((path): path is string => typeof path === "string");
    if (paths.length === 1) input.file_path = paths[0];
    else input.input = paths.join(" ");
  }
  if ((name === "Edit" || name === "Write") && input.file_path === undefined) input.file_path = input.path;
  if (name === "Edit" && Array.isArray(input.replacements)) {
    const pairs = input.replacements.filter(
      (item): item is Record<string, unknown> => item !== null && typeof item === "object",
    );
    input.old_string = pairs.map((pair) => String(pair.old ?? "")).join("\n");
    input.new_string = pairs.map((pair) => String(pair.new ?? "")).join("\n");
  }
  if (name === "Task" && Array.isArray(input.agents)) {
    const agents = input.agents.filter(
      (item): item is Record<string, unknown> => item !== null && typeof item === "object",
    );
    input.description = agents.map((agent) => String(agent.agent_type ?? "agent")).join(", ");
    input.prompt = agents.map((agent) => String(agent.prompt ?? "")).join("\n\n");
  }
  return input;
}

/**
 * One call as recall keeps it: shared name, compact input, file path, edit line counts; with `withChange` (level 3)
 * also the change to draw.
 */
export function codebuffToolCall(name: string, rawInput: unknown, withChange: boolean): ToolCall {
  const shared = codebuffToolName(name);
  const input = adaptInput(shared, rawInput);
  const call = buildToolCall(shared, input, false);
  return withChange ? withFileChange(call, input) : call;
}
