/**
 * VS Code chat tool invocations → the shared vocabulary (src/parsers/tool-calls.ts). A call is a response part
 * `{kind: "toolInvocationSerialized", toolId, toolCallId, invocationMessage, pastTenseMessage, toolSpecificData?,
 * resultDetails?}` (microsoft/vscode src/vs/workbench/contrib/chat/common/chatService/chatService.ts
 * `IChatToolInvocationSerialized`): the input is `toolSpecificData` when it has one — `{kind: "terminal", commandLine:
 * {original, toolEdited?, userEdited?}}` (`{kind: "terminal", command}` before VS Code 1.100), `{kind: "input", rawInput}`
 * (the tool's own arguments), `{kind: "subagent", description, prompt}` — else the file URI or text of its message
 * (`Read [](file:///x/a.ts)`); the output is `resultDetails {input, output: [{value}], isError}` when recorded. Tool ids
 * are GitHub Copilot Chat's (read by wesm/agentsview internal/parser/vscode_copilot.go @14e032f4
 * `normalizeVSCodeToolName`), old `copilot_*` and newer snake-case names alike.
 */
import { fileURLToPath } from "node:url";
import { withFileChange } from "../file-change.ts";
import { asObject } from "../shared/fields.ts";
import { buildToolCall, normalizeToolInput } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";

/** Copilot Chat tool ids → shared names; other ids are kept as they are. */
const toolNames: Record<string, string> = {
  run_in_terminal: "Bash",
  copilot_runInTerminal: "Bash",
  copilot_readFile: "Read",
  read_file: "Read",
  copilot_replaceString: "Edit",
  replace_string_in_file: "Edit",
  copilot_insertEdit: "Edit",
  insert_edit_into_file: "Edit",
  vscode_editFile_internal: "Edit",
  copilot_multiReplaceString: "MultiEdit",
  multi_replace_string_in_file: "MultiEdit",
  copilot_applyPatch: "Patch",
  apply_patch: "Patch",
  copilot_createFile: "Write",
  create_file: "Write",
  copilot_findTextInFiles: "Grep",
  grep_search: "Grep",
  copilot_findFiles: "Glob",
  file_search: "Glob",
  copilot_listDirectory: "LS",
  list_dir: "LS",
  copilot_fetchWebPage: "WebFetch",
  fetch_webpage: "WebFetch",
  runSubagent: "Task",
  manage_todo_list: "TodoWrite",
};

/** The text of a `string | IMarkdownString` field; "" when absent. */
export function markdownText(value: unknown): string {
  if (typeof value === "string") return value;
  const text = asObject(value)?.value;
  return typeof text === "string" ? text : "";
}

/** The first `file://` URI of a message as a path (`Read [](file:///x/a.ts#1-20)` → `/x/a.ts`), or undefined. */
function fileOfMessage(message: string): string | undefined {
  const match = /file:\/\/[^\s)#"']+/.exec(message);
  if (!match) return undefined;
  try {
    return fileURLToPath(match[0]);
  } catch {
    return undefined;
  }
}

/** The arguments recall builds the call from, out of the part's tool data or messages. */
function inputOf(part: Record<string, unknown>, name: string): Record<string, unknown> {
  const data = asObject(part.toolSpecificData);
  if (data?.kind === "terminal") {
    const line = asObject(data.commandLine);
    const command = [line?.userEdited, line?.toolEdited, line?.original, data.command].find(
      (value) => typeof value === "string" && value,
    );
    return { command: command ?? "" };
  }
  if (data?.kind === "input") return normalizeToolInput(data.rawInput);
  if (data?.kind === "subagent") return { description: data.description, prompt: data.prompt };
  const message = markdownText(part.pastTenseMessage) || markdownText(part.invocationMessage);
  const file = fileOfMessage(message);
  if (file && (name === "Read" || name === "Edit" || name === "Write" || name === "Patch" || name === "MultiEdit"))
    return { file_path: file, description: message };
  return { description: message };
}

/** A tool's output text from `resultDetails {output: [{value}]}`; "" when not recorded. */
export function outputOf(part: Record<string, unknown>): string {
  const details = asObject(part.resultDetails);
  const output = Array.isArray(details?.output) ? details.output : [];
  return output
    .map((item) => asObject(item)?.value)
    .filter((value): value is string => typeof value === "string")
    .join("\n");
}

/**
 * One call as recall keeps it; `isError` from `resultDetails.isError`; with `withOutputs` (level 3) also its output and
 * the change to draw. Example: `{toolId: "run_in_terminal", toolSpecificData: {kind: "terminal", commandLine:
 * {original: "npm test"}}}` → `{name: "Bash", input: "npm test", isError: false}`.
 */
export function copilotChatToolCall(part: Record<string, unknown>, withOutputs: boolean): ToolCall {
  const toolId = typeof part.toolId === "string" ? part.toolId : "";
  const name = toolNames[toolId] ?? toolId;
  const input = inputOf(part, name);
  const call = buildToolCall(name, input, asObject(part.resultDetails)?.isError === true);
  if (!withOutputs) return call;
  call.output = outputOf(part);
  return withFileChange(call, input);
}
