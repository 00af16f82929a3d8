/**
 * Codex tool calls → the shared vocabulary (src/parsers/tool-calls.ts), and tool outputs → text +
 * error status (docs/formats.md §3.2 `function_call`, `custom_tool_call`, `local_shell_call`,
 * `web_search_call`, `function_call_output`; tool names from the real corpus: `shell`, `shell_command`,
 * `exec_command`, `write_stdin`, `apply_patch`, `update_plan`, MCP resource tools).
 * Shell tools become `Bash` with the command; `apply_patch` becomes one `Edit`/`Write` per patched file
 * with line counts; `update_plan` becomes `TodoWrite`; MCP tools become `mcp__<server>__<tool>`.
 */
import { capChangeText } from "../file-change.ts";
import { asObject } from "../shared/fields.ts";
import { buildToolCall, compactInputMaxChars, normalizeToolInput, normalizeToolName } from "../tool-calls.ts";
import type { ToolCall } from "../types.ts";
import { parsePatch, patchInScript } from "./patch.ts";

/** The calls one response item stands for: usually one, one per file for a multi-file patch. */
export interface CallGroup {
  /** `call_id` (or `id`) pairing the call with its output. */
  id: string;
  /** The tool name as Codex wrote it (for the MCP rename once `mcp_tool_call_end` is seen). */
  rawName: string;
  calls: ToolCall[];
}

const clip = (text: string): string => {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > compactInputMaxChars ? `${oneLine.slice(0, compactInputMaxChars - 1)}…` : oneLine;
};

/** Arguments of a call decoded, with the text they were written as. */
export interface DecodedArguments {
  /** The arguments object; `{}` when they are not a JSON object (then only `raw` holds them). */
  args: Record<string, unknown>;
  /** The arguments as written: the string (a JSON string's value when it is one), or an object as JSON; "" when absent. */
  raw: string;
}

/**
 * `arguments` of a function call (§3.3: a JSON string; a model can also write text that is not JSON, which Codex
 * answers with "failed to parse function arguments") or a free-form tool's `input`, decoded.
 * Examples: `'{"cmd":"ls"}'` → args `{cmd: "ls"}`; `"ls -la"` → args `{}`, raw `ls -la`; `'"ls"'` → args `{}`, raw `ls`.
 */
export function decodeArguments(value: unknown): DecodedArguments {
  if (typeof value !== "string") {
    const args = asObject(value) ?? {};
    return { args, raw: value === undefined || value === null ? "" : JSON.stringify(value) };
  }
  try {
    const parsed: unknown = JSON.parse(value);
    return { args: asObject(parsed) ?? {}, raw: typeof parsed === "string" ? parsed : value };
  } catch {
    return { args: {}, raw: value };
  }
}

/**
 * True when raw arguments hold text: a non-empty string anywhere in their JSON, or any non-blank text that is not
 * JSON. Numbers and flags alone (`{"session_id":7,"chars":""}`, a `write_stdin` poll) are settings, not text.
 */
function holdsText(raw: string): boolean {
  if (raw.trim().length === 0) return false;
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return true;
  }
  const visit = (node: unknown): boolean => {
    if (typeof node === "string") return node.trim().length > 0;
    if (Array.isArray(node)) return node.some(visit);
    if (node !== null && typeof node === "object") return Object.values(node as Record<string, unknown>).some(visit);
    return false;
  };
  return visit(value);
}

/**
 * The calls with their input kept: when none of them shows any input although the raw arguments hold text (not JSON,
 * or JSON without the field the tool's mapping reads), the first shows the raw text, clipped (issue 26: a call's
 * input must not be lost).
 */
function keepRawInput(calls: ToolCall[], raw: string): ToolCall[] {
  const first = calls[0];
  if (first && calls.every((call) => call.input === "") && holdsText(raw)) first.input = clip(raw);
  return calls;
}

/**
 * The command line a shell argv runs: the script of `bash -lc <script>` / `powershell -Command <script>`,
 * else the words joined by spaces.
 * Examples: `["bash","-lc","ls -la"]` → `ls -la`; `["git","status"]` → `git status`.
 */
export function commandText(argv: unknown): string {
  if (typeof argv === "string") return argv;
  if (!Array.isArray(argv)) return "";
  const words = argv.filter((word): word is string => typeof word === "string");
  const flagAt = words.findIndex((word, index) => index > 0 && /^(-l?c|-Command|\/c)$/i.test(word));
  if (flagAt > 0 && flagAt <= 2 && words.length === flagAt + 2) return words[flagAt + 1] as string;
  return words.join(" ");
}

