/**
 * `recall eval [--tune | --reset] [--keyword-only] [--limit N] [--json]` (issue 43): how well recall finds things in
 * this history, measured on labelled queries the history holds (commit messages, agent-written titles), and tuning
 * per install. Flags and help only; what the command does is eval-handler.ts, loaded when it runs.
 */
import { command, flag, number, option, optional } from "cmd-ts";
import { modelArg, type ParsedArgs, noReindexArg } from "../service/args.ts";
import { sourceArgs } from "../service/source-args.ts";

/** The flags of `recall eval`. */
const evalArgs = {
  tune: flag({
    long: "tune",
    description:
      "Fit the fusion weight and keyword confidence on half of the labels; keep them only if the other half measures no worse (needs 50 labels)",
  }),
  reset: flag({
    long: "reset",
    description: "Remove the tuning --tune stored: searches use the committed calibration",
  }),
  keywordOnly: flag({ long: "keyword-only", description: "Measure the keyword leg alone, even when a model is set" }),
  limit: option({
    long: "limit",
    short: "n",
    type: optional(number),
    description: "Labels per kind at most, from the newest sessions (default 300)",
  }),
  json: flag({ long: "json", description: "Print one JSON object" }),
  ...noReindexArg,
  ...modelArg,
  ...sourceArgs,
};

/** `recall eval`'s arguments as cmd-ts parsed them. */
export type EvalArgs = ParsedArgs<typeof evalArgs>;

/** The `eval` subcommand. */
export const evalCommand = command({
  name: "eval",
  description:
    "Measure search on your own history: commit messages and agent-written titles become queries (their own text withheld), scored as recall@1/5/10, MRR and confident rank-1 hits, keyword-only and hybrid; --tune fits the fusion weight to it",
  args: evalArgs,
  handler: async (args) => (await import("./eval-handler.ts")).evaluate(args),
});
