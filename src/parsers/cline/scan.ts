/**
 * Finding the task folders of the Cline family (Cline, Roo Code, Kilo Code) by file stats alone. Each agent keeps one
 * folder per task, `<root>/tasks/<task id>/`, holding `ui_messages.json` (what the chat panel shows, read here),
 * `api_conversation_history.json` (what the model was sent) and side files (cline/cline src/core/storage/disk.ts
 * `GlobalFileNames` @beb3ad78; RooCodeInc/Roo-Code src/shared/globalFileNames.ts @cb836567). A root is the extension's
 * storage folder (holding `tasks/`), a `tasks` folder itself, or one task folder.
 * One container = one task's `ui_messages.json`; its fingerprint holds that file's stats and those of the side files
 * a parse reads: `<ui stats>|item:<history_item.json stats or ->|meta:<task_metadata.json stats or ->`.
 * The freshness check (index/plan/freshness.ts) re-stats the chats of the last 24 h by their paths (a root may be a
 * `ui_messages.json`), and watches the roots, the `tasks` folder (a new task) and each task folder that holds no chat
 * yet (the agent creates the folder, then writes the chat into it): a search at 2,000 tasks no longer stats them all.
 */
import type { Stats } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { statFingerprint } from "../file-stats.ts";
import { TreeWalk, visitRoots } from "../shared/tree-walk.ts";
import type { ScanResult, SourceId } from "../types.ts";

/** The file a task's chat is read from. */
export const uiMessagesFileName = "ui_messages.json";
/** Roo Code's per-task summary (`workspace`, `parentTaskId`, `mode`): Roo-Code src/shared/globalFileNames.ts. */
export const historyItemFileName = "history_item.json";
/** Cline's per-task metadata (`model_usage`): cline src/core/context/context-tracking/ContextTrackerTypes.ts. */
export const taskMetadataFileName = "task_metadata.json";

/**
 * Every task's `ui_messages.json` below `roots`, with the stats-only fingerprint described above. Relative roots are
 * resolved against the working directory.
 * @returns containers of `source`, sorted by path; roots that do not exist; paths that cannot be read. Never throws.
 */
export function scanTaskRoots(source: SourceId, roots: readonly string[]): ScanResult {
  const walk = new TreeWalk();
  const missing = visitRoots(
    roots.map((root) => resolve(root)),
    walk,
    (root, stats) => {
      if (stats.isFile() && basename(root) === uiMessagesFileName) addTask(walk, source, dirname(root));
      if (!stats.isDirectory()) return;
      const entries = walk.enterDir(root, stats);
      if (!entries) return;
      if (entries.some((entry) => entry.name === uiMessagesFileName)) {
        addTask(walk, source, root);
        return;
      }
      const tasks = entries.some((entry) => entry.name === "tasks") ? join(root, "tasks") : root;
      const taskEntries = tasks === root ? entries : walk.enterDir(tasks);
      for (const entry of taskEntries ?? []) {
        if (entry.isDirectory() || entry.isSymbolicLink()) addTask(walk, source, join(tasks, entry.name));
      }
    },
  );
  return walk.result(missing);
}

/** List one task folder's `ui_messages.json` as a container; when the folder holds none, watch the folder for it. */
function addTask(walk: TreeWalk, source: SourceId, taskDir: string): void {
  const path = join(taskDir, uiMessagesFileName);
  const chat = walk.statOrNote(path);
  if (!chat) walk.watchPath(taskDir, walk.statOrNote(taskDir));
  const stats = chat && walk.newFile(path, chat);
  if (!stats) return;
  const side = (name: string): string => {
    const sideStats: Stats | undefined = walk.statOrNote(join(taskDir, name));
    return sideStats?.isFile() ? statFingerprint(sideStats) : "-";
  };
  const fingerprint = `${statFingerprint(stats)}|item:${side(historyItemFileName)}|meta:${side(taskMetadataFileName)}`;
  walk.addContainer(source, path, stats, fingerprint);
}
