/**
 * `recall sessions`: list indexed sessions, newest first, with filters.
 */
import { command, flag, number, option, optional, string } from "cmd-ts";
import { paletteFor } from "../render/format.ts";
import { writeOut } from "../render/terminal.ts";
import { renderSessionsJson, renderSessionsText } from "../render/sessions.ts";
import { listSessions, parseFilterArgs, parseLimit } from "../search/index.ts";
import { openFreshIndex, resolveHistory, sourceArgs } from "./context.ts";

/** The `sessions` subcommand. */
export const sessionsCommand = command({
  name: "sessions",
  description: "List sessions, newest first (id, source, project, date, turns, title)",
  args: {
    project: option({ long: "project", short: "p", type: optional(string), description: "Only projects whose path or name contains this text" }),
    source: option({ long: "source", type: optional(string), description: "Only this source: claude-code, opencode, codex, gemini-cli, cursor or aider" }),
    since: option({ long: "since", type: optional(string), description: "Only sessions active since this date (2026-03-01) or age (7d, 2w)" }),
    limit: option({ long: "limit", short: "n", type: optional(number), description: "How many to list (default 20)" }),
    includeSubagents: flag({ long: "include-subagents", description: "Also list sub-agent sessions" }),
    noReindex: flag({ long: "no-reindex", description: "Do not update the index first" }),
    json: flag({ long: "json", description: "Print one JSON object: {\"sessions\": [...]}" }),
    ...sourceArgs,
  },
  handler: async (args) => {
    const limit = parseLimit(args.limit, 20, "--limit");
    const filters = parseFilterArgs(args);
    const db = await openFreshIndex(resolveHistory(args), { reindex: !args.noReindex });
    try {
      const sessions = listSessions(db, filters, limit);
      writeOut(args.json ? `${renderSessionsJson(sessions)}\n` : renderSessionsText(sessions, await paletteFor(1)));
    } finally {
      db.close();
    }
    return 0;
  },
});
