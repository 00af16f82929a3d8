/**
 * What `recall watch` prints (issue 10): status lines for stderr, and with `--json` one JSON object per cycle
 * for stdout. JSON contract, version 1, one line each, `at` an ISO-8601 UTC time:
 *   {"version":1,"event":"indexed","at":…, …the `recall index --json` fields (render/index-summary.ts)}
 *   {"version":1,"event":"embedded","at":…,"embedded":<chunks>,"failed":<chunks>,"elapsed_ms":<ms>}
 *   {"version":1,"event":"skipped","at":…,"reason":"locked","message":"…","retry_in_ms":<ms>}
 */
import type { EmbeddingSummary, IndexSummary, WatchDescription } from "../index/index.ts";
import { countOf } from "./format.ts";
import { renderIndexSummaryJson, renderIndexSummaryText } from "./index-summary.ts";

/** Local wall-clock time `HH:MM:SS` for status lines. */
const clock = (date: Date) => date.toTimeString().slice(0, 8);

/**
 * The first status line: what is watched, per source, and the sources none of whose folders exist yet, by name (their
 * folders are in `recall doctor`): `watching for new and changed sessions (claude-code: /home/u/.claude/projects;
 * waiting for the folders of codex, cursor to appear); Ctrl-C stops`.
 */
export function renderWatchStartText(description: WatchDescription): string {
  const bySource = new Map<string, string[]>();
  for (const target of description.targets) {
    const list = bySource.get(target.source) ?? [];
    if (target.kind !== "pending" && !list.includes(target.path)) list.push(target.path);
    bySource.set(target.source, list);
  }
  const watched = [...bySource].filter(([, paths]) => paths.length > 0);
  const waiting = [...bySource].filter(([, paths]) => paths.length === 0).map(([source]) => source);
  const parts = [
    ...watched.map(([source, paths]) => `${source}: ${paths.join(", ")}`),
    ...(waiting.length > 0 ? [`waiting for the folders of ${waiting.join(", ")} to appear`] : []),
  ];
  const periodic = description.isPeriodic
    ? "; some folders cannot be watched, so changes are also checked every minute"
    : "";
  return `watching for new and changed sessions (${parts.join("; ") || "no source folder"})${periodic}; Ctrl-C stops`;
}

/** True when a cycle changed what the index holds (a status line is worth printing). */
export function hasIndexChanges(summary: IndexSummary): boolean {
  return summary.added + summary.updated + summary.deleted + summary.restored > 0 || summary.failedUnits > 0;
}

/** `[12:03:04] indexed: 0 added, 1 updated, …; 0.0 s` */
export function renderWatchIndexedText(summary: IndexSummary, at = new Date()): string {
  return `[${clock(at)}] ${renderIndexSummaryText(summary)}`;
}

/** `[12:03:04] embedded 64 chunks (1 failed, retried next cycle) in 3.2 s` */
export function renderWatchEmbeddedText(summary: EmbeddingSummary, elapsedMs: number, at = new Date()): string {
  const failed = summary.failed > 0 ? ` (${summary.failed} failed, retried next cycle)` : "";
  return `[${clock(at)}] embedded ${countOf(summary.embedded, "chunk")}${failed} in ${(elapsedMs / 1000).toFixed(1)} s`;
}

/** `[12:03:04] another recall index run (process 123) is updating the index; trying again in 2 s` */
export function renderWatchSkippedText(message: string, retryInMs: number, at = new Date()): string {
  return `[${clock(at)}] ${message}; trying again in ${Math.round(retryInMs / 1000)} s`;
}

/** One JSON line (without newline) for a cycle's keyword phase. */
export function renderWatchIndexedJson(summary: IndexSummary, at = new Date()): string {
  const { version, ...fields } = JSON.parse(renderIndexSummaryJson(summary)) as Record<string, unknown>;
  return JSON.stringify({ version, event: "indexed", at: at.toISOString(), ...fields });
}

/** One JSON line (without newline) for an embedding phase. */
export function renderWatchEmbeddedJson(summary: EmbeddingSummary, elapsedMs: number, at = new Date()): string {
  return JSON.stringify({
    version: 1,
    event: "embedded",
    at: at.toISOString(),
    embedded: summary.embedded,
    failed: summary.failed,
    elapsed_ms: Math.round(elapsedMs),
  });
}

/** One JSON line (without newline) for a skipped cycle. */
export function renderWatchSkippedJson(message: string, retryInMs: number, at = new Date()): string {
  return JSON.stringify({
    version: 1,
    event: "skipped",
    at: at.toISOString(),
    reason: "locked",
    message,
    retry_in_ms: retryInMs,
  });
}
