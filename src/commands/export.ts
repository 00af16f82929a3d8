/**
 * `recall export [--format jsonl|markdown] [--output FILE] [filters]`: write the archive out (issue 9). Flags and help
 * only; what the command does is export-handler.ts, loaded when it runs.
 */
import { command, flag, oneOf, option, optional, string } from "cmd-ts";
import { noReindexArg } from "../service/args.ts";
import { projectSourceArgs } from "../service/filter-args.ts";
import { exportFormats } from "../render/output-formats.ts";
import type { ParsedArgs } from "../service/args.ts";
import { sourceArgs } from "../service/source-args.ts";

/** The flags of `recall export`. */
const exportArgs = {
  format: option({
    long: "format",
    type: optional(oneOf(exportFormats)),
    description: "jsonl (one `show --json` object per session, default) or markdown",
  }),
  output: option({
    long: "output",
    short: "o",
    type: optional(string),
    description: "Write to this file (created 0600, replaced when complete) instead of stdout",
  }),
  session: option({
    long: "session",
    type: optional(string),
    description: "Only this session (id or unique 8+ char prefix) and its sub-agent sessions",
  }),
  ...projectSourceArgs,
  since: option({
    long: "since",
    type: optional(string),
    description:
      "Only sessions active since this date (2026-03-01, a local day), age (7d, 2w) or date in words (yesterday, last week)",
  }),
  until: option({
    long: "until",
    type: optional(string),
    description: "Only sessions started until this date, age or date in words (a day or a week means its end)",
  }),
  deletedOnly: flag({
    long: "deleted-only",
    description: "Only sessions whose source is deleted (the index holds the only copy)",
  }),
  includeEmpty: flag({
    long: "include-empty",
    description:
      "Also export sessions without any turn (summary- or snapshot-only files), which are left out by default as `recall sessions` leaves them out",
  }),
  ...noReindexArg,
  ...sourceArgs,
};

/** `recall export`'s arguments as cmd-ts parsed them. */
export type ExportArgs = ParsedArgs<typeof exportArgs>;

/** The `export` subcommand. */
export const exportCommand = command({
  name: "export",
  description: "Write indexed sessions out, with turns and tool calls (sources deleted included; secrets redacted)",
  args: exportArgs,
  handler: async (args) => (await import("./export-handler.ts")).exportSessions(args),
});
