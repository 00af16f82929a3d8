/**
 * `recall summarize [SESSION] [--all] [--since …] [--project …] [--limit N] [--dry-run]` (issue 41): a 2–3 sentence
 * summary per session from a model the user chose. Flags and help only; what the command does is
 * summarize-handler.ts, loaded when it runs.
 */
import { command, flag, number, option, optional, positional, string } from "cmd-ts";
import { noReindexArg } from "../service/args.ts";
import type { ParsedArgs } from "../service/args.ts";
import { projectSourceArgs } from "../service/filter-args.ts";
import { sourceArgs } from "../service/source-args.ts";

/** The flags and positional of `recall summarize`. */
const summarizeArgs = {
  session: positional({
    type: optional(string),
    displayName: "session",
    description: "Session id (or unique 8+ char prefix) to summarize",
  }),
  all: flag({ long: "all", description: "Every session (but sub-agents'), newest first; narrow with the filters" }),
  ...projectSourceArgs,
  since: option({
    long: "since",
    type: optional(string),
    description: "Only sessions active since this date (2026-03-01), age (7d, 2w) or date in words (last week)",
  }),
  limit: option({
    long: "limit",
    short: "n",
    type: optional(number),
    description: "Request at most N summaries this run (sessions already summarized do not count)",
  }),
  dryRun: flag({
    long: "dry-run",
    description: "Send nothing: list the sessions that would be sent, their characters and estimated tokens",
  }),
  retryFailed: flag({
    long: "retry-failed",
    description: "Send again the sessions the model refused, found too large or answered badly",
  }),
  json: flag({ long: "json", description: "Print one JSON object: the counts, and the sessions of a dry run" }),
  ...noReindexArg,
  ...sourceArgs,
};

/** `recall summarize`'s arguments as cmd-ts parsed them. */
export type SummarizeArgs = ParsedArgs<typeof summarizeArgs>;

/** The `summarize` subcommand. */
export const summarizeCommand = command({
  name: "summarize",
  description:
    "Summarize sessions in 2–3 sentences with a model you choose (RECALL_SUMMARY_MODEL=model.gguf, SUMMARIES_URL + SUMMARIES_MODEL, or ANTHROPIC_API_KEY); cached until a session grows; searchable and shown with the session",
  args: summarizeArgs,
  handler: async (args) => (await import("./summarize-handler.ts")).summarize(args),
});
