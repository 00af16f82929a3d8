/**
 * Telling a Qwen Code chat file from a Gemini CLI one (issue 37). Qwen Code is a fork of Gemini CLI and keeps its
 * chats under a `tmp/<project>/chats/` layout too, so a copied or merged `~/.qwen` can sit inside a Gemini root, but
 * its JSONL is another format: one `ChatRecord` per line, `{uuid, parentUuid, sessionId, timestamp, type: "user" |
 * "assistant" | "tool_result" | "system", cwd, version, gitBranch?, message: {role, parts}}` (QwenLM/qwen-code
 * `packages/core/src/services/chatRecordingService.ts` `ChatRecord`, commit 015346f1, Apache-2.0). Read as Gemini CLI
 * it names a session and holds no message, so it became an empty session; the Gemini CLI source rejects it instead,
 * with a reason that names the source that reads it (qwen-code, issue 40: its scan takes the same test).
 */

/** The reason a Qwen Code chat file is rejected with (shown by `recall index` and `recall status`). */
export const qwenCodeReason = "not a Gemini CLI file: a Qwen Code chat (read by the qwen-code source: --qwen-dir)";

const recordTypes = new Set(["user", "assistant", "tool_result", "system"]);

/**
 * True when the first line of `head` (the start of a chat file) is a Qwen Code `ChatRecord`: an object with a string
 * `uuid`, a `parentUuid` key, a string `sessionId`, a `type` among user/assistant/tool_result/system, and no
 * `projectHash` (every Gemini CLI header has one, formats.md §4.3).
 * Examples: `{"uuid":"a1","parentUuid":null,"sessionId":"s","type":"user",…}` → true;
 *   `{"sessionId":"s","projectHash":"ab…","startTime":…}` → false; `{` (a pretty-printed Gemini JSON) → false.
 */
export function isQwenCodeChat(head: string): boolean {
  const newline = head.indexOf("\n");
  const firstLine = (newline < 0 ? head : head.slice(0, newline)).trim();
  if (!firstLine.startsWith("{") || !firstLine.includes('"parentUuid"')) return false;
  let value: unknown;
  try {
    value = JSON.parse(firstLine);
  } catch {
    return false;
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  return (
    typeof record.uuid === "string" &&
    "parentUuid" in record &&
    typeof record.sessionId === "string" &&
    typeof record.type === "string" &&
    recordTypes.has(record.type) &&
    !("projectHash" in record)
  );
}
