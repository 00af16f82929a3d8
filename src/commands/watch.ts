/**
 * `recall watch`: the MCP server's watcher in the foreground (issue 10), for users without MCP. Flags and help only;
 * what the command does is watch-handler.ts, loaded when it runs.
 */
import { command, flag, number, option, optional, string } from "cmd-ts";
import { watchDefaults } from "../index/watch/defaults.ts";
import { modelArg, type ParsedArgs } from "../service/args.ts";
import { sourceArgs } from "../service/source-args.ts";

/** The flags of `recall watch`. */
const watchArgs = {
  ...sourceArgs,
  debounce: option({
    long: "debounce",
    type: number,
    defaultValue: () => watchDefaults.debounceMs,
    description: `Quiet time after the last change before re-indexing, in ms (default ${watchDefaults.debounceMs})`,
  }),
  json: flag({ long: "json", description: "Print one JSON object per cycle on stdout (indexed, embedded or skipped)" }),
  keywordOnly: flag({
    long: "keyword-only",
    description: "Do not embed (keyword search only; a later run without it adds the vectors)",
  }),
  push: flag({
    long: "push",
    description:
      "Also push to the team archive after each change (RECALL_ARCHIVE_URL or --archive-url; see recall archive)",
  }),
  archiveUrl: option({
    long: "archive-url",
    type: optional(string),
    description: "The archive --push sends to (implies --push): postgresql://user@host:5432/db",
  }),
  team: option({
    long: "team",
    type: optional(string),
    description: "Team --push sends to (default: your role's only team)",
  }),
  ...modelArg,
};

/** `recall watch`'s arguments as cmd-ts parsed them. */
export type WatchArgs = ParsedArgs<typeof watchArgs>;

/** The `watch` subcommand. */
export const watchCommand = command({
  name: "watch",
  description:
    "Keep the index up to date while sessions are written (foreground; Ctrl-C stops); status lines on stderr",
  args: watchArgs,
  handler: async (args) => (await import("./watch-handler.ts")).watch(args),
});
