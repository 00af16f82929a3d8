/**
 * `recall ui`: a local web view of the whole archive (search, sessions as documents, activity, usage). Flags and help only;
 * what the command does is handler.ts, loaded when it runs.
 */
import { command, flag, number, option, optional } from "cmd-ts";
import { modelArg, type ParsedArgs } from "../service/args.ts";
import { sourceArgs } from "../service/source-args.ts";

/** The flags of `recall ui`. */
const uiArgs = {
  port: option({
    long: "port",
    type: optional(number),
    description: "Port on 127.0.0.1 (default: a free one; the server never listens on another interface)",
  }),
  noOpen: flag({ long: "no-open", description: "Print the URL without opening a browser" }),
  noWatch: flag({
    long: "no-watch",
    description: "Do not keep the index fresh while the server runs (default: re-index what changes, as recall watch)",
  }),
  keywordOnly: flag({ long: "keyword-only", description: "Rank by keywords only (never load the embedding model)" }),
  ...modelArg,
  ...sourceArgs,
};

/** `recall ui`'s arguments as cmd-ts parsed them. */
export type UiArgs = ParsedArgs<typeof uiArgs>;

/** The `ui` subcommand. */
export const uiCommand = command({
  name: "ui",
  description:
    "Open a local web view of your sessions: search with filters, sessions rendered as documents, activity per day, tokens and costs per model and project (127.0.0.1 only, with a secret token; Ctrl-C stops)",
  args: uiArgs,
  handler: async (args) => (await import("./handler.ts")).ui(args),
});
