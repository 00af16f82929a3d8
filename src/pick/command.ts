/**
 * `recall pick [QUERY]`: the interactive picker (a full-screen terminal UI over the same search as `recall search`);
 * Enter resumes the chosen session in its tool. Flags and help only; what the command does is handler.ts, loaded
 * when it runs.
 */
import { command, flag, option, optional, restPositionals, string } from "cmd-ts";
import { projectSourceArgs } from "../service/filter-args.ts";
import { modelArg, type ParsedArgs } from "../service/args.ts";
import { sourceArgs } from "../service/source-args.ts";

/** The flags and positionals of `recall pick`. */
const pickArgs = {
  query: restPositionals({
    type: string,
    displayName: "query",
    description: "Words to start with (joined with spaces); none lists the recent sessions, this project's first",
  }),
  ...projectSourceArgs,
  since: option({
    long: "since",
    type: optional(string),
    description: "Only activity since this date (2026-03-01), age (7d, 2w, 3m) or date in words (last week)",
  }),
  print: flag({
    long: "print",
    description:
      "Print the chosen session's resume command on stdout instead of running it (the screen is drawn on stderr; for shell key bindings: `recall init`)",
  }),
  keywordOnly: flag({ long: "keyword-only", description: "Rank by keywords only (never start the embedding side)" }),
  noReindex: flag({ long: "no-reindex", description: "Do not update the index in the background" }),
  ...modelArg,
  ...sourceArgs,
};

/** `recall pick`'s arguments as cmd-ts parsed them. */
export type PickArgs = ParsedArgs<typeof pickArgs>;

/** The `pick` subcommand. */
export const pickCommand = command({
  name: "pick",
  description:
    "Find a session interactively and resume it: type to search, ↑↓ to move, Tab for its turns, Ctrl-O to read them, Enter to resume, Esc to quit",
  args: pickArgs,
  handler: async (args) => (await import("./handler.ts")).pick(args),
});