/**
 * Calls for a patch text: one Write per added file, one Edit per updated/deleted file; one `Patch` call showing the
 * text itself (clipped) when no file header parses. With `withChanges` (level 3) each call keeps its file's part of
 * the patch as `change` (kind `patch`; the whole text, path "", on a `Patch` call; types.ts `FileChange`).
 */
export function patchCalls(patch: string, withChanges: boolean): ToolCall[] {
  const files = parsePatch(patch);
  if (files.length === 0) {
    const call = buildToolCall(normalizeToolName("apply_patch"), {}, false);
    call.input = clip(patch);
    if (withChanges && patch.trim()) call.change = { path: "", kind: "patch", patch: capChangeText(patch) };
    return [call];
  }
  return files.map((file) => {
    const target = file.movedTo ?? file.path;
    const call = buildToolCall(file.operation === "add" ? "Write" : "Edit", { file_path: target }, false);
    if (file.movedTo) call.input = clip(`${file.path} → ${file.movedTo}`);
    call.linesAdded = file.linesAdded;
    call.linesRemoved = file.linesRemoved;
    if (withChanges) call.change = { path: target, kind: "patch", patch: capChangeText(file.text) };
    return call;
  });
}

/** A shell command as calls: the patch calls when the command runs `apply_patch`, else one `Bash` call. */
function shellCalls(command: string, withChanges: boolean): ToolCall[] {
  const patch = patchInScript(command);
  if (patch !== null) return patchCalls(patch, withChanges);
  return [buildToolCall("Bash", { command }, false)];
}

/** `update_plan` → `TodoWrite`, input = the steps joined by "; " (or the explanation). */
function planCall(args: Record<string, unknown>): ToolCall {
  const steps = Array.isArray(args.plan)
    ? args.plan
        .map((item) => asObject(item)?.step)
        .filter((step): step is string => typeof step === "string" && step.length > 0)
    : [];
  const call = buildToolCall("TodoWrite", {}, false);
  call.input = clip(steps.length > 0 ? steps.join("; ") : typeof args.explanation === "string" ? args.explanation : "");
  return call;
}

/** Calls of a named tool with decoded arguments; `withChanges`: patch calls keep their patch text ({@link patchCalls}). */
function callsByName(
  name: string,
  namespace: string | undefined,
  args: Record<string, unknown>,
  withChanges: boolean,
): ToolCall[] {
  if (namespace) return [buildToolCall(`mcp__${namespace}__${name}`, normalizeToolInput(args), false)];
  switch (name) {
    case "shell":
    case "container.exec":
    case "local_shell":
      if (Array.isArray(args.command) && args.command[0] === "apply_patch" && typeof args.command[1] === "string")
        return patchCalls(args.command[1], withChanges);
      return shellCalls(commandText(args.command), withChanges);
    case "shell_command":
      return shellCalls(commandText(args.command), withChanges);
    case "exec_command":
      return shellCalls(commandText(args.cmd ?? args.command), withChanges);
    case "apply_patch": {
      const patch = args.input ?? args.patch;
      return patchCalls(typeof patch === "string" ? patch : "", withChanges);
    }
    case "update_plan":
      return [planCall(args)];
    case "view_image":
      return [buildToolCall("Read", { file_path: args.path }, false)];
    default:
      return [buildToolCall(normalizeToolName(name), normalizeToolInput(args), false)];
  }
}

/**
 * The calls of one `response_item` payload, or null when it is not a tool call.
 * `function_call` (arguments = JSON string, or text that is not JSON: then the text is the input), `custom_tool_call`
 * (free-form `input`, e.g. a patch or a code-mode program), `local_shell_call` (`action.command[]`), `web_search_call`
 * (`action.query`/`queries`, or the page an `open_page`/`find` action reads → `WebSearch`), `tool_search_call`
 * (`arguments.query` → `ToolSearch`). A call whose mapping shows no input shows its raw arguments instead.
 * @param fallbackId id used when the item has none (`web_search_call` often has no `call_id`)
 * @param withChanges keep what `apply_patch` calls change (`ToolCall.change`; level 3 only, never indexed)
 */
