/**
 * One `Parser` for the Cline task-folder family (Cline, Roo Code, Kilo Code): the three write the same task folders
 * (scan.ts, load.ts, turns.ts) under their own extension id, so each source is this parser with its own id.
 * One container = one task's `ui_messages.json`; one unit = one task, whose id is its folder name (the id the agent's
 * History view and `taskHistory` use). Parses are full parses: a task's chat is one JSON array, rewritten whole.
 * Resume: none of the three has a command that reopens a task (they run inside the editor); the closest is opening the
 * project folder in VS Code, `code <folder>` (code.visualstudio.com/docs/configure/command-line), then the task from
 * the extension's History view, as recall does for Cursor.
 */
import { basename, dirname } from "node:path";
import { optionSafe } from "../shared/option-safe.ts";
import type { Parser, SourceContainer, SourceId, SourceUnit } from "../types.ts";
import { historyItemFileName, scanTaskRoots, taskMetadataFileName, uiMessagesFileName } from "./scan.ts";
import { taskStartFolders } from "./task-history.ts";

// the parse code loads at the first parse: a search's freshness check and resume commands never need it (issue 42)
const parseSide = () => require("./parse.ts") as typeof import("./parse.ts");

/**
 * The parser of one agent of the family.
 * @param id its source id (`cline`, `roo-code`, `kilo-code`)
 * listUnits: one unit per container, key = the `ui_messages.json` path, change key = its fingerprint; reads only
 * Cline's task list (task-history.ts) for each task's start folder (`locator.startFolder`).
 * Project folder: Roo Code's `history_item.json` `workspace`, else Cline's start folder, else the one the chat's
 * environment details name (turns.ts), else "".
 * parse: throws SourceError when the chat cannot be read or is not a complete JSON array (load.ts).
 */
export function createTaskFolderParser(id: SourceId): Parser {
  return {
    id,
    version: 2, // 2: the session carries the compaction summaries of its chat as its abstract (issue 41)
    scan: (roots) => scanTaskRoots(id, roots),
    scansContainerPaths: true,
    // `<storage>/tasks/<task id>/`: the chat and the side files a parse reads start a cycle.
    watch: {
      kind: "tree",
      depth: 2,
      isSessionFile: (name) =>
        name === uiMessagesFileName || name === historyItemFileName || name === taskMetadataFileName,
      missingRootPending: true,
    },
    resumeInvocation: (_sessionId, projectPath) => ({
      cwd: undefined,
      argv: projectPath ? ["code", ...optionSafe(projectPath)] : ["code"],
    }),
    listUnits(containers: SourceContainer[]): SourceUnit[] {
      const own = containers.filter((container) => container.source === id);
      const startFolders = taskStartFolders(own.map((container) => container.path));
      return own.map((container) => {
        const sessionId = basename(dirname(container.path));
        const startFolder = startFolders.get(sessionId);
        return {
          source: id,
          key: container.path,
          sessionId,
          containerPath: container.path,
          changeKey: container.fingerprint,
          ...(startFolder ? { locator: { startFolder } } : {}),
        };
      });
    },
    parse: (unit, options = {}) => parseSide().parseTaskFolderUnit(id, unit, options),
  };
}
