/**
 * What `recall status` does (its flags and help: status.ts): what is indexed, database size, last index time, and
 * whether it is stale. Never re-indexes (it reports staleness instead).
 */
import { checkStaleness, databasePath, openIndex } from "../index/index.ts";
import { paletteFor } from "../render/format.ts";
import { renderStatusJson, renderStatusText } from "../render/sessions.ts";
import { writeOut } from "../render/terminal.ts";
import { readIndexStatus } from "../search/listing/sessions.ts";
import { resolveHistory } from "../service/context.ts";
import { findUnreadHistory } from "../parsers/unread-history.ts";
import { describeBackend, readSummaryBackend, summaryCounts } from "../summarize/index.ts";
import { loadEnvWithDotEnv } from "../embed/index.ts";
import type { StatusArgs } from "./status.ts";

/** Runs `recall status` with its parsed arguments; resolves to the exit code. */
export async function status(args: StatusArgs): Promise<number> {
  const context = resolveHistory(args);
  const path = databasePath(context.recallHome);
  const db = openIndex(path, { readonly: true });
  try {
    const status = readIndexStatus(db, path);
    // A whole scan: status answers "is anything not indexed?" exactly, old files included (searches check quickly).
    const staleness = checkStaleness(db, context.roots, context.scanned, { scan: "whole" });
    const extras = {
      recallHome: context.recallHome,
      stale: staleness.stale,
      staleSources: staleness.staleSources,
      usingExamples: context.usingExamples,
      unread: findUnreadHistory(),
      summaries: { ...summaryCounts(db), backend: backendLine(loadEnvWithDotEnv(process.env, context.paths)) },
    };
    writeOut(
      args.json ? `${renderStatusJson(status, extras)}\n` : renderStatusText(status, extras, await paletteFor(1)),
    );
  } finally {
    db.close();
  }
  return 0;
}

/** The configured summary backend in one line, "none" when none is, or what is wrong with its configuration. */
function backendLine(env: Record<string, string | undefined>): string {
  const { config, problem } = readSummaryBackend(env);
  if (problem) return `misconfigured: ${problem.message}`;
  return config ? describeBackend(config) : "none";
}
