/**
 * The summary line of an index run (stderr), and its `--json` form (stdout):
 * `indexed: 12 added, 3 updated, 160 unchanged; 245 turns; 2 skipped lines; 1.4 s`, plus, when they happened,
 * `1 source deleted (kept in the archive)` and `1 unavailable (7 sessions kept, retried next run)`. An index run
 * never removes a session (only `recall forget` does), so `removed` is in the JSON only. When the embedding phase
 * ran: `embedded 120 chunks with <model>` and what failed, was rejected, had nothing to embed or is left of a
 * re-embed; the JSON has the same counts in `embedding` (null when the phase did not run) and `embedding_error`
 * (why the model could not be opened, or null). What the index holds that could not be kept (rejected files,
 * unplaced records: not-kept.ts) is a part of the line and four JSON fields, for the whole index, not only this run.
 */
import type { EmbeddingSummary, IndexSummary } from "../index/index.ts";
import { countOf } from "./format.ts";
import { notKeptJson, notKeptPart, unreadHistoryJson } from "./not-kept.ts";
import type { UnreadHistory } from "../parsers/unread-history.ts";

/** One summary line (without newline). */
export function renderIndexSummaryText(summary: IndexSummary): string {
  const parts = [
    `indexed: ${summary.added} added, ${summary.updated} updated, ${summary.unchanged} unchanged`,
    countOf(summary.turns, "turn"),
    `${countOf(summary.skippedLines, "skipped line")}${summary.firstSkipped ? ` (first: ${summary.firstSkipped})` : ""}`,
  ];
  if (summary.deleted > 0) parts.push(`${countOf(summary.deleted, "source")} deleted (kept in the archive)`);
  if (summary.restored > 0) parts.push(`${summary.restored} back from deleted`);
  if (summary.unavailable > 0)
    parts.push(`${summary.unavailable} unavailable (${countOf(summary.kept, "session")} kept, retried next run)`);
  if (summary.failedUnits > 0) parts.push(`${summary.failedUnits} unreadable (retried next run)`);
  const notKept = notKeptPart(summary.notKept);
  if (notKept) parts.push(`not kept: ${notKept} (\`recall status\` lists them)`);
  const embedding = summary.embedding;
  if (embedding) parts.push(renderEmbeddingPart(embedding));
  else if (summary.embeddingError) parts.push("no vectors this run");
  parts.push(`${(summary.elapsedMs / 1000).toFixed(1)} s`);
  return parts.join("; ");
}

/** `embedded 120 chunks with bge-small-en-v1.5 (2 failed, retried next run; 1 rejected; 46 empty; re-embed 40%)`. */
function renderEmbeddingPart(embedding: EmbeddingSummary): string {
  const notes: string[] = [];
  if (embedding.failed > 0) notes.push(`${embedding.failed} failed, retried next run`);
  if (embedding.rejected > 0) notes.push(`${embedding.rejected} rejected by the model`);
  if (embedding.skipped > 0) notes.push(`${embedding.skipped} with nothing to embed`);
  if (embedding.stopped) notes.push(`stopped: ${embedding.pending} pending`);
  const reembed = embedding.reembed;
  if (reembed && reembed.state !== "swapped")
    notes.push(
      `re-embed ${reembed.totalChunks === 0 ? 0 : Math.floor((100 * reembed.doneChunks) / reembed.totalChunks)}% done, run \`recall index\` to go on`,
    );
  if (reembed?.state === "swapped") notes.push("re-embed complete");
  const count = `embedded ${countOf(embedding.embedded, "chunk")} with ${embedding.model}`;
  return notes.length > 0 ? `${count} (${notes.join("; ")})` : count;
}

/** `recall index --json`: `{"version": 1, "added", …}` (the version of this JSON contract, as in search and show). */
export function renderIndexSummaryJson(summary: IndexSummary, unread: readonly UnreadHistory[] = []): string {
  return JSON.stringify({
    version: 1,
    added: summary.added,
    updated: summary.updated,
    removed: summary.removed,
    deleted: summary.deleted,
    restored: summary.restored,
    unchanged: summary.unchanged,
    unavailable: summary.unavailable,
    kept: summary.kept,
    turns: summary.turns,
    skipped_lines: summary.skippedLines,
    first_skipped: summary.firstSkipped ?? null,
    unreadable: summary.failedUnits,
    ...notKeptJson(summary.notKept),
    ...unreadHistoryJson(unread),
    degraded: summary.degraded,
    elapsed_ms: Math.round(summary.elapsedMs),
    missing_roots: summary.missingRoots,
    embedding: summary.embedding ? renderEmbeddingJson(summary.embedding) : null,
    embedding_error: summary.embeddingError
      ? {
          code: summary.embeddingError.code,
          message: summary.embeddingError.message,
          hint: summary.embeddingError.hint ?? null,
        }
      : null,
  });
}

/** The `embedding` object of `recall index --json`: counts in chunks of this run; `reembed` and `stopped` or null. */
function renderEmbeddingJson(embedding: EmbeddingSummary): Record<string, unknown> {
  return {
    model: embedding.model,
    embedded: embedding.embedded,
    failed: embedding.failed,
    rejected: embedding.rejected,
    skipped: embedding.skipped,
    pending: embedding.pending,
    degraded: embedding.degraded,
    reembed: embedding.reembed
      ? {
          state: embedding.reembed.state,
          done_chunks: embedding.reembed.doneChunks,
          total_chunks: embedding.reembed.totalChunks,
        }
      : null,
    stopped: embedding.stopped
      ? { code: embedding.stopped.code, message: embedding.stopped.message, hint: embedding.stopped.hint ?? null }
      : null,
  };
}
