/**
 * Crush parser (charmbracelet/crush; docs/formats/crush.md). Each project keeps its sessions in its data folder's
 * `crush.db` (`<project>/.crush/crush.db` by default), a SQLite database with `sessions` and `messages` tables
 * (`internal/db/migrations/` at 37f36e93); the global data folder's `projects.json` lists the projects (crush/scan.ts).
 * One container = one database (its fingerprint holds the `-wal` file's stats); one unit per session with messages,
 * change key `<session updated_at>:<messages>:<newest message updated_at>:<parts length>`. Resume: `crush --session
 * <id>` in the project folder (`internal/cmd/root.go` at 37f36e93: `--session`, `-s`, "Continue a previous session
 * by ID"). Code in ./crush/ (source, scan, database, tools, turns, parse).
 */
import { unitsPerSession } from "./shared/database-units.ts";
import type { Parser, ParserHooks, SourceContainer, SourceUnit } from "./types.ts";
import { listCrushSessions, openCrushDatabase } from "./crush/database.ts";
import { crushDatabaseName, projectsFileName, scanCrushRoots } from "./crush/scan.ts";

// the parse code loads at the first parse: a search's freshness check and resume commands never need it (issue 42)
const parseSide = () => require("./crush/parse.ts") as typeof import("./crush/parse.ts");

/**
 * One unit per session with messages. A session found in two databases (a copy given as another root) becomes one
 * unit: the one with more messages, then the later path.
 */
function listCrushUnits(containers: readonly SourceContainer[], hooks: ParserHooks = {}): SourceUnit[] {
  return unitsPerSession(
    "crush",
    containers,
    hooks,
    (path) =>
      listCrushSessions(openCrushDatabase(path))
        .filter((row) => row.message_count > 0)
        .map((row) => ({
          id: row.id,
          messages: row.message_count,
          changeKey: `${row.updated_at}:${row.message_count}:${row.last_message_update}:${row.parts_length}`,
        })),
    "last",
  );
}

/** The Crush `Parser`: scan for `crush.db` files (and `projects.json`), one unit per session, whole-session parses. */
export const crushParser: Parser = {
  id: "crush",
  version: 2, // 2: the compaction summary (is_summary_message) is the session's abstract, not a skipped message (issue 41)
  scan: scanCrushRoots,
  scansContainerPaths: true,
  listUnits: listCrushUnits,
  parse: (unit, options) => parseSide().parseCrushUnit(unit, options),
  // The global data folder (projects.json) and the `.crush` folders below a root; databases elsewhere that
  // projects.json names are picked up by the next index run.
  watch: {
    kind: "tree",
    depth: 3,
    isSessionFile: (name) =>
      name === crushDatabaseName || name === `${crushDatabaseName}-wal` || name === projectsFileName,
    missingRootPending: true,
  },
  resumeInvocation: (sessionId, projectPath) => ({
    cwd: projectPath || undefined,
    argv: ["crush", "--session", sessionId],
  }),
};
