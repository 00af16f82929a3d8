/**
 * The summary line of an index run (stderr), and its `--json` form (stdout):
 * `indexed: 12 added, 3 updated, 1 removed, 160 unchanged; 245 turns; 2 skipped lines; 1.4 s`.
 */
import type { IndexSummary } from "../index/index.ts";

/** One summary line (without newline). */
export function renderIndexSummaryText(summary: IndexSummary): string {
  const parts = [
    `indexed: ${summary.added} added, ${summary.updated} updated, ${summary.removed} removed, ${summary.unchanged} unchanged`,
    `${summary.turns} turns`,
    `${summary.skippedLines} skipped lines${summary.firstSkipped ? ` (first: ${summary.firstSkipped})` : ""}`,
  ];
  if (summary.failedUnits > 0) parts.push(`${summary.failedUnits} unreadable`);
  parts.push(`${(summary.elapsedMs / 1000).toFixed(1)} s`);
  return parts.join("; ");
}

/** `recall index --json`. */
export function renderIndexSummaryJson(summary: IndexSummary): string {
  return JSON.stringify({
    added: summary.added,
    updated: summary.updated,
    removed: summary.removed,
    unchanged: summary.unchanged,
    turns: summary.turns,
    skipped_lines: summary.skippedLines,
    first_skipped: summary.firstSkipped ?? null,
    unreadable: summary.failedUnits,
    degraded: summary.degraded,
    elapsed_ms: Math.round(summary.elapsedMs),
    missing_roots: summary.missingRoots,
  });
}
