/**
 * What `recall watch` does (its flags and help: watch.ts): brings the index up to date, then re-indexes whatever
 * changes, 2 s after the last change; status lines on stderr, nothing on stdout unless `--json` (one JSON line per
 * cycle, render/watch.ts). Stops on SIGINT/SIGTERM after the current batch commits (a second Ctrl-C kills at once: the
 * index survives that too). The model, when present, is opened for the first embedding and released after 5 idle
 * minutes; it is never downloaded from here.
 */
import { UsageError } from "../errors.ts";
import { prepareRecallPaths, startWatcher } from "../index/index.ts";
import { resolveSourceRoots } from "../parsers/index.ts";
import { countOf } from "../render/format.ts";
import { writeOut } from "../render/terminal.ts";
import * as render from "../render/watch.ts";
import { warn } from "../service/context.ts";
import { sourceFlags } from "../service/source-args.ts";
import { sharedModelOpener } from "../service/embedder.ts";
import { untilSignal } from "../service/signals.ts";
import type { WatchArgs } from "./watch.ts";
import type { RecallPaths } from "../home/paths.ts";
import { archiveUrlFromPaths } from "../service/archive-url.ts";
import { type ArchivePusher, checkArchiveForPush, createArchivePusher } from "./archive-push-loop.ts";

/** Runs `recall watch` with its parsed arguments until SIGINT or SIGTERM; resolves to the exit code. */
export async function watch(args: WatchArgs): Promise<number> {
  if (!Number.isInteger(args.debounce) || args.debounce < 0 || args.debounce > 600_000)
    throw new UsageError(`--debounce must be a whole number of ms from 0 to 600000, got ${args.debounce}`);
  // No example-history fallback here: a watcher waits for the real history to appear.
  const roots = resolveSourceRoots(sourceFlags(args)).roots;
  const paths = prepareRecallPaths(process.env, {
    onNotice: (line) => warn(`recall: ${line}`),
    onWarning: (line) => warn(`recall: warning: ${line}`),
  });
  const model = sharedModelOpener(paths, args.model);
  const pusher = args.push || args.archiveUrl !== undefined ? await startPusher(args, paths) : undefined;
  let isLockNoted = false;
  const watcher = await startWatcher({
    recallHome: paths.data,
    roots,
    debounceMs: args.debounce,
    // A failed open is tried again next cycle (the model may have been pulled meanwhile).
    openEmbedder: args.keywordOnly ? undefined : () => model.open(),
    releaseEmbedder: () => model.dispose(),
    hooks: {
      onIndexed: (summary) => {
        isLockNoted = false;
        if (args.json) writeOut(`${render.renderWatchIndexedJson(summary)}\n`);
        else if (render.hasIndexChanges(summary)) warn(`recall: ${render.renderWatchIndexedText(summary)}`);
        if (render.hasIndexChanges(summary)) pusher?.request();
      },
      onEmbedded: (summary, elapsedMs) => {
        if (args.json) writeOut(`${render.renderWatchEmbeddedJson(summary, elapsedMs)}\n`);
        else warn(`recall: ${render.renderWatchEmbeddedText(summary, elapsedMs)}`);
        pusher?.request(); // the new vectors
      },
      onSkipped: ({ message, retryInMs }) => {
        if (args.json) writeOut(`${render.renderWatchSkippedJson(message, retryInMs)}\n`);
        else if (!isLockNoted) warn(`recall: ${render.renderWatchSkippedText(message, retryInMs)}`);
        isLockNoted = true;
      },
      onWarning: (message) => warn(`recall: warning: ${message}`),
      onNotice: (message) => warn(`recall: ${message}`),
    },
  });
  warn(`recall: ${render.renderWatchStartText(watcher.describe())}`);
  pusher?.request(); // what the index held before the watcher started
  await untilSignal(["SIGINT", "SIGTERM"]);
  warn("recall: stopping (the current batch is committed first)");
  await watcher.close();
  await pusher?.close();
  await model.dispose();
  return 0;
}

/** The archive pusher of `--push`, after checking the archive can be pushed to (one line and exit 1 if not). */
async function startPusher(args: WatchArgs, paths: RecallPaths): Promise<ArchivePusher> {
  const url = archiveUrlFromPaths(args.archiveUrl, paths);
  const team = await checkArchiveForPush(url, args.team);
  return createArchivePusher(url, team, paths.data, {
    onPushed: (summary) =>
      args.json
        ? writeOut(`${JSON.stringify({ version: 1, event: "pushed", at: new Date().toISOString(), ...summary })}\n`)
        : warn(`recall: pushed ${countOf(summary.sent, "session")} to ${summary.archive} (team ${summary.team})`),
    onError: (error) =>
      warn(
        `recall: warning: push failed: ${error instanceof Error ? error.message : String(error)} (tried again at the next change)`,
      ),
  });
}
