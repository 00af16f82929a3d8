/**
 * `--everywhere` (issue 30): one ranking of this machine's results and the team archive's. Each list's scores are
 * relative to its own candidates, so they are fused as search fuses two legs: Relative Score Fusion (fusion.ts), each
 * list min-max normalized and weighted ½. A session (level 1) or turn (level 2) found in both, by tool and session id
 * (a session this machine pushed), is one result: the local one, which can be resumed and read from its source, marked
 * as also in the archive; it gets both lists' shares, so what both places hold ranks first. Ties go to the higher
 * confidence (the same calibration on both sides).
 */
import type { SessionResult, TurnResult } from "../search/reading/hydrate.ts";
import { fuseRelativeScores } from "../search/ranking/fusion.ts";
import type { SearchLevel } from "../search/ranking/lexical.ts";
import type { ArchiveSessionResult, ArchiveTurnResult } from "./search.ts";

/** One merged result: from this machine's index (`local`) or from the archive (`archive`). */
export type EverywhereResult =
  | { where: "local"; score: number; alsoInArchive: boolean; result: SessionResult | TurnResult }
  | { where: "archive"; score: number; alsoInArchive: false; result: ArchiveSessionResult | ArchiveTurnResult };

const keyOf = (level: SearchLevel, result: { source: string; sessionId: string; turn?: number }): string =>
  level === "session"
    ? `${result.source}\u0000${result.sessionId}`
    : `${result.source}\u0000${result.sessionId}#${result.turn}`;

/**
 * Merge the two answers into one ranking, best first, at most `limit` results.
 * @param local the local search's results (already ranked and cut to the page)
 * @param archive the archive search's results (the same query, level and filters)
 */
export function mergeEverywhere(
  level: SearchLevel,
  local: ReadonlyArray<SessionResult | TurnResult>,
  archive: ReadonlyArray<ArchiveSessionResult | ArchiveTurnResult>,
  limit: number,
): EverywhereResult[] {
  const localByKey = new Map(
    local.map((result) => [keyOf(level, result as { source: string; sessionId: string; turn?: number }), result]),
  );
  const archiveByKey = new Map<string, ArchiveSessionResult | ArchiveTurnResult>();
  for (const result of archive) {
    const key = keyOf(level, result as { source: string; sessionId: string; turn?: number });
    if (!archiveByKey.has(key)) archiveByKey.set(key, result); // the best copy when several machines pushed it
  }
  const fused = fuseRelativeScores(
    [...localByKey].map(([key, result]) => ({ key, score: result.score })),
    [...archiveByKey].map(([key, result]) => ({ key, score: result.score })),
    0.5,
  );
  const confidenceOf = (key: string) => localByKey.get(key)?.confidence ?? archiveByKey.get(key)?.confidence ?? 0;
  fused.sort((a, b) => b.score - a.score || confidenceOf(b.key) - confidenceOf(a.key));
  return fused.slice(0, limit).map((entry): EverywhereResult => {
    const mine = localByKey.get(entry.key);
    if (mine) return { where: "local", score: entry.score, alsoInArchive: archiveByKey.has(entry.key), result: mine };
    return { where: "archive", score: entry.score, alsoInArchive: false, result: archiveByKey.get(entry.key)! };
  });
}
