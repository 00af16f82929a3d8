/**
 * Grok CLI parser (docs/formats/grok-cli.md): superagent-ai/grok-cli, command `grok`. Data: `~/.grok/grok.db`, one
 * SQLite database holding every session (`sessions`, `messages`, `usage_events`). One container = one database; one
 * unit per session, key `<database>#<session id>`, change key `<updated_at>:<messages>:<last seq>:<usage rows>`.
 * Resume command: `grok --session <id>` in the project folder (`src/index.ts`: `-s, --session <id>` "Continue a saved
 * session by id", commit fb97af83). Code in ./grok-cli/ (source, scan, database, tools, parse).
 */
import type { Parser, ParserHooks, SourceContainer, SourceUnit } from "./types.ts";
import { unitsPerSession } from "./shared/database-units.ts";
import { listSessions, withGrokDatabase } from "./grok-cli/database.ts";
import { databaseFileName, scanGrokRoots } from "./grok-cli/scan.ts";

export { scanGrokRoots } from "./grok-cli/scan.ts";

// the parse code loads at the first parse: a search's freshness check and resume commands never need it (issue 42)
const parseSide = () => require("./grok-cli/parse.ts") as typeof import("./grok-cli/parse.ts");

/**
 * Units of all databases, one per session id (a session in two copies of a database: the copy with more messages
 * wins, the first listed of equals). A database that cannot be read now is reported (shared/database-units.ts).
 */
export function listGrokUnits(containers: readonly SourceContainer[], hooks: ParserHooks = {}): SourceUnit[] {
  return unitsPerSession(
    "grok-cli",
    containers,
    hooks,
    (path) =>
      withGrokDatabase(path, listSessions).map((row) => ({
        id: row.id,
        messages: row.messageCount,
        changeKey: `${row.updatedAt}:${row.messageCount}:${row.lastSeq}:${row.usageCount}`,
      })),
    "first",
  );
}

/** The Grok CLI `Parser`: `scan` finds `grok.db` by stats; `listUnits` lists its sessions; `parse` reads one. */
export const grokCliParser: Parser = {
  id: "grok-cli",
  version: 2, // 2: the compactions' summaries are the session's abstract (issue 41)
  scan: (roots) => scanGrokRoots(roots),
  listUnits: (containers, hooks) => listGrokUnits(containers, hooks),
  parse: (unit, options) => parseSide().parseGrokUnit(unit, options),
  // `~/.grok/`: the database and its WAL start a cycle.
  watch: {
    kind: "tree",
    depth: 0,
    isSessionFile: (name) => name === databaseFileName || name === `${databaseFileName}-wal`,
    missingRootPending: true,
  },
  resumeInvocation: (sessionId, projectPath) => ({
    cwd: projectPath || undefined,
    argv: ["grok", "--session", sessionId],
  }),
};
