/**
 * `recall embed-helper` (started by `recall search`, see query-embedder.ts; `--stop` stops every running one): keeps
 * the embedding model loaded for the next searches (issue 17). Flags and help only; what the command does is
 * embed-helper-handler.ts, loaded when it runs.
 */
import { command, flag, option, optional, string } from "cmd-ts";
import { modelArg, type ParsedArgs } from "../service/args.ts";

/** The flags of `recall embed-helper`. */
const embedHelperArgs = {
  indexHome: option({
    long: "index-home",
    type: optional(string),
    description: "The index folder the helper embeds for (set by `recall search`)",
  }),
  stop: flag({
    long: "stop",
    description: "Stop every embedding helper of this user (their sockets are in <cache>/helpers) and print how many",
  }),
  ...modelArg,
};

/** `recall embed-helper`'s arguments as cmd-ts parsed them. */
export type EmbedHelperArgs = ParsedArgs<typeof embedHelperArgs>;

/** The `embed-helper` subcommand. */
export const embedHelperCommand = command({
  name: "embed-helper",
  description:
    "Keep the embedding model loaded for fast searches (started by `recall search`; exits after 10 idle minutes); --stop ends every running one",
  args: embedHelperArgs,
  handler: async (args) => (await import("./embed-helper-handler.ts")).embedHelper(args),
});
