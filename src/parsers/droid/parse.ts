/**
 * Parsing one Droid session (docs/formats/droid.md): the `session_start` header, the records after it, and the side
 * file `<id>.settings.json` (model and token totals). The whole file is read on every parse. Abstract (issue 41): each
 * `compaction_state {summaryText}` record is a `compaction`, at the record's time.
 */
import { readFileSync } from "node:fs";
import { SourceError } from "../../errors.ts";
import { fsReason } from "../file-stats.ts";
import { projectNameOf, timeOf } from "../shared/fields.ts";
import { decodeWhole } from "../shared/resume-lines.ts";
import { emptySkips } from "../shared/skips.ts";
import { withAbstract } from "../shared/abstract.ts";
import type { AbstractPart, ModelUsage, ParseOptions, ParseResult, Session, SourceUnit, Turn } from "../types.ts";
import { addModelUsage } from "../usage.ts";
import { readDroidSettings, type DroidSettings } from "./settings.ts";
import { groupDroidTurns } from "./turns.ts";

const stringOf = (value: unknown): string | null => (typeof value === "string" && value.length > 0 ? value : null);

/**
 * Parse one unit of the Droid listing. Title: `sessionTitle` (Droid's short title), else `title`. A sub-agent's header
 * names its parent (`callingSessionId`, with the `Task` call's `callingToolUseId`): the session is a sub-agent of it.
 * @throws SourceError when the file cannot be read or its first line is no `session_start`
 */
export function parseDroidUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const path = unit.containerPath;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new SourceError(`cannot read factory droid session ${path}: ${fsReason(error)}`, path, { cause: error });
  }
  const skipped = emptySkips();
  const decoded = decodeWhole(bytes, path, skipped);
  const lines = decoded.partial ? [...decoded.lines, decoded.partial] : decoded.lines;
  const header = lines[0]?.line === 1 ? lines[0].value : undefined;
  const id = header?.type === "session_start" ? stringOf(header.id) : null;
  if (!header || id === null) {
    throw new SourceError(`${path}: no session_start line first; not a factory droid session`, path, { line: 1 });
  }
  const parentSessionId = stringOf(header.callingSessionId);
  const turns = groupDroidTurns(
    lines.slice(1),
    id,
    parentSessionId !== null,
    options.withOutputs === true,
    path,
    skipped,
  );
  addSettingsUsage(turns, readDroidSettings(path));
  const cwd = stringOf(header.cwd) ?? "";
  let startedAt = 0;
  let endedAt = 0;
  const parts: AbstractPart[] = [];
  for (const { value } of lines) {
    const time = timeOf(value.timestamp);
    if (time > 0 && (startedAt === 0 || time < startedAt)) startedAt = time;
    if (time > endedAt) endedAt = time;
    const summary = stringOf(value.summaryText);
    if (value.type === "compaction_state" && summary !== null)
      parts.push({ source: "compaction", text: summary, at: time });
  }
  const title = stringOf(header.sessionTitle) ?? stringOf(header.title);
  const session: Session = {
    id,
    source: "droid",
    projectPath: cwd,
    projectName: projectNameOf(cwd),
    gitBranch: null,
    startedAt,
    endedAt,
    title,
    turnCount: turns.length,
    parentSessionId,
    isSubagent: parentSessionId !== null,
    location: path,
  };
  return {
    session: withAbstract(session, parts),
    turns,
    fromTurn: 1,
    bytesRead: bytes.length,
    skipped,
  };
}

/**
 * The side file's model on every turn, and its session token totals on the last turn (Droid records no usage per
 * message, so the totals are booked where the session ended). Nothing when the side file names neither.
 */
function addSettingsUsage(turns: Turn[], settings: DroidSettings): void {
  if (settings.model === null && settings.totals === null) return;
  const model = settings.model ?? "unknown";
  const none = { input: null, output: null, cacheRead: null, cacheWrite: null };
  turns.forEach((turn, index) => {
    const usage: ModelUsage[] = [];
    const last = index === turns.length - 1;
    addModelUsage(usage, model, last && settings.totals ? settings.totals : none);
    turn.usage = usage;
  });
}
