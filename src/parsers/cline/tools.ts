/**
 * Tool calls of the Cline family in recall's vocabulary (tool-calls.ts). The chat records each call as one message:
 * - `ask`/`say` `"tool"`, text = a `ClineSayTool` JSON `{tool, path?, diff?, content?, regex?, filePattern?, query?,
 *   mode?, …}` (cline/cline src/shared/ExtensionMessage.ts @beb3ad78; Roo Code packages/types/src/vscode-extension-host.ts
 *   @cb836567). `content` is the new file for `newFileCreated`, the listing for list/search tools, the sub-task's
 *   message for `newTask`, and for `readFile` the file's absolute path (seen in real Cline and Roo chats).
 * - `ask`/`say` `"command"`, text = the command line (Cline appends `REQ_APP` when it asked for approval:
 *   src/shared/combineCommandSequences.ts `COMMAND_REQ_APP_STRING`); its output follows as `"command_output"`.
 * - `ask`/`say` `"use_mcp_server"`, text = `{type: "use_mcp_tool"|"access_mcp_resource", serverName, toolName?,
 *   arguments?, uri?}`; the answer follows as `say "mcp_server_response"`.
 * - `ask`/`say` `"browser_action_launch"` (text = the url) and `say "browser_action"` (`{action, coordinate?, text?}`);
 *   results follow as `say "browser_action_result"`.
 */
import { buildToolCall } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";

/** `ClineSayTool.tool` → recall's name; tools not listed keep their own name. */
const toolNames: Record<string, string> = {
  editedExistingFile: "Edit",
  appliedDiff: "Edit",
  newFileCreated: "Write",
  readFile: "Read",
  listFilesTopLevel: "LS",
  listFilesRecursive: "LS",
  searchFiles: "Grep",
  codebaseSearch: "CodeSearch",
  webFetch: "WebFetch",
  webSearch: "WebSearch",
  newTask: "Task",
  updateTodoList: "TodoWrite",
  useSkill: "Skill",
  skill: "Skill",
};

const text = (value: unknown): string | undefined =>
  typeof value === "string" && value.length > 0 ? value : undefined;

/**
 * The call a `"tool"` message records.
 * @param tool the message's decoded `ClineSayTool`
 * @param withOutputs keep the listing a list/search tool returned (`content`) as the output
 */
export function sayToolCall(tool: Record<string, unknown>, withOutputs: boolean): ToolCall {
  const own = text(tool.tool) ?? "tool";
  const name = toolNames[own] ?? own;
  const path = text(tool.path);
  const input: Record<string, unknown> = {};
  switch (name) {
    case "Edit":
    case "Read":
    case "Write":
      input.file_path = path;
      if (name === "Write") input.content = tool.content;
      break;
    case "Grep":
      input.pattern = text(tool.regex) ?? text(tool.query) ?? "";
      input.path = path;
      break;
    case "WebFetch":
      input.url = text(tool.url) ?? path;
      break;
    case "WebSearch":
      input.query = text(tool.query) ?? path;
      break;
    case "Task":
      input.description = text(tool.content) ?? text(tool.message);
      break;
    default:
      input.path = path;
      input.query = text(tool.query);
      input.mode = text(tool.mode);
      input.reason = text(tool.reason);
  }
  const call = buildToolCall(name, input, false);
  if (name === "Edit") {
    const counts = diffLineCounts(text(tool.diff) ?? "");
    call.linesAdded = counts.added;
    call.linesRemoved = counts.removed;
  }
  if (withOutputs && (name === "LS" || name === "Grep" || name === "CodeSearch") && text(tool.content)) {
    call.output = tool.content as string;
  }
  return call;
}

/** The `Bash` call of a `"command"` message: its text less Cline's trailing `REQ_APP` marker. */
export function commandCall(commandText: string): ToolCall {
  return buildToolCall("Bash", { command: commandText.replace(/REQ_APP\s*$/, "").trim() }, false);
}

/** The call of a `"use_mcp_server"` message: `mcp__<server>__<tool>` (or `…__<resource uri>`), input its arguments. */
export function mcpCall(request: Record<string, unknown>): ToolCall {
  const server = text(request.serverName) ?? "unknown";
  const tool = text(request.toolName) ?? (request.type === "access_mcp_resource" ? "access_resource" : "unknown");
  const call = buildToolCall(`mcp__${server}__${tool}`, {}, false);
  call.input = (text(request.arguments) ?? text(request.uri) ?? "").replace(/\s+/g, " ").trim().slice(0, 300);
  return call;
}

/** The call of a browser message: `BrowserAction`, input the url launched or the action (`click 320,40`). */
export function browserCall(description: string): ToolCall {
  return buildToolCall("BrowserAction", { action: description }, false);
}

/**
 * Lines added and removed by an edit's diff: a SEARCH/REPLACE diff (`<<<<<<< SEARCH` … `=======` … `>>>>>>> REPLACE`,
 * Cline and Roo Code) counts the lines of each side; a unified diff counts `+`/`-` lines.
 * Example: "<<<<<<< SEARCH\na\n=======\nb\nc\n>>>>>>> REPLACE" → {added: 2, removed: 1}.
 */
export function diffLineCounts(diff: string): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  if (diff.includes("<<<<<<< SEARCH")) {
    let side: "search" | "replace" | null = null;
    for (const line of diff.split("\n")) {
      if (line.startsWith("<<<<<<< SEARCH")) side = "search";
      else if (line.startsWith("=======") && side === "search") side = "replace";
      else if (line.startsWith(">>>>>>> REPLACE")) side = null;
      else if (side === "search" && !/^(:start_line:\d+|-------)$/.test(line)) removed += 1;
      else if (side === "replace") added += 1;
    }
    return { added, removed };
  }
  for (const line of diff.split("\n")) {
    if (line.startsWith("+") && !line.startsWith("+++")) added += 1;
    else if (line.startsWith("-") && !line.startsWith("---")) removed += 1;
  }
  return { added, removed };
}
