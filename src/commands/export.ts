/**
 * `recall export [--format jsonl|markdown] [--output FILE] [filters]`: write the archive out (issue 9), every
 * session with its turns and tool calls, sources deleted included; secrets redacted.
 */
import { command, flag, oneOf, option, optional, string } from "cmd-ts";
import { UsageError } from "../errors.ts";
import { exportFormats, openExportSink, renderExportJsonLine, renderExportMarkdown, renderExportMarkdownHeader } from "../render/export.ts";
import { parseDateFilter, parseSource, readSessions, selectSessions } from "../search/index.ts";
import { openFreshIndex, resolveHistory, sourceArgs, warn } from "./context.ts";

/** The output sink, with a bad `--output` path reported as a usage error naming it. */
function openSink(path: string | undefined) {
  try {
    return openExportSink(path);
  } catch (error) {
    throw new UsageError(`cannot write ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`, "give --output a file in an existing folder you can write to");
  }
}

/** The `export` subcommand. */
export const exportCommand = command({
  name: "export",
  description: "Write indexed sessions out, with turns and tool calls (sources deleted included; secrets redacted)",
  args: {
    format: option({ long: "format", type: optional(oneOf(exportFormats)), description: "jsonl (one `show --json` object per session, default) or markdown" }),
    output: option({ long: "output", short: "o", type: optional(string), description: "Write to this file (created 0600, replaced when complete) instead of stdout" }),
    session: option({ long: "session", type: optional(string), description: "Only this session (id or unique 8+ char prefix) and its sub-agent sessions" }),
    project: option({ long: "project", short: "p", type: optional(string), description: "Only projects whose path or name contains this text" }),
    source: option({ long: "source", type: optional(string), description: "Only this source: claude-code, opencode, codex, gemini-cli, cursor or aider" }),
    since: option({ long: "since", type: optional(string), description: "Only sessions active since this date (2026-03-01) or age (7d, 2w)" }),
    until: option({ long: "until", type: optional(string), description: "Only sessions started until this date (end of day) or age" }),
    deletedOnly: flag({ long: "deleted-only", description: "Only sessions whose source is deleted (the index holds the only copy)" }),
    noReindex: flag({ long: "no-reindex", description: "Do not update the index first" }),
    ...sourceArgs,
  },
  handler: async (args) => {
    const format = args.format ?? "jsonl";
    const filters = {
      project: args.project,
      source: args.source === undefined ? undefined : parseSource(args.source),
      since: args.since === undefined ? undefined : parseDateFilter(args.since),
      until: args.until === undefined ? undefined : parseDateFilter(args.until, Date.now(), true),
      sourceStatus: args.deletedOnly ? ("deleted" as const) : undefined,
    };
    if (args.session !== undefined && Object.values(filters).some((value) => value !== undefined)) {
      throw new UsageError("--session cannot be combined with other filters", "export one session with --session ID, or filter with --project/--source/--since/--until");
    }
    const db = await openFreshIndex(resolveHistory(args), { reindex: !args.noReindex });
    try {
      const sessions = selectSessions(db, { session: args.session, filters });
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
      warn(`recall: exported ${sessions.length} session${sessions.length === 1 ? "" : "s"} (${archived} from the archive)${args.output ? ` to ${args.output}` : ""}`);
    } finally {
      db.close();
    }
    return 0;
  },
});
