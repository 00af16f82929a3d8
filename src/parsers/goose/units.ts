/**
 * Listing Goose's sessions (../goose.ts's `listUnits`): loaded at its first use, so a search's freshness check and
 * resume commands never load it (issue 42, cold start).
 */
import { fsReason, isMissingError } from "../file-stats.ts";
import { unitsPerSession } from "../shared/database-units.ts";
import { readHead } from "../shared/read-head.ts";
import { rejectFile } from "../shared/skips.ts";
import type { ParserHooks, SourceContainer, SourceUnit } from "../types.ts";
import { listGooseSessions, openGooseDatabase } from "./database.ts";
import { legacySessionIdOf } from "./legacy.ts";
import { isLegacyFile } from "./scan.ts";

/**
 * One unit per session with messages (Goose lists no session without one), and one per legacy `.jsonl` file whose
 * session no database holds (a session Goose imported is read from the database: goose/legacy.ts). A session found
 * in two databases (a backup folder given as another root) becomes one unit: the one with more messages, then the
 * later path.
 */
export function listGooseUnits(containers: readonly SourceContainer[], hooks: ParserHooks = {}): SourceUnit[] {
  const databases = unitsPerSession(
    "goose",
    containers.filter((container) => !isLegacyFile(container.path)),
    hooks,
    (path) =>
      listGooseSessions(openGooseDatabase(path))
        .filter((row) => row.message_count > 0)
        .map((row) => ({
          id: row.id,
          messages: row.message_count,
          changeKey: `${row.updated_at}:${row.message_count}:${row.last_message_row}`,
        })),
    "last",
  );
  const inDatabases = new Set(databases.map((unit) => unit.sessionId));
  const legacy = new Map<string, SourceUnit>();
  for (const container of containers.filter((candidate) => isLegacyFile(candidate.path))) {
    const unit = legacyUnit(container, hooks);
    if (unit && !inDatabases.has(unit.sessionId)) legacy.set(unit.sessionId, unit);
  }
  return [...databases, ...legacy.values()];
}

/** The unit of a legacy session file, or undefined (reported) when it is empty, unreadable or not JSON lines. */
function legacyUnit(container: SourceContainer, hooks: ParserHooks): SourceUnit | undefined {
  let head: string;
  try {
    head = readHead(container.path, 64).text.trimStart();
  } catch (error) {
    if (!isMissingError(error)) hooks.onUnavailable?.(container.path, fsReason(error));
    return undefined;
  }
  if (!head.startsWith("{")) {
    rejectFile(hooks, container.path, head.length === 0 ? "empty file" : "not a JSON line");
    return undefined;
  }
  const sessionId = legacySessionIdOf(container.path);
  return {
    source: "goose",
    key: container.path,
    sessionId,
    containerPath: container.path,
    changeKey: container.fingerprint,
  };
}
