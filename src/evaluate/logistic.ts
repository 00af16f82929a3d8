/**
 * Fitting a logistic curve p = 1 / (1 + e^−(slope·x + intercept)) to labelled evidence (Platt scaling, Platt 1999), as
 * the committed calibration was fitted (scripts/calibrate-confidence.ts) and as `recall eval --tune` fits the user's
 * keyword confidence curve.
 */
import type { LogisticCurve } from "../search/ranking/calibration.ts";

/** One piece of evidence `x` and whether it was right (`label` 1) or wrong (0). */
export interface EvidenceSample {
  x: number;
  label: 0 | 1;
}

/** The L2 penalty λ on slope and intercept: the labels are nearly separable, and without it the slope grows without bound. */
const penalty = 0.1;

/**
 * Area under the ROC curve: the share of (hit, miss) pairs where the hit has the larger evidence (ties count half);
 * 0.5 when either class is empty.
 */
export function areaUnderCurve(samples: readonly EvidenceSample[]): number {
  const hits = samples.filter((sample) => sample.label === 1);
  const misses = samples.filter((sample) => sample.label === 0);
  if (hits.length === 0 || misses.length === 0) return 0.5;
  let wins = 0;
  for (const hit of hits) for (const miss of misses) wins += hit.x > miss.x ? 1 : hit.x === miss.x ? 0.5 : 0;
  return wins / (hits.length * misses.length);
}

/**
 * Fit slope and intercept by Newton's method (2×2 Hessian) on the penalized log-likelihood; both rounded to 4
 * decimals. An empty sample gives { slope: 0, intercept: 0 } (p = 0.5 everywhere).
 */
export function fitLogistic(samples: readonly EvidenceSample[]): LogisticCurve {
  let slope = 0;
  let intercept = 0;
  for (let iteration = 0; iteration < 100; iteration++) {
    let gradientSlope = -penalty * slope;
    let gradientIntercept = -penalty * intercept;
    let hss = penalty;
    let hsi = 0;
    let hii = penalty;
    for (const { x, label } of samples) {
      const p = 1 / (1 + Math.exp(-(slope * x + intercept)));
      gradientSlope += (label - p) * x;
      gradientIntercept += label - p;
      const w = p * (1 - p);
      hss += w * x * x;
      hsi += w * x;
      hii += w;
    }
    const determinant = hss * hii - hsi * hsi;
    const stepSlope = (hii * gradientSlope - hsi * gradientIntercept) / determinant;
    const stepIntercept = (hss * gradientIntercept - hsi * gradientSlope) / determinant;
    slope += stepSlope;
    intercept += stepIntercept;
    if (Math.abs(stepSlope) + Math.abs(stepIntercept) < 1e-9) break;
  }
  return { slope: Number(slope.toFixed(4)), intercept: Number(intercept.toFixed(4)) };
}

/** The evidence at which a rising curve gives p = 0.5 (−intercept / slope); Infinity for a flat or falling one. */
export const evenOddsAt = (curve: LogisticCurve): number =>
  curve.slope > 0 ? -curve.intercept / curve.slope : Infinity;
