/**
 * What an edit or write tool call changed (`ToolCall.change`, issue 29), from the call's input in the shared
 * vocabulary (tool-calls.ts: `Edit`/`MultiEdit`/`Write`, snake_case keys), and the cap that keeps a giant text from
 * blowing up a page. Built only for level-3 parses (`withOutputs`); shapes and their sources: types.ts `FileChange`.
 */
import type { FileChange, ToolCall } from "./types.ts";

/** Longest text kept in a `FileChange` (characters); a longer one is cut and ends with {@link capChangeText}'s marker. */
export const fileChangeTextMaxChars = 200_000;

/** First characters of the line that ends a cut text: `\n[recall: cut at 200000 of <n> characters]`. */
export const fileChangeCutMarker = "\n[recall: cut at ";

/**
 * `text` whole when it has at most {@link fileChangeTextMaxChars} characters, else its first that many followed by
 * the marker line. Example: a 250,000-character text → its first 200,000 + `\n[recall: cut at 200000 of 250000 characters]`.
 */
export function capChangeText(text: string): string {
  if (text.length <= fileChangeTextMaxChars) return text;
  return `${text.slice(0, fileChangeTextMaxChars)}${fileChangeCutMarker}${fileChangeTextMaxChars} of ${text.length} characters]`;
}

const stringOf = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);

/** One replacement of an edit input (`old_string`/`new_string`, or camelCase inside a MultiEdit list), or undefined. */
function replacement(edit: unknown): { before: string; after: string } | undefined {
  if (edit === null || typeof edit !== "object") return undefined;
  const record = edit as Record<string, unknown>;
  const before = stringOf(record.old_string) ?? stringOf(record.oldString);
  const after = stringOf(record.new_string) ?? stringOf(record.newString);
  if (before === undefined || after === undefined) return undefined;
  return { before: capChangeText(before), after: capChangeText(after) };
}

/**
 * The change of a call built by `buildToolCall(name, input)`: `Edit` {old_string, new_string} → one edit;
 * `MultiEdit` {edits:[…]} → its edits (entries without both strings are left out); `Write` {content} → the content.
 * `path` is the call's `filePath` ("" when it has none).
 * @returns undefined for any other tool, or when the input lacks the texts (nothing to draw)
 * Example: (`Edit` /a.ts, {old_string:"x", new_string:"y"}) → `{path:"/a.ts", kind:"edit", edits:[{before:"x", after:"y"}]}`.
 */
export function fileChangeOf(call: ToolCall, input: Record<string, unknown>): FileChange | undefined {
  const path = call.filePath ?? "";
  switch (call.name) {
    case "Edit": {
      const edit = replacement(input);
      return edit ? { path, kind: "edit", edits: [edit] } : undefined;
    }
    case "MultiEdit": {
      const list = Array.isArray(input.edits) ? input.edits : [];
      const edits = list.map(replacement).filter((edit) => edit !== undefined);
      return edits.length > 0 ? { path, kind: "edit", edits } : undefined;
    }
    case "Write": {
      const content = stringOf(input.content);
      return content === undefined ? undefined : { path, kind: "write", content: capChangeText(content) };
    }
    default:
      return undefined;
  }
}

/** Sets `call.change` from its input when {@link fileChangeOf} finds one; returns the call. */
export function withFileChange(call: ToolCall, input: Record<string, unknown>): ToolCall {
  const change = fileChangeOf(call, input);
  if (change) call.change = change;
  return call;
}
