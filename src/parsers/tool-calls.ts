/**
 * One tool vocabulary for every source: name normalization (OpenCode `bash` → `Bash`), input key
 * normalization (`filePath` → `file_path`), the compact input shown and indexed for a call
 * (file path / command / pattern / url / description), and edit line counts for `[Edit] x (+12 −3)`.
 * Claude Code's own names are the reference vocabulary (docs/formats.md §1.4, §1.6, §2.1).
 */
import type { ToolCall } from "./types.ts";

/** Lower-case source tool names → the Claude Code vocabulary. Unknown names pass through unchanged. */
const toolNameMap: Record<string, string> = {
  bash: "Bash",
  shell: "Bash",
  read: "Read",
  edit: "Edit",
  multiedit: "MultiEdit",
  write: "Write",
  patch: "Patch",
  apply_patch: "Patch",
  grep: "Grep",
  glob: "Glob",
  list: "LS",
  ls: "LS",
  webfetch: "WebFetch",
  websearch: "WebSearch",
  task: "Task",
  agent: "Task",
  todowrite: "TodoWrite",
  todoread: "TodoRead",
  notebookedit: "NotebookEdit",
  codesearch: "CodeSearch",
  skill: "Skill",
  question: "Question",
};

/**
 * Normalize a tool name to the shared vocabulary.
 * Examples: `bash` → `Bash`; `Agent` → `Task`; `Bash` → `Bash`; `mcp__github__get_issue` unchanged.
 */
export function normalizeToolName(name: string): string {
  if (name.startsWith("mcp__")) return name;
  return toolNameMap[name.toLowerCase()] ?? name;
}

/** camelCase input keys → Claude's snake_case (`filePath` → `file_path`, `oldString` → `old_string`). */
export function normalizeToolInput(input: unknown): Record<string, unknown> {
  if (input === null || typeof input !== "object" || Array.isArray(input)) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(input as Record<string, unknown>)) {
    out[key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)] = value;
  }
  return out;
}

const stringField = (input: Record<string, unknown>, ...keys: string[]): string | undefined => {
  for (const key of keys) {
    const value = input[key];
    if (typeof value === "string" && value.length > 0) return value;
  }
  return undefined;
};

/** Tools whose `file_path`/`path` is a file they read or change. */
const fileTools = new Set(["Read", "Edit", "MultiEdit", "Write", "NotebookEdit", "Patch"]);

/** Longest compact input kept (characters); commands and descriptions beyond it are cut with `…`. */
export const compactInputMaxChars = 300;

const clip = (text: string): string => {
  const oneLine = text.replace(/\s+/g, " ").trim();
  return oneLine.length > compactInputMaxChars ? `${oneLine.slice(0, compactInputMaxChars - 1)}…` : oneLine;
};

const countLines = (text: unknown): number =>
  typeof text === "string" && text.length > 0 ? text.split("\n").length : 0;

/**
 * Build a `ToolCall` (without output) from a normalized name and a normalized input object.
 * Compact input by tool: Bash → command; Read/Edit/Write → file path; Grep/Glob → pattern (+ path);
 * WebFetch → url; WebSearch → query; Task → description; anything else → the first short string field.
 * Edits get `linesAdded`/`linesRemoved` from old/new strings (MultiEdit sums its edits; Write counts content).
 */
export function buildToolCall(name: string, input: Record<string, unknown>, isError: boolean): ToolCall {
  const call: ToolCall = { name, input: "", isError };
  const filePath = stringField(input, "file_path", "notebook_path", ...(fileTools.has(name) ? ["path"] : []));
  if (filePath && (fileTools.has(name) || name === "NotebookEdit")) call.filePath = filePath;
  switch (name) {
    case "Bash":
      call.input = clip(stringField(input, "command", "cmd") ?? "");
      break;
    case "Grep":
    case "Glob": {
      const pattern = stringField(input, "pattern", "query") ?? "";
      const where = stringField(input, "path", "include", "glob");
      call.input = clip(where ? `${pattern} ${where}` : pattern);
      break;
    }
    case "WebFetch":
      call.input = clip(stringField(input, "url") ?? "");
      break;
    case "WebSearch":
      call.input = clip(stringField(input, "query") ?? "");
      break;
    case "Task":
      call.input = clip(stringField(input, "description", "prompt") ?? "");
      break;
    default:
      call.input = clip(filePath ?? firstShortString(input) ?? "");
  }
  if (name === "Edit") {
    call.linesAdded = countLines(input.new_string);
    call.linesRemoved = countLines(input.old_string);
  } else if (name === "MultiEdit" && Array.isArray(input.edits)) {
    const edits = input.edits as Array<Record<string, unknown>>;
    call.linesAdded = edits.reduce((sum, edit) => sum + countLines(edit?.new_string ?? edit?.newString), 0);
    call.linesRemoved = edits.reduce((sum, edit) => sum + countLines(edit?.old_string ?? edit?.oldString), 0);
  } else if (name === "Write") {
    call.linesAdded = countLines(input.content);
    call.linesRemoved = 0;
  }
  return call;
}

function firstShortString(input: Record<string, unknown>): string | undefined {
  for (const value of Object.values(input)) {
    if (typeof value === "string" && value.length > 0 && value.length <= 500) return value;
  }
  return undefined;
}

/** Unique file paths of a turn's tool calls, in first-touch order. */
export function filesTouched(calls: readonly ToolCall[]): string[] {
  const seen = new Set<string>();
  for (const call of calls) if (call.filePath) seen.add(call.filePath);
  return [...seen];
}
