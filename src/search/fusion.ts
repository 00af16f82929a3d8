/**
 * Relative Score Fusion (RSF), as in Weaviate's `relativeScoreFusion`: each leg's scores are
 * min-max normalized to 0–1 over that leg's candidates, then blended
 *   fused = alpha · vector + (1 − alpha) · keyword
 * where a candidate missing from a leg scores 0 in it. alpha defaults to 0.7 (semantic-leaning;
 * `--alpha` overrides); alpha 1 is vector-only, 0 keyword-only. Pure functions, no I/O.
 */

/** A candidate of one leg: a key (session rowid or document id) and a raw score, higher is better. */
export interface LegHit<K> {
  key: K;
  score: number;
}

/** A fused candidate with both normalized leg scores (undefined = not found by that leg). */
export interface FusedHit<K> {
  key: K;
  score: number;
  keywordScore: number | undefined;
  vectorScore: number | undefined;
}

/** Default weight of the vector leg. */
export const defaultAlpha = 0.7;

/**
 * Min-max normalize scores to 0–1. Equal scores (or a single hit) all become 1.
 * Example: [2, 4, 6] → [0, 0.5, 1].
 */
export function normalizeMinMax<K>(hits: readonly LegHit<K>[]): Map<K, number> {
  const normalized = new Map<K, number>();
  if (hits.length === 0) return normalized;
  let min = Infinity;
  let max = -Infinity;
  for (const hit of hits) {
    min = Math.min(min, hit.score);
    max = Math.max(max, hit.score);
  }
  const span = max - min;
  for (const hit of hits) normalized.set(hit.key, span > 0 ? (hit.score - min) / span : 1);
  return normalized;
}

/**
 * Fuse two legs by RSF; result sorted by fused score, best first (ties: keyword score, then key order of appearance).
 * Example (alpha 0.7): keyword {a: 1, b: 0}, vector {b: 1, c: 0} → b 0.7, a 0.3, c 0.
 */
export function fuseRelativeScores<K>(keyword: readonly LegHit<K>[], vector: readonly LegHit<K>[], alpha: number = defaultAlpha): FusedHit<K>[] {
  const keywordNorm = normalizeMinMax(keyword);
  const vectorNorm = normalizeMinMax(vector);
  const keys = new Set<K>([...keyword.map((hit) => hit.key), ...vector.map((hit) => hit.key)]);
  const fused: FusedHit<K>[] = [];
  for (const key of keys) {
    const k = keywordNorm.get(key);
    const v = vectorNorm.get(key);
    fused.push({ key, keywordScore: k, vectorScore: v, score: alpha * (v ?? 0) + (1 - alpha) * (k ?? 0) });
  }
  return fused.sort((a, b) => b.score - a.score || (b.keywordScore ?? 0) - (a.keywordScore ?? 0));
}
