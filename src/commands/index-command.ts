/**
 * `recall index`: bring the index up to date with the sources (incremental; `--full` re-parses all). Flags and help
 * only; what the command does is index-handler.ts, loaded when it runs.
 */
import { command, flag } from "cmd-ts";
import { modelArg, type ParsedArgs } from "../service/args.ts";
import { sourceArgs } from "../service/source-args.ts";

/** The flags of `recall index`. */
const indexArgs = {
  ...sourceArgs,
  full: flag({ long: "full", description: "Re-parse every session instead of only new and changed ones" }),
  rescan: flag({
    long: "rescan",
    description:
      "Walk every folder and stat every session file now, instead of re-checking the recent ones (also done every 10 min; env RECALL_FULL_SCAN_INTERVAL_MS)",
  }),
  wait: flag({
    long: "wait",
    description: "Wait (up to 10 min) for another running index instead of exiting with an error",
  }),
  json: flag({ long: "json", description: "Print the summary as one JSON object on stdout" }),
  keywordOnly: flag({
    long: "keyword-only",
    description: "Do not embed (keyword search only; a later run without it adds the vectors)",
  }),
  reembed: flag({
    long: "reembed",
    description:
      "Embed every document again with the configured model, beside the current vectors, swapped in when complete (a model change is found and re-embedded without it)",
  }),
  ...modelArg,
};

/** `recall index`'s arguments as cmd-ts parsed them. */
export type IndexArgs = ParsedArgs<typeof indexArgs>;

/** The `index` subcommand. */
export const indexCommand = command({
  name: "index",
  description: "Index new and changed sessions (incremental); prints a summary line on stderr",
  args: indexArgs,
  handler: async (args) => (await import("./index-handler.ts")).index(args),
});
