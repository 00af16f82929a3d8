/**
 * Crush parser (charmbracelet/crush; docs/formats/crush.md). Each project keeps its sessions in its data folder's
 * `crush.db` (`<project>/.crush/crush.db` by default), a SQLite database with `sessions` and `messages` tables
 * (`internal/db/migrations/` at 37f36e93); the global data folder's `projects.json` lists the projects (crush/scan.ts).
 * One container = one database (its fingerprint holds the `-wal` file's stats); one unit per session with messages,
 * change key `<session updated_at>:<messages>:<newest message updated_at>:<parts length>`. Resume: `crush --session
 * <id>` in the project folder (`internal/cmd/root.go` at 37f36e93: `--session`, `-s`, "Continue a previous session
 * by ID"). Code in ./crush/ (source, scan, database, tools, turns, parse).
 */
import { describeSqliteError } from "./shared/readonly-sqlite.ts";
import type { Parser, ParserHooks, SourceContainer, SourceUnit } from "./types.ts";
import { listCrushSessions, openCrushDatabase } from "./crush/database.ts";
import { parseCrushUnit } from "./crush/parse.ts";
import { crushDatabaseName, projectsFileName, scanCrushRoots } from "./crush/scan.ts";

/**
 * One unit per session with messages. A session found in two databases (a copy given as another root) becomes one
 * unit: the one with more messages, then the later path.
 */
function listCrushUnits(containers: readonly SourceContainer[], hooks: ParserHooks = {}): SourceUnit[] {
  const best = new Map<string, { unit: SourceUnit; messages: number }>();
  for (const container of containers) {
    let rows: ReturnType<typeof listCrushSessions>;
    try {
      rows = listCrushSessions(openCrushDatabase(container.path));
    } catch (error) {
      const reason = describeSqliteError(error);
      if (hooks.onUnavailable) hooks.onUnavailable(container.path, reason);
      else hooks.onWarning?.(`${container.path}: ${reason}`);
      continue;
    }
    for (const row of rows) {
      if (row.message_count === 0) continue;
      const current = best.get(row.id);
      if (current && current.messages > row.message_count) continue;
      best.set(row.id, {
        messages: row.message_count,
        unit: {
          source: "crush",
          key: `${container.path}#${row.id}`,
          sessionId: row.id,
          containerPath: container.path,
          changeKey: `${row.updated_at}:${row.message_count}:${row.last_message_update}:${row.parts_length}`,
        },
      });
    }
  }
  return [...best.values()].map(({ unit }) => unit);
}

/** The Crush `Parser`: scan for `crush.db` files (and `projects.json`), one unit per session, whole-session parses. */
export const crushParser: Parser = {
  id: "crush",
  version: 1,
  scan: scanCrushRoots,
  scansContainerPaths: true,
  listUnits: listCrushUnits,
  parse: (unit, options) => parseCrushUnit(unit, options),
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
