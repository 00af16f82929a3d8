/**
 * `recall sessions`: list indexed sessions, newest first, with filters. Flags and help only; what the command does is
 * sessions-handler.ts, loaded when it runs.
 */
import { command, flag, number, option, optional, string } from "cmd-ts";
import { noReindexArg } from "../service/args.ts";
import { projectSourceArgs } from "../service/filter-args.ts";
import type { ParsedArgs } from "../service/args.ts";
import { sourceArgs } from "../service/source-args.ts";

/** The flags of `recall sessions`. */
const sessionsArgs = {
  ...projectSourceArgs,
  since: option({
    long: "since",
    type: optional(string),
    description:
      "Only sessions active since this date (2026-03-01, a local day), age (7d, 2w) or date in words (yesterday, last week, 3 days ago)",
  }),
  until: option({
    long: "until",
    type: optional(string),
    description: "Only sessions active until this date, age or date in words (a day or a week means its end)",
  }),
  branch: option({
    long: "branch",
    short: "b",
    type: optional(string),
    description: "Only sessions on this git branch",
  }),
  limit: option({
    long: "limit",
    short: "n",
    type: optional(string),
    description: "How many to list: a number, or all (default 20)",
  }),
  offset: option({
    long: "offset",
    type: optional(number),
    description: "How many to skip first, newest first (the next page; default 0)",
  }),
  includeSubagents: flag({ long: "include-subagents", description: "Also list sub-agent sessions" }),
  includeEmpty: flag({
    long: "include-empty",
    description:
      "Also list sessions without any turn (files holding only summaries or snapshots; hidden and counted by default)",
  }),
  ...noReindexArg,
  archive: flag({
    long: "archive",
    description:
      "List the team archive's sessions on PostgreSQL instead of this machine's, each with who pushed it and from where (RECALL_ARCHIVE_URL, or --archive <url>); --json adds archive_id, team, pushed_by, machine, os_user",
  }),
  archiveUrl: option({
    long: "archive-url",
    type: optional(string),
    description: "The archive to list (implies --archive): postgresql://user@host:5432/db",
  }),
  json: flag({
    long: "json",
    description:
      'Print one JSON object: {"version": 1, "sessions": [...], "empty_sessions_hidden": N, "total": N, "offset": N, "next_offset": N or null}',
  }),
  ...sourceArgs,
};

/** `recall sessions`' arguments as cmd-ts parsed them. */
export type SessionsArgs = ParsedArgs<typeof sessionsArgs>;

/** The `sessions` subcommand. */
export const sessionsCommand = command({
  name: "sessions",
  description: "List sessions, newest first (id, source, project, date, turns, title)",
  args: sessionsArgs,
  handler: async (args) => (await import("./sessions-handler.ts")).sessions(args),
});
