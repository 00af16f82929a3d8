/**
 * What `recall index` does (its flags and help: index.ts): an incremental run with a progress bar on a TTY, the
 * summary line on stderr (or one JSON object on stdout with `--json`), embedding unless `--keyword-only`. Because
 * this command asks for embeddings, an endpoint that refuses the API key fails it (exit 1, after the keyword index
 * and the summary are written); a search's refresh only reports it (`degraded`, a notice).
 */
import { EmbedError, UsageError } from "../errors.ts";
import type { IndexSummary } from "../index/index.ts";
import { renderIndexSummaryJson } from "../render/index-summary.ts";
import { writeOut } from "../render/terminal.ts";
import { findUnreadHistory } from "../parsers/unread-history.ts";
import { indexWithProgress, resolveHistory } from "../service/context.ts";
import type { IndexArgs } from "./index-command.ts";

/** Runs `recall index` with its parsed arguments; resolves to the exit code. */
export async function index(args: IndexArgs): Promise<number> {
  if (args.reembed && args.keywordOnly)
    throw new UsageError("--reembed and --keyword-only contradict each other", "drop one of them");
  const context = resolveHistory(args);
  // The embedding layer is loaded only when this run may embed.
  const embedder = args.keywordOnly
    ? undefined
    : (await import("../service/embedder.ts")).createEmbedderOpener(context.paths, args.model, true);
  try {
    const summary = await indexWithProgress(context, {
      full: args.full,
      scan: args.rescan ? "whole" : "quick",
      lockWaitMs: args.wait ? 600_000 : 0,
      quiet: args.json,
      embedder,
      followModelChange: true,
      reembed: args.reembed,
    });
    if (args.json) writeOut(`${renderIndexSummaryJson(summary, findUnreadHistory())}\n`);
    const refused = authFailure(summary);
    if (refused)
      throw new EmbedError("ENDPOINT_AUTH", refused.message, { hint: refused.hint ?? "check EMBEDDINGS_API_KEY" });
  } finally {
    await embedder?.dispose();
  }
  return 0;
}

/** The endpoint's refusal of the credentials, when the embedding phase met one. */
function authFailure(summary: IndexSummary): { message: string; hint: string | undefined } | undefined {
  if (summary.embedding?.stopped?.code === "ENDPOINT_AUTH") return summary.embedding.stopped;
  if (summary.embeddingError?.code === "ENDPOINT_AUTH") return summary.embeddingError;
  return undefined;
}
