/**
 * `recall show <session>[:<from>-<to>]` (level 3): the full conversation of a session, or of some of its turns, with
 * tool calls. Flags and help only; what the command does is show-handler.ts, loaded when it runs.
 */
import { command, flag, option, optional, positional, string } from "cmd-ts";
import { noReindexArg } from "../service/args.ts";
import type { ParsedArgs } from "../service/args.ts";
import { sourceArgs } from "../service/source-args.ts";

/** The flags and positional of `recall show`. */
const showArgs = {
  target: positional({
    type: string,
    displayName: "session[:from-to]",
    description:
      "Session id (or unique 8+ char prefix), optionally with a turn range: 5, 5-9, 5- (to the end), r2 or r1-r3 (rewound turns)",
  }),
  rewound: flag({
    long: "rewound",
    description:
      "Show the turns of branches the user rewound past (edited prompts, checkpoint rewinds), r1, r2, …, instead of the conversation",
  }),
  json: flag({ long: "json", description: "Print the turns as one JSON object, with full tool outputs" }),
  noRedact: flag({
    long: "no-redact",
    description:
      "Show secrets as they are in the session instead of [REDACTED:<kind>] (for a person at a terminal; default: redacted)",
  }),
  ...noReindexArg,
  archive: flag({
    long: "archive",
    description: "Read the session from the team archive (its archive id as search --archive prints it, or its id)",
  }),
  archiveUrl: option({
    long: "archive-url",
    type: optional(string),
    description: "The archive to read (implies --archive): postgresql://user@host:5432/db",
  }),
  ...sourceArgs,
};

/** `recall show`'s arguments as cmd-ts parsed them. */
export type ShowArgs = ParsedArgs<typeof showArgs>;

/** The `show` subcommand. */
export const showCommand = command({
  name: "show",
  description: "Show the full conversation of a session, or of turns <from>-<to> (1-based, inclusive)",
  args: showArgs,
  handler: async (args) => (await import("./show-handler.ts")).show(args),
});
