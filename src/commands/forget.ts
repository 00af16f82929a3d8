/**
 * `recall forget <session>|--project P|--before DATE`: delete sessions from the index on purpose (issue 9). Flags and
 * help only; what the command does is forget-handler.ts, loaded when it runs.
 */
import { command, flag, option, optional, positional, string } from "cmd-ts";
import { noReindexArg } from "../service/args.ts";
import type { ParsedArgs } from "../service/args.ts";
import { sourceArgs } from "../service/source-args.ts";

/** The flags and positional of `recall forget`. */
const forgetArgs = {
  session: positional({
    type: optional(string),
    displayName: "session",
    description: "Session id (or unique 8+ char prefix); its sub-agent sessions go with it",
  }),
  project: option({
    long: "project",
    short: "p",
    type: optional(string),
    description: "Every session of projects whose path or name contains this text",
  }),
  before: option({
    long: "before",
    type: optional(string),
    description:
      "Every session last active before this date (2026-03-01: before that local day starts, like --since), age (90d, 6m) or date in words (last month, 2025)",
  }),
  dryRun: flag({ long: "dry-run", description: "List the sessions that would be forgotten and change nothing" }),
  undo: flag({
    long: "undo",
    description:
      "Remove the tombstones of forgotten sessions instead (same selectors; none = all; a session's sub-agents with it), so the next index adds them again",
  }),
  json: flag({ long: "json", description: "Print one JSON object: what was removed" }),
  ...noReindexArg,
  archive: flag({
    long: "archive",
    description:
      "Also delete the copies you pushed to the team archive (without it, a terminal asks when the archive has some)",
  }),
  archiveUrl: option({
    long: "archive-url",
    type: optional(string),
    description: "The team archive (default RECALL_ARCHIVE_URL); implies --archive",
  }),
  ...sourceArgs,
};

/** `recall forget`'s arguments as cmd-ts parsed them. */
export type ForgetArgs = ParsedArgs<typeof forgetArgs>;

/** The `forget` subcommand. */
export const forgetCommand = command({
  name: "forget",
  description:
    "Delete sessions from the index for good (turns, search rows, vectors); the next index does not add them again",
  args: forgetArgs,
  handler: async (args) => (await import("./forget-handler.ts")).forget(args),
});
