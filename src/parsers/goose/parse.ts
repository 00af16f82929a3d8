/**
 * Parsing one Goose session from its database (docs/formats/goose.md): the `sessions` row (project folder, title,
 * kind, model and token totals) and its `messages` rows. Every parse reads the whole session.
 */
import { SourceError } from "../../errors.ts";
import { asObject, projectNameOf } from "../shared/fields.ts";
import { emptySkips } from "../shared/skips.ts";
import { withAbstract } from "../shared/abstract.ts";
import type {
  AbstractPart,
  ModelUsage,
  ParseOptions,
  ParseResult,
  Session,
  SkipReport,
  SourceUnit,
  Turn,
} from "../types.ts";
import { addModelUsage, countOf } from "../usage.ts";
import {
  type GooseMessageRow,
  type GooseSessionRow,
  loadGooseMessages,
  loadGooseSession,
  openGooseDatabase,
} from "./database.ts";
import { groupGooseTurns } from "./turns.ts";

/**
 * Epoch ms of a `sessions` time: SQLite's `CURRENT_TIMESTAMP` / `datetime('now')` text `YYYY-MM-DD HH:MM:SS` (UTC), or
 * the RFC 3339 text sqlx writes for a chrono `DateTime<Utc>`; 0 when unreadable.
 */
export function gooseTimeOf(value: string | number | null): number {
  if (typeof value === "number") return value > 1e11 ? value : value * 1000;
  if (typeof value !== "string") return 0;
  const text = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)?$/.test(value) ? `${value.replace(" ", "T")}Z` : value;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : 0;
}

/**
 * Parse one unit of the Goose listing: session `<db>#<id>`. A `sub_agent` session is a sub-agent; Goose does not
 * record which session started it, so its parent is unknown (null).
 * @throws SourceError when the database cannot be read now or the session is gone from it
 */
export function parseGooseUnit(unit: SourceUnit, options: ParseOptions = {}): ParseResult {
  const path = unit.containerPath;
  const handle = openGooseDatabase(path);
  const row = loadGooseSession(handle, unit.sessionId);
  if (!row) throw new SourceError(`${path}: goose session ${unit.sessionId} is no longer in the database`, path);
  const messages = loadGooseMessages(handle, row.id);
  const bytes = messages.reduce((sum, message) => sum + message.content_json.length, 0);
  return gooseSessionResult(row, messages, path, options, emptySkips(), bytes);
}

/**
 * The session and turns of one Goose session row and its messages, from the database or a legacy file (legacy.ts).
 * @param place the container, for skip places and `Session.location`
 * @param skipped skips noted while reading the container; the turns' skips are added
 */
export function gooseSessionResult(
  row: GooseSessionRow,
  messages: readonly GooseMessageRow[],
  place: string,
  options: ParseOptions,
  skipped: SkipReport,
  bytesRead: number,
): ParseResult {
  const isSubagent = row.session_type === "sub_agent";
  const parts: AbstractPart[] = [];
  const turns = groupGooseTurns(messages, row.id, isSubagent, options.withOutputs === true, place, skipped, parts);
  addSessionUsage(turns, row);
  const times = messages.map((message) => (message.created_timestamp ?? 0) * 1000).filter((time) => time > 0);
  const cwd = row.working_dir ?? "";
  const title = row.name || row.description || null;
  const session: Session = {
    id: row.id,
    source: "goose",
    projectPath: cwd,
    projectName: projectNameOf(cwd),
    gitBranch: null,
    startedAt: times.length > 0 ? Math.min(...times) : gooseTimeOf(row.created_at),
    endedAt: times.length > 0 ? Math.max(...times) : gooseTimeOf(row.updated_at),
    title,
    turnCount: turns.length,
    parentSessionId: null,
    isSubagent,
    location: place,
  };
  return {
    session: withAbstract(session, parts),
    turns,
    fromTurn: 1,
    bytesRead,
    skipped,
  };
}

/** The model of `model_config_json {model_name, …}` (`ModelConfig`, `crates/goose/src/model.rs` at 0514da84). */
function modelOf(json: string | null): string | null {
  if (!json) return null;
  try {
    const name = asObject(JSON.parse(json))?.model_name;
    return typeof name === "string" && name.length > 0 ? name : null;
  } catch {
    return null;
  }
}

/**
 * The session's model on every turn and its accumulated token totals on the last (Goose keeps no usage per message:
 * its `messages.tokens` column is never written). Nothing when it records neither.
 */
function addSessionUsage(turns: Turn[], row: GooseSessionRow): void {
  const model = modelOf(row.model_config_json);
  const input = countOf(row.accumulated_input_tokens);
  const output = countOf(row.accumulated_output_tokens);
  if (model === null && input === null && output === null) return;
  const none = { input: null, output: null, cacheRead: null, cacheWrite: null };
  turns.forEach((turn, index) => {
    const usage: ModelUsage[] = [];
    const totals = index === turns.length - 1 ? { input, output, cacheRead: null, cacheWrite: null } : none;
    addModelUsage(usage, model ?? "unknown", totals);
    turn.usage = usage;
  });
}
