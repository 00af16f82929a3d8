/**
 * Parsing one Continue session file `sessions/<id>.json` (docs/formats/continue.md): `{sessionId, title,
 * workspaceDirectory, history, mode?, chatModelTitle?, usage?}` as `core/util/history.ts` `save` writes it (d0a3c0b6),
 * with the session's creation time from the folder's `sessions.json` index. The whole file is read on every parse.
 */
import { readFileSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { SourceError } from "../../errors.ts";
import { fsReason } from "../file-stats.ts";
import { asObject, projectNameOf } from "../shared/fields.ts";
import { emptySkips } from "../shared/skips.ts";
import { withAbstract } from "../shared/abstract.ts";
import type { AbstractPart, ParseOptions, ParseResult, Session, SourceUnit, Turn } from "../types.ts";
import { addModelUsage, countOf } from "../usage.ts";
import { groupContinueTurns } from "./turns.ts";

/**
 * The folder a `workspaceDirectory` names: the IDE extensions write a URI (`file:///home/ada/shop`, VS Code's
 * `folder.uri.toString()`), the `cn` CLI a path; "" when empty or another kind of URI.
 */
export function workspaceFolderOf(value: unknown): string {
  if (typeof value !== "string" || value.length === 0) return "";
  if (value.startsWith("file://")) {
    try {
      return fileURLToPath(value);
    } catch {
      return decodeURIComponent(value.slice("file://".length));
    }
  }
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? "" : value;
}

/** `dateCreated` (epoch ms as a string) of a session in the folder's `sessions.json`; 0 when not listed. */
function dateCreatedOf(sessionsFolder: string, sessionId: string): number {
  try {
    const list: unknown = JSON.parse(readFileSync(join(sessionsFolder, "sessions.json"), "utf8"));
    if (!Array.isArray(list)) return 0;
    const entry = list.map((item) => asObject(item)).find((item) => item?.sessionId === sessionId);
    const time = Number(entry?.dateCreated);
    return Number.isFinite(time) && time > 0 ? time : 0;
  } catch {
    return 0;
  }
}

/**
 * Parse one unit of the Continue listing. The session id is the file's name, as Continue's `load` takes it.
 * @throws SourceError when the file cannot be read or is not a Continue session (no `history` list)
 */
export function parseContinueUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const path = unit.containerPath;
  let bytes: Buffer;
  let modifiedMs: number;
  try {
    bytes = readFileSync(path);
    modifiedMs = statSync(path).mtimeMs;
  } catch (error) {
    throw new SourceError(`cannot read continue session ${path}: ${fsReason(error)}`, path, { cause: error });
  }
  let session: Record<string, unknown> | undefined;
  try {
    session = asObject(JSON.parse(bytes.toString("utf8")));
  } catch {
    session = undefined;
  }
  if (!session || !Array.isArray(session.history)) {
    throw new SourceError(`${path}: no history list; not a continue session`, path);
  }
  const sessionId = basename(path, ".json");
  const created = dateCreatedOf(dirname(path), sessionId);
  const modelTitle = typeof session.chatModelTitle === "string" ? session.chatModelTitle : null;
  const skipped = emptySkips();
  const parts: AbstractPart[] = [];
  const turns = groupContinueTurns(
    session.history,
    { sessionId, time: created, modelTitle, withOutputs: options.withOutputs === true, place: path },
    skipped,
    parts,
  );
  addSessionCost(turns, asObject(session.usage), modelTitle);
  const project = workspaceFolderOf(session.workspaceDirectory);
  const ended = Math.round(modifiedMs);
  const title = typeof session.title === "string" && session.title.length > 0 ? session.title : null;
  const result: Session = {
    id: sessionId,
    source: "continue",
    projectPath: project,
    projectName: projectNameOf(project),
    gitBranch: null,
    startedAt: created > 0 ? created : ended,
    endedAt: Math.max(created, ended),
    title,
    turnCount: turns.length,
    parentSessionId: null,
    isSubagent: false,
    location: path,
  };
  return {
    session: withAbstract(result, parts),
    turns,
    fromTurn: 1,
    bytesRead: bytes.length,
    skipped,
  };
}

/** The session's `usage.totalCost` (USD, cumulative) on the last turn's last model. */
function addSessionCost(turns: Turn[], usage: Record<string, unknown> | undefined, modelTitle: string | null): void {
  const cost = countOf(usage?.totalCost);
  const last = turns.at(-1);
  if (!last || cost === null || cost === 0) return;
  last.usage ??= [];
  const model = last.usage.at(-1)?.model ?? modelTitle ?? "unknown";
  addModelUsage(last.usage, model, { input: null, output: null, cacheRead: null, cacheWrite: null }, cost);
}