export function callsOfItem(
  payload: Record<string, unknown>,
  fallbackId: string,
  withChanges: boolean,
): CallGroup | null {
  const id =
    typeof payload.call_id === "string" ? payload.call_id : typeof payload.id === "string" ? payload.id : fallbackId;
  const name = typeof payload.name === "string" ? payload.name : "";
  const namespace =
    typeof payload.namespace === "string" && payload.namespace.length > 0 ? payload.namespace : undefined;
  switch (payload.type) {
    case "function_call": {
      const { args, raw } = decodeArguments(payload.arguments);
      return { id, rawName: name, calls: keepRawInput(callsByName(name, namespace, args, withChanges), raw) };
    }
    case "custom_tool_call": {
      const input = typeof payload.input === "string" ? payload.input : "";
      if (name === "apply_patch") return { id, rawName: name, calls: patchCalls(input, withChanges) };
      const { args, raw } = decodeArguments(input);
      return { id, rawName: name, calls: keepRawInput(callsByName(name, namespace, args, withChanges), raw) };
    }
    case "local_shell_call": {
      const action = asObject(payload.action);
      const calls = callsByName("local_shell", undefined, { command: action?.command }, withChanges);
      return { id, rawName: "local_shell", calls: keepRawInput(calls, decodeArguments(action).raw) };
    }
    case "web_search_call": {
      const action = asObject(payload.action);
      const query =
        typeof action?.query === "string"
          ? action.query
          : Array.isArray(action?.queries)
            ? action.queries.filter((item) => typeof item === "string").join("; ")
            : [action?.url, action?.pattern].filter((part) => typeof part === "string" && part.length > 0).join(" ");
      return { id, rawName: "web_search", calls: [buildToolCall("WebSearch", { query }, false)] };
    }
    case "tool_search_call": {
      const { args, raw } = decodeArguments(payload.arguments);
      const query = typeof args.query === "string" ? args.query : "";
      return { id, rawName: "tool_search", calls: keepRawInput([buildToolCall("ToolSearch", { query }, false)], raw) };
    }
    default:
      return null;
  }
}

/** Text and error status of one tool output. */
export interface OutputStatus {
  text: string;
  isError: boolean;
}

const exitCodeLine = /^(?:Exit code:|Process exited with code) (-?\d+)\s*$/m;
/** Codex's own failure texts (codex-rs/core tool handlers), at the start of an output. */
const failurePrefixes = [
  "apply_patch verification failed",
  "execution error",
  "failed to parse function arguments",
  "exec command rejected",
  "aborted by user",
  "sandbox error",
  "unsupported call",
  "patch rejected",
];

/**
 * Decode a `function_call_output` / `custom_tool_call_output` `output` (§3.2): a string (often
 * `Exit code: N\nWall time: …\nOutput:\n…`, or `Process exited with code N` for `exec_command`, or a
 * JSON string `{"output": …, "metadata": {"exit_code": N}}`), a list of content items, or an object.
 * `isError` when the exit code in the header (the text before `Output:`) or metadata is non-zero, when
 * `success` is false, or when the text starts with one of Codex's failure messages.
 * Examples: `"Exit code: 1\nOutput:\nboom"` → error; `"{\"output\":\"ok\",\"metadata\":{\"exit_code\":0}}"` → `ok`, no error.
 */
export function decodeOutput(value: unknown): OutputStatus {
  let text = "";
  let exitCode: number | undefined;
  let success: boolean | undefined;
  const object = typeof value === "string" ? parseJsonObject(value) : asObject(value);
  if (object) {
    const inner = object.output ?? object.content;
    text = typeof inner === "string" ? inner : contentText(inner);
    const metadata = asObject(object.metadata);
    if (typeof metadata?.exit_code === "number") exitCode = metadata.exit_code;
    if (typeof object.success === "boolean") success = object.success;
    if (text === "" && typeof value === "string" && inner === undefined) text = value;
  } else if (typeof value === "string") text = value;
  else text = contentText(value);
  if (exitCode === undefined) {
    const headerEnd = text.indexOf("\nOutput:");
    const match = exitCodeLine.exec(headerEnd >= 0 ? text.slice(0, headerEnd) : text.slice(0, 400));
    if (match) exitCode = Number(match[1]);
  }
  const start = text.trimStart().slice(0, 80).toLowerCase();
  const isError =
    (exitCode !== undefined && exitCode !== 0) ||
    success === false ||
    failurePrefixes.some((prefix) => start.startsWith(prefix));
  return { text, isError };
}

function parseJsonObject(text: string): Record<string, unknown> | undefined {
  if (!text.startsWith("{")) return undefined;
  try {
    return asObject(JSON.parse(text));
  } catch {
    return undefined;
  }
}

/** Text of a list of content items (`input_text`/`output_text`/`text`, a `refusal`'s text; images as `[image]`). */
export function contentText(value: unknown): string {
  if (typeof value === "string") return value;
  if (!Array.isArray(value)) return "";
  const parts: string[] = [];
  for (const item of value) {
    const block = asObject(item);
    if (typeof block?.text === "string") parts.push(block.text);
    else if (typeof block?.refusal === "string") parts.push(block.refusal);
    else if (block?.type === "input_image" || block?.type === "image") parts.push("[image]");
  }
  return parts.join("\n");
}
