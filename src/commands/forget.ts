/**
 * `recall forget <session>|--project P|--before DATE`: delete sessions from the index on purpose (issue 9),
 * with their turns, documents, FTS rows, chunks and vectors, and keep a tombstone so the next index run does not
 * add them again. Asks nothing; prints what it removed (`--dry-run` lists what it would remove). `--undo` with
 * the same selectors removes tombstones.
 */
import { command, flag, option, optional, positional, string } from "cmd-ts";
import { UsageError } from "../errors.ts";
import { forgetSessions, unforgetSessions } from "../index/index.ts";
import { renderForgetJson, renderForgetText, renderUnforgetJson, renderUnforgetText } from "../render/forget.ts";
import { writeOut } from "../render/terminal.ts";
import { parseDateFilter, selectSessions, type SessionSummary } from "../search/index.ts";
import { openFreshIndex, resolveHistory, sourceArgs } from "./context.ts";

/** The `forget` subcommand. */
export const forgetCommand = command({
  name: "forget",
  description: "Delete sessions from the index for good (turns, search rows, vectors); the next index does not add them again",
  args: {
    session: positional({ type: optional(string), displayName: "session", description: "Session id (or unique 8+ char prefix); its sub-agent sessions go with it" }),
    project: option({ long: "project", short: "p", type: optional(string), description: "Every session of projects whose path or name contains this text" }),
    before: option({ long: "before", type: optional(string), description: "Every session last active before this date (2026-03-01, UTC) or age (90d, 6m)" }),
    dryRun: flag({ long: "dry-run", description: "List the sessions that would be forgotten and change nothing" }),
    undo: flag({ long: "undo", description: "Remove the tombstones of forgotten sessions instead (same selectors; none = all), so the next index adds them again" }),
    json: flag({ long: "json", description: "Print one JSON object: what was removed" }),
    noReindex: flag({ long: "no-reindex", description: "Do not update the index first" }),
    ...sourceArgs,
  },
  handler: async (args) => {
    const endedBefore = args.before === undefined ? undefined : parseDateFilter(args.before);
    if (args.session !== undefined && (args.project !== undefined || endedBefore !== undefined)) {
      throw new UsageError("give a session, or --project/--before, not both", "example: recall forget --project scratch --before 90d");
    }
    if (!args.undo && args.session === undefined && args.project === undefined && endedBefore === undefined) {
      throw new UsageError("say what to forget: a session id, --project TEXT or --before DATE", "list sessions with `recall sessions`; example: recall forget 2c5941bd");
    }
    const context = resolveHistory(args);
    if (args.undo) {
      const removed = await unforgetSessions(context.recallHome, { sessionPrefix: args.session, project: args.project, endedBefore });
      writeOut(args.json ? `${renderUnforgetJson(removed)}\n` : renderUnforgetText(removed));
      return 0;
    }
    const db = await openFreshIndex(context, { reindex: !args.noReindex });
    let selected: SessionSummary[];
    try {
      selected = selectSessions(db, { session: args.session, filters: { project: args.project, endedBefore } });
    } finally {
      db.close();
    }
    if (args.dryRun) {
      const preview = { sessions: selected, turns: selected.reduce((sum, session) => sum + session.turns, 0), documents: 0, chunks: 0, vectorRows: 0 };
      writeOut(args.json ? `${renderForgetJson(preview, { dryRun: true })}\n` : renderForgetText(preview, { dryRun: true }));
      return 0;
    }
    const report = await forgetSessions(context.recallHome, selected.map((session) => session.rowid));
    writeOut(args.json ? `${renderForgetJson(report)}\n` : renderForgetText(report));
    return 0;
  },
});
