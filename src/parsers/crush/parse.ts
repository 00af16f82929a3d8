/**
 * Parsing one Crush session from its database (docs/formats/crush.md): the `sessions` row (title, parent, cost) and
 * its `messages`. Every parse reads the whole session.
 */
import { basename, dirname } from "node:path";
import { SourceError } from "../../errors.ts";
import { projectNameOf } from "../shared/fields.ts";
import { emptySkips } from "../shared/skips.ts";
import { withAbstract } from "../shared/abstract.ts";
import type { AbstractPart, ParseOptions, ParseResult, Session, SourceUnit, Turn } from "../types.ts";
import { addModelUsage } from "../usage.ts";
import { childSessions, loadCrushMessages, loadCrushSession, openCrushDatabase } from "./database.ts";
import { crushTimeOf, groupCrushTurns } from "./turns.ts";

/**
 * The project folder of a database: the folder holding its `.crush` data folder (Crush's default data folder is
 * `<project>/.crush`, `internal/config/load.go`); "" for a database kept elsewhere (`--data-dir`, a copy).
 */
export function crushProjectOf(databasePath: string): string {
  const dataDir = dirname(databasePath);
  return basename(dataDir) === ".crush" ? dirname(dataDir) : "";
}

/**
 * Parse one unit of the Crush listing: session `<db>#<id>`. A session with a `parent_session_id` is a sub-agent of
 * it. The session's `cost` (USD, cumulative, with its sub-agents' costs added, `internal/agent/coordinator.go`) less
 * its sub-agents' own is booked on the last turn; its `prompt_tokens` / `completion_tokens` are the last call's
 * context size, not usage, and are not read.
 * @throws SourceError when the database cannot be read now or the session is gone from it
 */
export function parseCrushUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const path = unit.containerPath;
  const handle = openCrushDatabase(path);
  const row = loadCrushSession(handle, unit.sessionId);
  if (!row) throw new SourceError(`${path}: crush session ${unit.sessionId} is no longer in the database`, path);
  const messages = loadCrushMessages(handle, row.id);
  const children = childSessions(handle, row.id);
  const skipped = emptySkips();
  const parent = row.parent_session_id || null;
  const parts: AbstractPart[] = [];
  const turns = groupCrushTurns(
    messages,
    row.id,
    parent !== null,
    new Set(children.keys()),
    options.withOutputs === true,
    path,
    skipped,
    parts,
  );
  const ownCost = (row.cost ?? 0) - [...children.values()].reduce((sum, cost) => sum + cost, 0);
  addCost(turns, ownCost);
  const times = messages.map((message) => crushTimeOf(message.created_at)).filter((time) => time > 0);
  const project = crushProjectOf(path);
  const title = row.title || null;
  const session: Session = {
    id: row.id,
    source: "crush",
    projectPath: project,
    projectName: projectNameOf(project),
    gitBranch: null,
    startedAt: times.length > 0 ? Math.min(...times) : crushTimeOf(row.created_at),
    endedAt: times.length > 0 ? Math.max(...times) : crushTimeOf(row.updated_at),
    title,
    turnCount: turns.length,
    parentSessionId: parent,
    isSubagent: parent !== null,
    location: path,
  };
  return {
    session: withAbstract(session, parts),
    turns,
    fromTurn: 1,
    bytesRead: messages.reduce((sum, message) => sum + message.parts.length, 0),
    skipped,
  };
}

/** Book the session's cost on the last turn's last model (nothing when it is 0 or no turn has a model). */
function addCost(turns: Turn[], costUsd: number): void {
  const usage = turns.at(-1)?.usage;
  const model = usage?.at(-1)?.model;
  if (!usage || !model || !(costUsd > 0)) return;
  addModelUsage(usage, model, { input: null, output: null, cacheRead: null, cacheWrite: null }, costUsd);
}
