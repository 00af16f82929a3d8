/**
 * Parsing one pi session file (docs/formats/pi.md): header, entries, the branch pi resumes, turns. The whole file is
 * read on every parse (no resume state: pi files stay small, and a tree can gain a branch anywhere).
 * Abstract (issue 41): each `compaction {summary}` (pi's context checkpoint) is a `compaction`, each `branch_summary
 * {fromId, summary}` (what pi wrote of a branch the user left with /tree) an `agent_summary`, at the entry's time.
 */
import { readFileSync } from "node:fs";
import { SourceError } from "../../errors.ts";
import { fsReason } from "../file-stats.ts";
import { projectNameOf } from "../shared/fields.ts";
import { decodeWhole } from "../shared/resume-lines.ts";
import { emptySkips } from "../shared/skips.ts";
import { withAbstract } from "../shared/abstract.ts";
import type { AbstractPart, ParseOptions, ParseResult, Session, SourceUnit } from "../types.ts";
import { activeBranch, entriesOf, headerOf } from "./entries.ts";
import { groupTurns } from "./turns.ts";

/**
 * Parse one unit of listPiUnits.
 * @throws SourceError when the file cannot be read or its first line is no session header
 */
export function parsePiUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const path = unit.containerPath;
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    throw new SourceError(`cannot read pi session ${path}: ${fsReason(error)}`, path, { cause: error });
  }
  const skipped = emptySkips();
  const decoded = decodeWhole(bytes, path, skipped);
  const lines = decoded.partial ? [...decoded.lines, decoded.partial] : decoded.lines;
  const first = lines[0];
  const header = first?.line === 1 ? headerOf(first.value) : null;
  if (!header) throw new SourceError(`${path}: no session header on line 1; not a pi session file`, path, { line: 1 });
  const entries = entriesOf(lines.slice(1));
  const { main, rewound } = groupTurns(
    entries,
    activeBranch(entries),
    header.id,
    options.withOutputs === true,
    path,
    skipped,
  );
  // `/name` appends a `session_info {name}`; the latest one names the session (session-manager.ts `getSessionName`).
  let title: string | null = null;
  let startedAt = header.time;
  let endedAt = header.time;
  const parts: AbstractPart[] = [];
  for (const entry of entries) {
    if (entry.type === "session_info" && typeof entry.value.name === "string") title = entry.value.name.trim() || null;
    const summary = entry.value.summary;
    if ((entry.type === "compaction" || entry.type === "branch_summary") && typeof summary === "string")
      parts.push({
        source: entry.type === "compaction" ? "compaction" : "agent_summary",
        text: summary,
        at: entry.time,
      });
    if (entry.time > 0 && (startedAt === 0 || entry.time < startedAt)) startedAt = entry.time;
    if (entry.time > endedAt) endedAt = entry.time;
  }
  const session: Session = {
    id: header.id,
    source: "pi",
    projectPath: header.cwd,
    projectName: projectNameOf(header.cwd),
    gitBranch: null,
    startedAt,
    endedAt,
    title,
    turnCount: main.length,
    parentSessionId: null,
    isSubagent: false,
    location: path,
  };
  return {
    session: withAbstract(session, parts),
    turns: [...main, ...rewound],
    fromTurn: 1,
    bytesRead: bytes.length,
    skipped,
  };
}
