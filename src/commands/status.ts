/**
 * `recall status`: what is indexed, database size, last index time, and whether it is stale.
 * Never re-indexes (it reports staleness instead).
 */
import { command, flag } from "cmd-ts";
import { checkStaleness, databasePath, openIndex } from "../index/index.ts";
import { paletteFor } from "../render/format.ts";
import { writeOut } from "../render/terminal.ts";
import { renderStatusJson, renderStatusText } from "../render/sessions.ts";
import { readIndexStatus } from "../search/index.ts";
import { resolveHistory, sourceArgs } from "./context.ts";

/** The `status` subcommand. */
export const statusCommand = command({
  name: "status",
  description: "Show what is indexed (sessions, turns per source and project), index size, last index time, staleness",
  args: {
    json: flag({ long: "json", description: "Print one JSON object" }),
    ...sourceArgs,
  },
  handler: async (args) => {
    const context = resolveHistory(args);
    const path = databasePath(context.recallHome);
    const db = openIndex(path, { readonly: true });
    try {
      const status = readIndexStatus(db, path);
      const staleness = checkStaleness(db, context.roots, context.scanned);
      const extras = { recallHome: context.recallHome, stale: staleness.stale, staleSources: staleness.staleSources, usingExamples: context.usingExamples };
      writeOut(args.json ? `${renderStatusJson(status, extras)}\n` : renderStatusText(status, extras, await paletteFor(1)));
    } finally {
      db.close();
    }
    return 0;
  },
});
