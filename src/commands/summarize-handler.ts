/**
 * What `recall summarize` does (its flags and help: summarize.ts): select sessions (one by id, or `--all` narrowed by
 * the filters, newest first, sub-agents and sessions without turns left out), bring the index up to date, and run
 * service/summaries.ts over them with a progress bar on a terminal; then print the counts (render/summarize.ts).
 * Exit 1 when the backend failed a session (none configured, unreachable, timed out, rate limited, key refused) or was
 * stopped; 0 otherwise, also when single sessions were refused, too large or badly answered (counted, with their
 * reason).
 */
import { UsageError } from "../errors.ts";
import { createProgressBar } from "../render/progress.ts";
import { renderSummarizeJson, renderSummarizeText } from "../render/summarize.ts";
import { writeOut } from "../render/terminal.ts";
import {
  checkDateOrder,
  findSession,
  listSessions,
  loadDateWords,
  parseDateFilter,
  parseSource,
  type SessionSummary,
} from "../search/index.ts";
import { openFreshIndex, resolveHistory } from "../service/context.ts";
import { summarizeInIndex } from "../service/summaries.ts";
import type { SummarizeArgs } from "./summarize.ts";

/** Reasons that say the backend, not a session, failed: any of them makes the run exit 1. */
const failuresOfTheBackend = ["no_backend", "unreachable", "timeout", "rate_limited", "auth"] as const;

/** Runs `recall summarize` with its parsed arguments; resolves to the exit code. */
export async function summarize(args: SummarizeArgs): Promise<number> {
  await loadDateWords([args.since]);
  const filters = {
    project: args.project,
    source: args.source === undefined ? undefined : parseSource(args.source),
    since: args.since === undefined ? undefined : parseDateFilter(args.since),
  };
  checkDateOrder(filters.since, undefined, args.since, undefined);
  const filtered = Object.values(filters).some((value) => value !== undefined);
  if (args.session !== undefined && (args.all || filtered))
    throw new UsageError(
      "give a session, or --all with filters, not both",
      "example: recall summarize --all --since 7d --dry-run",
    );
  if (args.session === undefined && !args.all && !filtered)
    throw new UsageError(
      "say what to summarize: a session id, or --all (narrowed by --since, --project, --source)",
      "see what it would send first: recall summarize --all --since 7d --dry-run",
    );
  if (args.limit !== undefined && (!Number.isInteger(args.limit) || args.limit < 1))
    throw new UsageError(`--limit must be a whole number of at least 1, got ${args.limit}`);
  const context = resolveHistory(args);
  const db = await openFreshIndex(context, { reindex: !args.noReindex });
  let selected: SessionSummary[];
  try {
    selected = args.session !== undefined ? [findSession(db, args.session)] : listSessions(db, { ...filters }, -1);
  } finally {
    db.close();
  }
  const candidates = selected
    .filter((session) => session.turns > 0)
    .map((session) => ({
      rowid: session.rowid,
      sessionId: session.sessionId,
      project: session.project,
      title: session.title,
    }));
  const bar = args.json ? { update() {}, stop() {} } : await createProgressBar("summarizing", "sessions");
  let result: Awaited<ReturnType<typeof summarizeInIndex>>;
  try {
    result = await summarizeInIndex({
      recallHome: context.recallHome,
      paths: context.paths,
      candidates,
      dryRun: args.dryRun,
      limit: args.limit,
      retryFailed: args.retryFailed,
      stopOnSignal: true,
      onProgress: (settled, total) => bar.update(settled, total),
    });
  } finally {
    bar.stop();
  }
  const options = { dryRun: args.dryRun, emptyLeftOut: selected.length - candidates.length };
  writeOut(
    args.json
      ? `${renderSummarizeJson(result.report, result.backend, options)}\n`
      : renderSummarizeText(result.report, result.backend, options),
  );
  const { notSummarized } = result.report;
  const backendFailed = failuresOfTheBackend.some((reason) => (notSummarized[reason] ?? 0) > 0);
  return result.report.stopped !== null || backendFailed ? 1 : 0;
}
