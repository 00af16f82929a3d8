/**
 * Goose parser (block/goose; docs/formats/goose.md). Data: `$GOOSE_PATH_ROOT/data`, else the platform's app data folder
 * (goose/source.ts); sessions in `sessions/sessions.db`, a SQLite database (`crates/goose/src/session/
 * session_manager.rs`), one row per session in `sessions` and per message in `messages`. Older Goose versions wrote
 * one JSONL file per session there (goose/legacy.ts); the first version with the database imports them into it
 * (`import_legacy`), so a legacy file is read only when no database holds its session. Containers: each database
 * (its fingerprint holds the `-wal` file's stats; one unit per session, change key `<updated_at>:<messages>:<last
 * message row id>`) and each legacy file (one unit). Resume: `goose session --resume
 * --session-id <id>` in the session's folder (aaif-goose/goose v1.50.0 `documentation/docs/guides/
 * goose-cli-commands.md`: "--session-id: Used for session identifiers (e.g., 20251108_1)", "-r, --resume").
 * Code in ./goose/ (source, database, legacy, tools, turns, parse).
 */
import { sessionTreeScans } from "./shared/session-files.ts";
import { unitsPerSession } from "./shared/database-units.ts";
import type { Parser, ParserHooks, SourceContainer, SourceUnit } from "./types.ts";
import { fsReason, isMissingError } from "./file-stats.ts";
import { listGooseSessions, openGooseDatabase } from "./goose/database.ts";
import { legacySessionIdOf, parseGooseLegacyUnit } from "./goose/legacy.ts";
import { parseGooseUnit } from "./goose/parse.ts";
import { readHead } from "./shared/read-head.ts";
import { rejectFile } from "./shared/skips.ts";

const databaseName = "sessions.db";

const isLegacyFile = (name: string): boolean => name.endsWith(".jsonl");

/**
 * One unit per session with messages (Goose lists no session without one), and one per legacy `.jsonl` file whose
 * session no database holds (a session Goose imported is read from the database: goose/legacy.ts). A session found
 * in two databases (a backup folder given as another root) becomes one unit: the one with more messages, then the
 * later path.
 */
function listGooseUnits(containers: readonly SourceContainer[], hooks: ParserHooks = {}): SourceUnit[] {
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

/** The Goose `Parser`: stats-only scan for `sessions/sessions.db`, one unit per session, whole-session parses. */
export const gooseParser: Parser = {
  id: "goose",
  version: 2, // 2: the summary Goose writes when it compacts is the session's abstract, not a skipped message (issue 41)
  ...sessionTreeScans({
    source: "goose",
    sessionsFolder: "sessions",
    isSessionFile: (name) => name === databaseName || isLegacyFile(name),
    maxDepth: 3,
    sideFileOf: (path) => (isLegacyFile(path) ? undefined : `${path}-wal`),
  }),
  scansContainerPaths: true,
  listUnits: listGooseUnits,
  parse: (unit, options) =>
    isLegacyFile(unit.containerPath) ? parseGooseLegacyUnit(unit, options) : parseGooseUnit(unit, options),
  // `<data dir>/sessions/`: the database, its WAL and legacy session files start a cycle.
  watch: {
    kind: "tree",
    depth: 1,
    isSessionFile: (name) => name === databaseName || name === `${databaseName}-wal` || isLegacyFile(name),
    missingRootPending: true,
  },
  resumeInvocation: (sessionId, projectPath) => ({
    cwd: projectPath || undefined,
    argv: ["goose", "session", "--resume", "--session-id", sessionId],
  }),
};
