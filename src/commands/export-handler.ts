/**
 * What `recall export` does (its flags and help: export.ts): every selected session with its turns and tool calls,
 * sources deleted included, secrets redacted, as JSON lines or markdown, to stdout or a file replaced when complete.
 */
import { UsageError } from "../errors.ts";
import { countOf } from "../render/format.ts";
import {
  openExportSink,
  renderExportJsonLine,
  renderExportMarkdown,
  renderExportMarkdownHeader,
} from "../render/export.ts";
import {
  checkDateOrder,
  loadDateWords,
  parseDateFilter,
  parseSource,
  readSessions,
  selectSessions,
} from "../search/index.ts";
import { openFreshIndex, resolveHistory, warn } from "../service/context.ts";
import type { ExportArgs } from "./export.ts";

/** The output sink, with a bad `--output` path reported as a usage error naming it. */
function openSink(path: string | undefined) {
  try {
    return openExportSink(path);
  } catch (error) {
    throw new UsageError(
      `cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      "give --output a file in an existing folder you can write to",
    );
  }
}

/** Runs `recall export` with its parsed arguments; resolves to the exit code. */
export async function exportSessions(args: ExportArgs): Promise<number> {
  const format = args.format ?? "jsonl";
  await loadDateWords([args.since, args.until]);
  const filters = {
    project: args.project,
    source: args.source === undefined ? undefined : parseSource(args.source),
    since: args.since === undefined ? undefined : parseDateFilter(args.since),
    until: args.until === undefined ? undefined : parseDateFilter(args.until, Date.now(), true),
    sourceStatus: args.deletedOnly ? ("deleted" as const) : undefined,
  };
  checkDateOrder(filters.since, filters.until, args.since, args.until);
  if (args.session !== undefined && Object.values(filters).some((value) => value !== undefined)) {
    throw new UsageError(
      "--session cannot be combined with other filters",
      "export one session with --session ID, or filter with --project/--source/--since/--until",
    );
  }
  const db = await openFreshIndex(resolveHistory(args), { reindex: !args.noReindex });
  try {
    // Sessions without any turn are left out unless asked for, as `recall sessions` lists them (issue 26: the export
    // started with a run of empty sessions).
    const selected = selectSessions(db, { session: args.session, filters });
    const sessions = args.includeEmpty ? selected : selected.filter((session) => session.turns > 0);
    const emptyLeftOut = selected.length - sessions.length;
    const sink = openSink(args.output);
    let archived = 0;
    try {
      if (format === "markdown") sink.write(renderExportMarkdownHeader(sessions.length));
      for (const exported of readSessions(db, sessions)) {
        if (exported.read.fromArchive) archived++;
        sink.write(format === "markdown" ? renderExportMarkdown(exported) : renderExportJsonLine(exported));
      }
      sink.finish();
    } catch (error) {
      sink.abort();
      throw error;
    }
    warn(
      `recall: exported ${countOf(sessions.length, "session")} (${archived} from the archive)${args.output ? ` to ${args.output}` : ""}${emptyLeftOut > 0 ? `; ${countOf(emptyLeftOut, "session")} without any turn left out (--include-empty exports ${emptyLeftOut === 1 ? "it" : "them"})` : ""}`,
    );
  } finally {
    db.close();
  }
  return 0;
}
