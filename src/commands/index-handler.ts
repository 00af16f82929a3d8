/**
 * What `recall index` does (its flags and help: index.ts): an incremental run with a progress bar on a TTY, the
 * summary line on stderr (or one JSON object on stdout with `--json`), embedding unless `--keyword-only`.
 */
import { renderIndexSummaryJson } from "../render/index-summary.ts";
import { writeOut } from "../render/terminal.ts";
import { indexWithProgress, resolveHistory } from "./context.ts";
import type { IndexArgs } from "./index.ts";

/** Runs `recall index` with its parsed arguments; resolves to the exit code. */
export async function index(args: IndexArgs): Promise<number> {
  const context = resolveHistory(args);
  // The embedding layer is loaded only when this run may embed.
  const embedder = args.keywordOnly ? undefined : (await import("./embedder.ts")).createEmbedderOpener(context.paths, args.model, true);
  try {
    const summary = await indexWithProgress(context, {
      full: args.full,
      scan: args.rescan ? "whole" : "quick",
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
}
