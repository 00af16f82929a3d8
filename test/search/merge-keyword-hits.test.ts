/**
 * `--everywhere` ranks two stores' keyword candidates as one (issue 39, lexical.ts mergeKeywordHits): by the raw BM25
 * evidence across both, all-terms hits above any-term hits, each store's own order kept, and one store's list returned
 * untouched when the other found nothing (so a search everywhere over copies ranks exactly as local search).
 */
import { describe, expect, test } from "bun:test";
import { type LexicalHit, mergeKeywordHits } from "../../src/search/ranking/lexical.ts";

const hit = (id: number, raw: number, allTerms: boolean, score = 0.5): LexicalHit => ({
  sessionRowid: id,
  documentId: id,
  turnNumber: 1,
  score,
  raw,
  allTerms,
});

describe("mergeKeywordHits", () => {
  test("one store alone: its list as it is, cut to the candidates", () => {
    const local = [hit(1, 9, true, 1), hit(2, 3, true, 0.5), hit(3, 1, false, 0)];
    expect(mergeKeywordHits([local, []], 10)).toEqual(local);
    expect(mergeKeywordHits([[], local], 2)).toEqual(local.slice(0, 2));
  });

  test("two stores: all-terms first, each tier by raw evidence across both, scores normalized again", () => {
    const local = [hit(1, 9, true), hit(2, 4, true), hit(3, 2, false)];
    const archive = [hit(-1, 12, true), hit(-2, 6, true), hit(-3, 5, false), hit(-4, 1, false)];
    const merged = mergeKeywordHits([local, archive], 10);
    expect(merged.map((entry) => entry.sessionRowid)).toEqual([-1, 1, -2, 2, -3, 3, -4]);
    expect(merged[0]!.score).toBe(1); // the best all-terms hit
    expect(merged[3]!.score).toBe(0.5); // the weakest all-terms hit
    expect(merged[4]!.score).toBe(0.49); // the best any-term hit, below every all-terms hit
    expect(merged[6]!.score).toBe(0);
    expect(merged.map((entry) => entry.raw)).toEqual([12, 9, 6, 4, 5, 2, 1]); // evidence kept for confidence
    expect(mergeKeywordHits([local, archive], 3).map((entry) => entry.sessionRowid)).toEqual([-1, 1, -2]);
  });

  test("equal evidence keeps the first store's hit first, and each store's own order", () => {
    const local = [hit(1, 5, true), hit(2, 5, true)];
    const archive = [hit(-1, 5, true), hit(-2, 5, true)];
    expect(mergeKeywordHits([local, archive], 10).map((entry) => entry.sessionRowid)).toEqual([1, 2, -1, -2]);
  });
});
