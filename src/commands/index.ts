/**
 * `recall index`: bring the index up to date with the sources (incremental; `--full` re-parses all).
 */
import { command, flag } from "cmd-ts";
import { renderIndexSummaryJson } from "../render/index-summary.ts";
import { indexWithProgress, resolveHistory, sourceArgs } from "./context.ts";
import { createEmbedderOpener, modelArg } from "./embedder.ts";
import { writeOut } from "../render/terminal.ts";

/** The `index` subcommand. */
export const indexCommand = command({
  name: "index",
  description: "Index new and changed sessions (incremental); prints a summary line on stderr",
  args: {
    ...sourceArgs,
    full: flag({ long: "full", description: "Re-parse every session instead of only new and changed ones" }),
    wait: flag({ long: "wait", description: "Wait (up to 10 min) for another running index instead of exiting with an error" }),
    json: flag({ long: "json", description: "Print the summary as one JSON object on stdout" }),
    keywordOnly: flag({ long: "keyword-only", description: "Do not embed (keyword search only; a later run without it adds the vectors)" }),
    ...modelArg,
  },
  handler: async (args) => {
    const context = resolveHistory(args);
    const embedder = args.keywordOnly ? undefined : createEmbedderOpener(context.paths, args.model, true);
    try {
      const summary = await indexWithProgress(context, {
        full: args.full,
        lockWaitMs: args.wait ? 600_000 : 0,
        quiet: args.json,
        embedder,
        alwaysEmbed: args.model !== undefined || process.env.RECALL_MODEL !== undefined,
      });
      if (args.json) writeOut(`${renderIndexSummaryJson(summary)}\n`);
    } finally {
      await embedder?.dispose();
    }
    return 0;
  },
});
