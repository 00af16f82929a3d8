/**
 * Gemini CLI's prompt history, `tmp/<project-id>/logs.json` (docs/formats.md §4.1): one JSON array, rewritten whole,
 * of `{sessionId, messageId (per session), type: "user", message, timestamp (ISO)}`. The project path comes from the
 * folder's `.project_root` (CLI ≥ 0.29), else, for a folder named by a hash, from the paths the `.gemini` folder
 * records (projects.ts); else it is unknown and the folder name (a slug, or a hash shortened) is the project name.
 */
import { readFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { noteSkip } from "../shared/skips.ts";
import type { SkipReport } from "../types.ts";
import { asObject, timeOf } from "../shared/fields.ts";
import type { HistoryPrompt, PromptHistoryFile, PromptHistorySpec } from "../shared/prompt-history.ts";
import { matchProjectHash, recordedProjectPaths, shortProjectName } from "./projects.ts";
import { logsFileName } from "./scan.ts";
import { readProjectRoot } from "./units.ts";

/**
 * Read one `logs.json`. A file that is not a JSON array (being rewritten, damaged) yields no prompts and one skip;
 * entries that are not user messages with a session id and text are skipped and counted.
 * @throws the fs error when it cannot be read
 */
export function readGeminiLogs(path: string): PromptHistoryFile {
  const bytes = readFileSync(path);
  const skipped: SkipReport = { count: 0 };
  let entries: unknown;
  try {
    entries = JSON.parse(bytes.toString("utf8"));
  } catch {
    entries = undefined;
  }
  if (!Array.isArray(entries)) {
    noteSkip(skipped, path, "not a JSON array");
    return { prompts: [], bytesRead: bytes.length, skipped };
  }
  const folder = dirname(path);
  const projectPath =
    readProjectRoot(folder) ?? matchProjectHash([basename(folder)], recordedProjectPaths(folder)) ?? "";
  const projectName = projectPath ? undefined : shortProjectName(basename(folder));
  const prompts: HistoryPrompt[] = [];
  for (const [index, entry] of entries.entries()) {
    const record = asObject(entry);
    const where = `${path}: entry ${index + 1}`;
    const problem =
      !record || (record.type !== undefined && record.type !== "user")
        ? "not a user message"
        : typeof record.sessionId !== "string" || record.sessionId.length === 0
          ? "no sessionId"
          : typeof record.message !== "string"
            ? "no message"
            : undefined;
    if (
      !record ||
      problem !== undefined ||
      typeof record.sessionId !== "string" ||
      typeof record.message !== "string"
    ) {
      noteSkip(skipped, where, problem ?? "not a user message");
      continue;
    }
    prompts.push({
      sessionId: record.sessionId,
      text: record.message,
      timestamp: timeOf(record.timestamp),
      projectPath,
      projectName,
    });
  }
  return { prompts, bytesRead: bytes.length, skipped };
}

/** Gemini CLI's prompt history for `withPromptHistory`. */
export const geminiLogsSpec: PromptHistorySpec = {
  fileName: logsFileName,
  read: readGeminiLogs,
};
