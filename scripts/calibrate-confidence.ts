/**
 * `bun scripts/calibrate-confidence.ts [--model <preset|path>] [--write]`: fit the confidence curves of
 * src/search/calibration.json (method: src/search/confidence.ts; README "Search").
 *
 * For every labelled query of test/corpus/queries.json, run a level-1 search over the real corpus with one leg
 * (keyword; vector when a model is given) and take the first result: label 1 when it is an expected session,
 * 0 when it is not or the query is a negative (no expected session). The evidence is the result's keyword
 * coverage (keyword leg) or raw cosine (vector leg). A logistic curve p = 1 / (1 + e^−(slope·x + intercept)) is
 * fitted by Newton's method on the log-likelihood with a small L2 penalty (λ = 0.1; the labels are nearly
 * separable, and without it the slope grows without bound). Prints the samples, the area under the ROC curve of
 * the evidence (AUC: the chance that a random hit has more evidence than a random miss) and the fitted curve;
 * `--write` stores it (the vector curve under the model's name).
 * With a model, it also picks the hybrid fusion's vector weight for it (fusion.ts `fuseByEvidence`): every weight
 * of {@link candidateWeights} (0, 0.025, …, 0.1, 0.2, …, 1) is tried on the labelled queries and the one with the best mean of session MRR and turn MRR wins
 * (ties: the smaller weight, which keeps closer to the keyword leg). A leg whose evidence does not separate hits from
 * misses (AUC below {@link minimumAuc}, or a curve that falls as the evidence rises) is stored as null: the model
 * then adds no confidence (measured for glove-wink-100d-f16: negatives' best cosines 0.77–1.00, as high as hits').
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { evaluateRetrieval, searchIndex, type LabelledQuery, type SessionResult } from "../src/search/index.ts";
import type { ConfidenceCalibration, LogisticCurve } from "../src/search/confidence.ts";
import calibration from "../src/search/calibration.json";
import queries from "../test/corpus/queries.json";
import { indexCorpus, modelArgument } from "./eval/corpus-index.ts";

interface Sample {
  query: string;
  kind: string;
  x: number;
  label: 0 | 1;
}

const penalty = 0.1;

/** Vector weights tried for the hybrid fusion: finer near 0, where a weak model's best weight lies. */
const candidateWeights = [0, 0.025, 0.05, 0.075, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];

/** Below this AUC a leg's evidence is not used for confidence. */
const minimumAuc = 0.75;

/** Area under the ROC curve: the share of (hit, miss) pairs where the hit has the larger evidence (ties count half). */
function areaUnderCurve(samples: readonly Sample[]): number {
  const hits = samples.filter((sample) => sample.label === 1);
  const misses = samples.filter((sample) => sample.label === 0);
  if (hits.length === 0 || misses.length === 0) return 0.5;
  let wins = 0;
  for (const hit of hits) for (const miss of misses) wins += hit.x > miss.x ? 1 : hit.x === miss.x ? 0.5 : 0;
  return wins / (hits.length * misses.length);
}

/** Fit slope and intercept by Newton's method (2×2 Hessian) on the penalized log-likelihood. */
function fitLogistic(samples: readonly Sample[]): LogisticCurve {
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

const corpus = await indexCorpus("calibrate", modelArgument());
const curves: ConfidenceCalibration = structuredClone(calibration);
try {
  const legs = corpus.vectorLeg ? (["keyword", "vector"] as const) : (["keyword"] as const);
  for (const leg of legs) {
    const samples: Sample[] = [];
    for (const labelled of queries as LabelledQuery[]) {
      const response = await searchIndex(
        corpus.db,
        { query: labelled.query, level: "session", filters: { includeSubagents: false }, limit: 5, mode: leg },
        corpus.vectorLeg,
      );
      const top = (response.results as SessionResult[])[0];
      if (!top) continue;
      const x = leg === "keyword" ? top.coverage : (top.cosine ?? -1);
      samples.push({
        query: labelled.query,
        kind: labelled.kind,
        x,
        label: labelled.expected_sessions.includes(top.sessionId) ? 1 : 0,
      });
    }
    const fitted = fitLogistic(samples);
    const auc = areaUnderCurve(samples);
    const curve = auc >= minimumAuc && fitted.slope > 0 ? fitted : null;
    const threshold = -fitted.intercept / fitted.slope;
    console.log(
      `\n${leg} leg${leg === "vector" ? ` (${corpus.model})` : ""}: ${samples.length} queries with a result; AUC ${auc.toFixed(3)}; fitted slope ${fitted.slope}, intercept ${fitted.intercept}; p = 0.5 at ${leg === "keyword" ? "coverage" : "cosine"} ${threshold.toFixed(3)}${curve ? "" : ` — not used: the evidence does not separate hits from misses (AUC < ${minimumAuc} or a falling curve)`}`,
    );
    for (const sample of [...samples].sort((a, b) => a.x - b.x))
      console.log(
        `  ${sample.x.toFixed(3)}  ${sample.label ? "hit " : "miss"}  ${sample.kind.padEnd(10)} ${sample.query}`,
      );
    const negatives = samples.filter((sample) => sample.kind === "negative");
    const hits = samples.filter((sample) => sample.label === 1);
    console.log(
      `  negatives below the threshold: ${negatives.filter((s) => s.x < threshold).length}/${negatives.length}; rank-1 hits at or above it: ${hits.filter((s) => s.x >= threshold).length}/${hits.length}`,
    );
    if (leg === "keyword") {
      if (!curve)
        throw new Error("the keyword evidence does not separate hits from misses: keeping the committed curve");
      curves.keyword = curve;
    } else curves.vector[corpus.model!] = curve;
  }
  if (corpus.vectorLeg) {
    let best = { weight: 0, score: -1 };
    for (const weight of candidateWeights) {
      const result = await evaluateRetrieval(corpus.db, queries as LabelledQuery[], "hybrid", corpus.vectorLeg, weight);
      const score = (result.sessions.all!.mrr + result.turns.all!.mrr) / 2;
      console.log(
        `hybrid vector weight ${weight.toFixed(3)}: session MRR ${result.sessions.all!.mrr.toFixed(3)}, turn MRR ${result.turns.all!.mrr.toFixed(3)}`,
      );
      if (score > best.score + 1e-9) best = { weight, score };
    }
    console.log(`hybrid vector weight for ${corpus.model}: ${best.weight}`);
    curves.vectorWeight[corpus.model!] = best.weight;
  }
  if (process.argv.includes("--write")) {
    writeFileSync(join(import.meta.dir, "../src/search/calibration.json"), `${JSON.stringify(curves, null, 2)}\n`);
    console.log("\nwrote src/search/calibration.json");
  }
} finally {
  await corpus.close();
}
