/**
 * Cline's task list, `<storage>/state/taskHistory.json` beside `tasks/`: a JSON array of `HistoryItem`s `{id, ts, task,
 * tokensIn, tokensOut, …, cwdOnTaskInitialization?}` (cline/cline src/shared/HistoryItem.ts; a file since 2025-08,
 * src/core/storage/disk.ts `getTaskHistoryStateFilePath`, PR #5877; `cwdOnTaskInitialization` since 2025-05, the
 * folder the task started in, src/core/task/message-state.ts). It names the folder of tasks whose environment details
 * name only the primary folder's name (`# Current Working Directory (Primary: <name>) Files`, multi-root workspaces).
 * Roo Code and Kilo Code keep their list in the editor's own state database instead: nothing to read here for them.
 */
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { asObject } from "../shared/fields.ts";

/**
 * The start folder of each task, by task id, from the task list of the storage folder holding `tasks/` that holds
 * each given `ui_messages.json`; each list is read once. A list that is missing or not JSON adds nothing.
 * @param uiMessagesPaths `<storage>/tasks/<task id>/ui_messages.json` paths
 * @returns task id → folder, for the tasks whose item records one
 */
export function taskStartFolders(uiMessagesPaths: readonly string[]): Map<string, string> {
  const folders = new Map<string, string>();
  const storages = new Set(uiMessagesPaths.map((path) => dirname(dirname(dirname(path)))));
  for (const storage of storages) {
    let items: unknown;
    try {
      items = JSON.parse(readFileSync(join(storage, "state", "taskHistory.json"), "utf8"));
    } catch {
      continue; // no list (Roo Code, Kilo Code, a copied tasks folder) or one being written: the chats still name theirs
    }
    if (!Array.isArray(items)) continue;
    for (const entry of items) {
      const item = asObject(entry);
      if (
        typeof item?.id === "string" &&
        typeof item.cwdOnTaskInitialization === "string" &&
        item.cwdOnTaskInitialization
      ) {
        folders.set(item.id, item.cwdOnTaskInitialization);
      }
    }
  }
  return folders;
}
