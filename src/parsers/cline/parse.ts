/**
 * Parsing one task folder of the Cline family (parser.ts): loaded at its first parse, so a search's freshness check and
 * resume commands never load it (issue 42, cold start).
 */
import { withAbstract } from "../shared/abstract.ts";
import { projectNameOf } from "../shared/fields.ts";
import { emptySkips } from "../shared/skips.ts";
import type { ParseOptions, ParseResult, Session, SourceId, SourceUnit } from "../types.ts";
import { loadTaskFolder } from "./load.ts";
import { buildChatTurns } from "./turns.ts";

/**
 * Parse one task folder of agent `id` (createTaskFolderParser's `parse`): a full parse.
 * @throws SourceError when the chat cannot be read or is not a complete JSON array (load.ts)
 */
export function parseTaskFolderUnit(id: SourceId, unit: SourceUnit, options: ParseOptions): ParseResult {
  const skipped = emptySkips();
  const folder = loadTaskFolder(unit.containerPath, skipped);
  const isSubagent = folder.parentTaskId !== null;
  const chat = buildChatTurns(
    unit.sessionId,
    folder,
    unit.containerPath,
    isSubagent,
    options.withOutputs ?? false,
    skipped,
  );
  const startFolder = typeof unit.locator?.startFolder === "string" ? unit.locator.startFolder : "";
  const projectPath = folder.workspace || startFolder || chat.projectPath;
  const session: Session = {
    id: unit.sessionId,
    source: id,
    projectPath,
    projectName: projectNameOf(projectPath),
    gitBranch: null,
    startedAt: chat.startedAt,
    endedAt: chat.endedAt,
    title: null,
    turnCount: chat.turns.length,
    parentSessionId: folder.parentTaskId,
    isSubagent,
    location: unit.containerPath,
  };
  return {
    session: withAbstract(session, chat.abstract),
    turns: chat.turns,
    fromTurn: 1,
    bytesRead: folder.bytesRead,
    skipped,
  };
}
