/**
 * `recall search "<query>"`: level 1 (sessions, default) or level 2 (`--depth 2`, turns; `--session ID` searches the
 * turns of one session). Flags and help only; what the command does is search-handler.ts, loaded when it runs.
 */
import { command, flag, number, oneOf, option, optional, positional, restPositionals, string } from "cmd-ts";
import { projectSourceArgs } from "../service/filter-args.ts";
import { searchFormats } from "../render/output-formats.ts";
import { minMaxChars } from "../render/search-budget.ts";
import { modelArg, type ParsedArgs } from "../service/args.ts";
import { sourceArgs } from "../service/source-args.ts";

/** The flags and positionals of `recall search`. */
const searchArgs = {
  query: positional({
    type: string,
    displayName: "query",
    description: "What to look for, in your own words (not FTS syntax)",
  }),
  moreWords: restPositionals({
    type: string,
    displayName: "words",
    description: "More query words (joined with spaces)",
  }),
  depth: option({
    long: "depth",
    short: "d",
    type: optional(oneOf(["1", "2"])),
    description: "1 = sessions, 2 = turns (default 1; 2 with --session)",
  }),
  session: option({
    long: "session",
    type: optional(string),
    description: "Search the turns of one session (id or 8+ char prefix); implies --depth 2",
  }),
  ...projectSourceArgs,
  since: option({
    long: "since",
    type: optional(string),
    description:
      "Only activity since this date (2026-03-01, a local day), age (7d, 2w, 3m) or date in words (yesterday, last week, 3 days ago, march)",
  }),
  until: option({
    long: "until",
    type: optional(string),
    description: "Only activity until this date, age or date in words (a day or a week means its end)",
  }),
  branch: option({
    long: "branch",
    short: "b",
    type: optional(string),
    description: "Only sessions on this git branch",
  }),
  limit: option({
    long: "limit",
    short: "n",
    type: optional(number),
    description: "Results to show (default 5 sessions, 10 turns)",
  }),
  offset: option({
    long: "offset",
    type: optional(number),
    description: "Results to skip first (the next page; default 0)",
  }),
  format: option({
    long: "format",
    type: oneOf(searchFormats),
    defaultValue: () => "full" as const,
    description: "full (default) or index (ids, title, date, score, one-line preview)",
  }),
  maxChars: option({
    long: "max-chars",
    type: optional(number),
    description: `Cap the printed answer at N characters (at least ${minMaxChars}); left-out results are named in a [truncated] marker`,
  }),
  archive: flag({
    long: "archive",
    description:
      "Search the team archive on PostgreSQL instead of this machine's index (RECALL_ARCHIVE_URL, or --archive <url>)",
  }),
  archiveUrl: option({
    long: "archive-url",
    type: optional(string),
    description: "The archive to search (implies --archive): postgresql://user@host:5432/db",
  }),
  everywhere: flag({
    long: "everywhere",
    description: "Search this machine's index and the team archive, in one ranking (the archive as for --archive)",
  }),
  explain: flag({
    long: "explain",
    description: "Say why each result ranked (terms, leg scores, boosts): on stderr, or an explain field with --json",
  }),
  alpha: option({
    long: "alpha",
    type: optional(number),
    description:
      "Weight of the semantic leg in hybrid fusion, 0-1 (default: the model's calibrated weight, 0.5 for an uncalibrated model); confident keyword matches stay first unless it is 1",
  }),
  includeSubagents: flag({ long: "include-subagents", description: "Also search sub-agent sessions (down-ranked)" }),
  keywordOnly: flag({ long: "keyword-only", description: "Run only the keyword (BM25) leg" }),
  vectorOnly: flag({ long: "vector-only", description: "Run only the semantic (embedding) leg" }),
  noReindex: flag({ long: "no-reindex", description: "Do not update the index before searching" }),
  json: flag({ long: "json", description: "Print one JSON object (see README: JSON output)" }),
  ...modelArg,
  ...sourceArgs,
};

/** `recall search`'s arguments as cmd-ts parsed them. */
export type SearchArgs = ParsedArgs<typeof searchArgs>;

/** The `search` subcommand. */
export const searchCommand = command({
  name: "search",
  description:
    "Search sessions (level 1) or turns (level 2: --depth 2, or --session ID for one session's) by keyword and meaning",
  args: searchArgs,
  handler: async (args) => (await import("./search-handler.ts")).search(args),
});
