/**
 * The summary line of an index run (stderr), and its `--json` form (stdout):
 * `indexed: 12 added, 3 updated, 160 unchanged; 245 turns; 2 skipped lines; 1.4 s`, plus, when they happened,
 * `1 source deleted (kept in the archive)` and `1 unavailable (7 sessions kept, retried next run)`. An index run
 * never removes a session (only `recall forget` does), so `removed` is in the JSON only.
 */
import type { IndexSummary } from "../index/index.ts";

/** One summary line (without newline). */
export function renderIndexSummaryText(summary: IndexSummary): string {
  const parts = [
    `indexed: ${summary.added} added, ${summary.updated} updated, ${summary.unchanged} unchanged`,
    `${summary.turns} turns`,
    `${summary.skippedLines} skipped lines${summary.firstSkipped ? ` (first: ${summary.firstSkipped})` : ""}`,
  ];
  if (summary.deleted > 0) parts.push(`${summary.deleted} source${summary.deleted === 1 ? "" : "s"} deleted (kept in the archive)`);
  if (summary.restored > 0) parts.push(`${summary.restored} back from deleted`);
  if (summary.unavailable > 0) parts.push(`${summary.unavailable} unavailable (${summary.kept} session${summary.kept === 1 ? "" : "s"} kept, retried next run)`);
  if (summary.failedUnits > 0) parts.push(`${summary.failedUnits} unreadable (retried next run)`);
  parts.push(`${(summary.elapsedMs / 1000).toFixed(1)} s`);
  return parts.join("; ");
}

/** `recall index --json`. */
export function renderIndexSummaryJson(summary: IndexSummary): string {
  return JSON.stringify({
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
    degraded: summary.degraded,
    elapsed_ms: Math.round(summary.elapsedMs),
    missing_roots: summary.missingRoots,
  });
}
