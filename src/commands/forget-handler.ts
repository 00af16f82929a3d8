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
import { type HistoryContext, openFreshIndex, resolveHistory, warn } from "../service/context.ts";
import { isTerminal } from "../render/terminal.ts";
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
  await forgetInArchive(args, context, report.sessions);
  return 0;
}

/**
 * The archive side of a forget (issue 30): with --archive (or --archive-url), delete the copies this role pushed; without
 * it, when an archive is set up and this runs on a terminal, say how many copies the archive holds and ask. A forget
 * in a pipe never asks and never touches the archive unless told to. An unreachable archive is a warning here: the
 * local forget is done.
 */
async function forgetInArchive(
  args: ForgetArgs,
  context: HistoryContext,
  forgotten: ReadonlyArray<{ source: string; sessionId: string }>,
): Promise<void> {
  const asked = args.archive || args.archiveUrl !== undefined;
  if (forgotten.length === 0 || (!asked && !(process.stdin.isTTY === true && isTerminal(2)))) return;
  const [{ archiveUrlOf }, { openArchive }, archive] = await Promise.all([
    import("../service/archive-url.ts"),
    import("../team-archive/connection.ts"),
    import("../team-archive/forget.ts"),
  ]);
  let url: ReturnType<typeof archiveUrlOf>;
  try {
    url = archiveUrlOf(args.archiveUrl, context);
  } catch (error) {
    if (asked) throw error;
    return; // no archive set up: nothing to offer
  }
  const keys = forgotten.map((session) => ({ source: session.source, sessionId: session.sessionId }));
  try {
    const connection = await openArchive(url);
    try {
      if (!asked) {
        const copies = await archive.countArchivedCopies(connection, keys);
        if (copies === 0) return;
        const answer = prompt(
          `recall: the team archive ${url.display} holds ${copies} copies you pushed; delete them too? [y/N]`,
        );
        if (!/^y(es)?$/i.test(answer?.trim() ?? "")) return;
      }
      const deleted = await archive.deleteArchivedCopies(connection, keys);
      warn(`recall: deleted ${deleted} session cop${deleted === 1 ? "y" : "ies"} from the team archive ${url.display}`);
    } finally {
      await connection.close();
    }
  } catch (error) {
    if (asked) throw error;
    warn(
      `recall: warning: the team archive could not be checked: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
