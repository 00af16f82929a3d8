/**
 * `recall status`: what is indexed, database size, last index time, and whether it is stale. Flags and help only; what
 * the command does is status-handler.ts, loaded when it runs.
 */
import { command, flag } from "cmd-ts";
import type { ParsedArgs } from "../service/args.ts";
import { sourceArgs } from "../service/source-args.ts";

/** The flags of `recall status`. */
const statusArgs = {
  json: flag({ long: "json", description: "Print one JSON object" }),
  ...sourceArgs,
};

/** `recall status`' arguments as cmd-ts parsed them. */
export type StatusArgs = ParsedArgs<typeof statusArgs>;

/** The `status` subcommand. */
export const statusCommand = command({
  name: "status",
  description: "Show what is indexed (sessions, turns per source and project), index size, last index time, staleness",
  args: statusArgs,
  handler: async (args) => (await import("./status-handler.ts")).status(args),
});
