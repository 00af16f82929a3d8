/**
 * What `recall forget` does (its flags and help: forget.ts): delete the selected sessions with their turns, documents,
 * FTS rows, chunks and vectors, and keep a tombstone so the next index run does not add them again. Asks nothing;
 * prints what it removed (`--dry-run` lists what it would remove). `--undo` with the same selectors removes tombstones.
 */
import { UsageError } from "../errors.ts";
import { forgetSessions, unforgetSessions } from "../index/index.ts";
import { renderForgetJson, renderForgetText, renderUnforgetJson, renderUnforgetText } from "../render/forget.ts";
import { writeOut } from "../render/terminal.ts";
import { loadDateWords, parseDateFilter, selectSessions, type SessionSummary } from "../search/index.ts";
import { openFreshIndex, resolveHistory } from "./context.ts";
import type { ForgetArgs } from "./forget.ts";

/** Runs `recall forget` with its parsed arguments; resolves to the exit code. */
export async function forget(args: ForgetArgs): Promise<number> {
  // Read as --since is (issue 26): a bare date is the local midnight starting that day, and words are dates too.
  await loadDateWords([args.before]);
  const endedBefore = args.before === undefined ? undefined : parseDateFilter(args.before);
  if (args.session !== undefined && (args.project !== undefined || endedBefore !== undefined)) {
    throw new UsageError(
      "give a session, or --project/--before, not both",
      "example: recall forget --project scratch --before 90d",
    );
  }
  if (!args.undo && args.session === undefined && args.project === undefined && endedBefore === undefined) {
    throw new UsageError(
      "say what to forget: a session id, --project TEXT or --before DATE",
      "list sessions with `recall sessions`; example: recall forget 2c5941bd",
    );
  }
  const context = resolveHistory(args);
  if (args.undo) {
    const removed = await unforgetSessions(context.recallHome, {
      sessionPrefix: args.session,
      project: args.project,
      endedBefore,
    });
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
    const preview = {
      sessions: selected,
      turns: selected.reduce((sum, session) => sum + session.turns, 0),
      documents: 0,
      chunks: 0,
      vectorRows: 0,
    };
    writeOut(
      args.json ? `${renderForgetJson(preview, { dryRun: true })}\n` : renderForgetText(preview, { dryRun: true }),
    );
    return 0;
  }
  const report = await forgetSessions(
    context.recallHome,
    selected.map((session) => session.rowid),
  );
  writeOut(args.json ? `${renderForgetJson(report)}\n` : renderForgetText(report));
  return 0;
}
