/**
 * Relative Score Fusion (RSF), as in Weaviate's `relativeScoreFusion`: each leg's scores are
 * min-max normalized to 0–1 over that leg's candidates, then blended
 *   fused = alpha · vector + (1 − alpha) · keyword
 * where a candidate missing from a leg scores 0 in it; alpha 1 is vector-only, 0 keyword-only. Hybrid search
 * ranks by {@link fuseByEvidence}: RSF below an upper tier of confident keyword matches, with a per-model alpha
 * (the model's calibrated weight times the query's semantic share: search/ranking/calibration.ts `calibrationFor`, search/ranking/query-shape.ts; `--alpha` overrides). Pure functions, no I/O.
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
export function fuseRelativeScores<K>(
  keyword: readonly LegHit<K>[],
  vector: readonly LegHit<K>[],
  alpha: number,
): FusedHit<K>[] {
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

/**
 * In the confident tier of {@link fuseByEvidence}, the vector leg's share next to the keyword leg's (a tie-break):
 * a fifth of the model's vector weight, so 0.1 for an uncalibrated model (weight 0.5) and 0.01 for the shared GloVe
 * model (weight 0.05), whose near-tie decisions were coin flips (LoCoMo sample of 400 with share 0.1: as many
 * rank-1 sessions lost as won).
 */
export const confidentTierVectorShare = (vectorWeight: number): number => vectorWeight / 5;

/**
 * The score {@link fuseByEvidence} gives one candidate from its normalized leg scores (`undefined` = not found by that
 * leg, counting 0): in the confident keyword tier 0.5 + 0.5 · (k + s·v) / (1 + s) with s = w / 5, else 0.5 · (w·v + (1−w)·k).
 * Also what `--explain` shows (render/search-explain.ts).
 */
export function evidenceTierScore(
  keywordScore: number | undefined,
  vectorScore: number | undefined,
  confidentKeyword: boolean,
  vectorWeight: number,
): number {
  const k = keywordScore ?? 0;
  const v = vectorScore ?? 0;
  const share = confidentTierVectorShare(vectorWeight);
  return confidentKeyword
    ? 0.5 + (0.5 * (k + share * v)) / (1 + share)
    : 0.5 * (vectorWeight * v + (1 - vectorWeight) * k);
}

/**
 * Hybrid fusion that keeps strong lexical evidence (issue 17). Candidates the keyword leg matched confidently
 * (`confidentKeyword`: calibrated keyword confidence ≥ 0.5, confidence.ts; e.g. every term of the query, an exact
 * identifier; api.ts takes every keyword candidate down to the last confident one) form the upper tier, scored 0.5–1
 * in keyword order, the vector leg only breaking near-ties (`(k + s·v) / (1 + s)`, s = w / 5); every other candidate takes 0–0.5 by RSF with `vectorWeight` (`0.5 · (w·v + (1−w)·k)`).
 * So the semantic leg adds candidates and reorders weak ones but never pushes a confident keyword match down, and
 * when the keyword leg is weak or empty the blend decides (the vector leg leads when `vectorWeight` > 0.5).
 * `k`, `v` are the legs' min-max normalized scores as in {@link fuseRelativeScores}.
 * Example (weight 0.5): keyword {a: 3 confident, b: 1}, vector {c: 0.9, a: 0.2} → a 0.5 + 0.5·1 = 1, c 0.25, b 0.
 */
export function fuseByEvidence<K>(
  keyword: readonly LegHit<K>[],
  vector: readonly LegHit<K>[],
  confidentKeyword: ReadonlySet<K>,
  vectorWeight: number,
): FusedHit<K>[] {
  return fuseRelativeScores(keyword, vector, vectorWeight)
    .map((hit) => ({
      ...hit,
      score: evidenceTierScore(hit.keywordScore, hit.vectorScore, confidentKeyword.has(hit.key), vectorWeight),
    }))
    .sort((a, b) => b.score - a.score || (b.keywordScore ?? 0) - (a.keywordScore ?? 0));
}
