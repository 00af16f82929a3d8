/**
 * Documents: the searchable text derived from a session (DESIGN.md "Documents").
 * A turn document = prompt (heading) + assistant prose (body) + tool names, compact inputs and
 * files (extra). A session document = title (heading) + every prompt of the session (body) + files
 * (extra). FTS5 indexes all three columns; `embedText` is what the embedding model sees: prompt,
 * prose, tool names and files, never tool payloads (they are most of the bytes and little meaning).
 */
import type { Session, ToolCall, Turn } from "../parsers/index.ts";

/** The text of one document, ready for the `documents` table. */
export interface DocumentText {
  heading: string;
  body: string;
  extra: string;
  /** Text handed to the embedding model (chunked later to fit its context). */
  embedText: string;
}

/**
 * Split camelCase and PascalCase runs so their parts are searchable words:
 * `JSSoundRecorder` → `JS Sound Recorder`, `getUserById` → `get User By Id`. Returns "" when nothing splits.
 */
export function splitCamelCase(text: string): string {
  const parts: string[] = [];
  for (const word of text.match(/[A-Za-z0-9]*[a-z][A-Z][A-Za-z0-9]*|[A-Z]{2,}[a-z][A-Za-z0-9]*/g) ?? []) {
    parts.push(word.replace(/([a-z0-9])([A-Z])/g, "$1 $2").replace(/([A-Z]+)([A-Z][a-z])/g, "$1 $2"));
  }
  return parts.join(" ");
}

const toolLine = (call: Pick<ToolCall, "name" | "input">): string => (call.input ? `${call.name} ${call.input}` : call.name);

/** Build the document of one turn. */
export function buildTurnDocument(turn: Pick<Turn, "prompt" | "response" | "toolCalls" | "files">): DocumentText {
  const toolNames = [...new Set(turn.toolCalls.map((call) => call.name))];
  const extra = [...turn.toolCalls.map(toolLine), ...turn.files, splitCamelCase(turn.files.join(" "))].filter(Boolean).join("\n");
  const embedParts = [turn.prompt, turn.response];
  if (toolNames.length > 0) embedParts.push(`Tools: ${toolNames.join(", ")}`);
  if (turn.files.length > 0) embedParts.push(`Files: ${turn.files.join(", ")}`);
  return { heading: turn.prompt, body: turn.response, extra, embedText: embedParts.filter(Boolean).join("\n\n") };
}

/**
 * Build the session document from its title and all prompts in turn order.
 * @param prompts every turn's prompt, turn 1 first
 * @param files every file touched in the session, unique
 */
export function buildSessionDocument(session: Pick<Session, "title" | "projectName">, prompts: readonly string[], files: readonly string[]): DocumentText {
  const title = session.title ?? "";
  const body = prompts.join("\n\n");
  const names = [session.projectName, ...files].join(" ");
  return {
    heading: title,
    body,
    extra: [session.projectName, ...files, splitCamelCase(names)].filter(Boolean).join("\n"),
    embedText: [title, body].filter(Boolean).join("\n\n"),
  };
}
