/**
 * `recall archive init <url>` and `recall archive push` (issue 30): the team archive on PostgreSQL. Flags and help
 * only; what the commands do is archive-handler.ts, loaded when they run. The password never comes from a flag (`ps`
 * shows flags): it comes from the URL, PGPASSWORD or ~/.pgpass, as with psql.
 */
import { command, flag, multioption, option, optional, positional, string, array, subcommands } from "cmd-ts";
import { noReindexArg } from "../service/args.ts";
import type { ParsedArgs } from "../service/args.ts";
import { sourceArgs } from "../service/source-args.ts";

const urlOption = {
  archiveUrl: option({
    long: "archive-url",
    type: optional(string),
    description:
      "The archive: postgresql://user@host:5432/db?sslmode=verify-full (default RECALL_ARCHIVE_URL, which init saves)",
  }),
};

const initArgs = {
  url: positional({
    type: string,
    displayName: "url",
    description: "postgresql://user@host:5432/database[?sslmode=…]",
  }),
  teams: multioption({
    long: "team",
    type: array(string),
    description: "Create this team (a role recall_team_<name> that members are granted); repeatable",
  }),
  noSave: flag({ long: "no-save", description: "Do not save the URL (without its password) as RECALL_ARCHIVE_URL" }),
  json: flag({ long: "json", description: "Print one JSON object: what init did" }),
  ...sourceArgs,
};

/** `recall archive init`'s arguments as cmd-ts parsed them. */
export type ArchiveInitArgs = ParsedArgs<typeof initArgs>;

const pushArgs = {
  ...urlOption,
  team: option({
    long: "team",
    type: optional(string),
    description: "Team to push to (default: your role's only team)",
  }),
  json: flag({ long: "json", description: "Print one JSON object: what was sent (no progress bar)" }),
  ...noReindexArg,
  ...sourceArgs,
};

/** `recall archive push`'s arguments as cmd-ts parsed them. */
export type ArchivePushArgs = ParsedArgs<typeof pushArgs>;

/** The `archive` subcommand and its own subcommands. */
export const archiveCommand = subcommands({
  name: "archive",
  description:
    "A team archive on PostgreSQL: init creates its schema, teams and row-level security; push sends your sessions",
  cmds: {
    init: command({
      name: "init",
      description: "Create or upgrade the archive's schema, roles and row-level security (run as the database owner)",
      args: initArgs,
      handler: async (args) => (await import("./archive-handler.ts")).archiveInit(args),
    }),
    push: command({
      name: "push",
      description: "Send what the local index holds and the archive lacks (incremental; safe to stop and re-run)",
      args: pushArgs,
      handler: async (args) => (await import("./archive-handler.ts")).archivePush(args),
    }),
  },
});
