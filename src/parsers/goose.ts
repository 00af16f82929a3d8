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
import type { Parser } from "./types.ts";
import { databaseName, isLegacyFile } from "./goose/scan.ts";

// the listing and parse code loads at first use: a search's freshness check and resume commands never need it (issue 42)
const listSide = () => require("./goose/units.ts") as typeof import("./goose/units.ts");
const parseSide = () => require("./goose/parse.ts") as typeof import("./goose/parse.ts");
const legacyParseSide = () => require("./goose/legacy.ts") as typeof import("./goose/legacy.ts");

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
  listUnits: (containers, hooks) => listSide().listGooseUnits(containers, hooks),
  parse: (unit, options) =>
    isLegacyFile(unit.containerPath)
      ? legacyParseSide().parseGooseLegacyUnit(unit, options)
      : parseSide().parseGooseUnit(unit, options),
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
