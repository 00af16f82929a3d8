/**
 * `recall search --explain` (issue 13): why each result ranked, from what a result carries — the query's
 * terms after parsing, which of them the preview shows, each leg's normalized score, the vector weight of
 * the fusion, the fused score, and the boosts applied after fusion (the sub-agent down-ranking, the dates the
 * query named, and any other factor the ranking applied, shown as one unitemized factor). Text goes to stderr
 * (one line per result); under `--json` the same object is each result's `explain` field.
 */
import { subagentScoreFactor, type SearchResponse } from "../search/api.ts";
import { confidentTierVectorShare, evidenceTierScore } from "../search/ranking/fusion.ts";
import type { SessionResult, TurnResult } from "../search/reading/hydrate.ts";
import { parseLexicalQuery } from "../search/ranking/query.ts";
import { describeTuning } from "../search/ranking/tuning.ts";
import { dateFactorOf, dateFactors, type UnderstoodDate } from "../search/dates/time-boost.ts";
import { roundScore, shortId } from "./format.ts";

/** The confident tier's vector share for a weight, as printed: `0.01`. */
const share = (vectorWeight: number): string => String(Number(confidentTierVectorShare(vectorWeight).toFixed(3)));

/**
 * The `explain` object of one result (JSON field names; scores rounded to 4 decimals):
 *   terms: the query's words after parsing (stop words dropped, possessives stripped), lower-case;
 *   terms_in_preview: those of them the preview/excerpt shows (prefix match, as highlighting does);
 *   keyword_score, vector_score: each leg's 0–1 normalized score, null when that leg did not find it;
 *   vector_weight: the fusion weight of the vector leg (0 keyword-only, 1 vector-only, else the hybrid weight: --alpha, or
 *         the model's calibrated one × semantic_share);
 *   semantic_share: how far the query is natural language, 0–1 (search/ranking/query-shape.ts);
 *   calibration: the vector leg's calibration, `<entry> (<fitted|prior|tuned|default>)` (search/ranking/calibration.ts),
 *         null when no vector leg ran;
 *   tuning: when the search ranked with the user's own tuning (`recall eval --tune`, search/ranking/tuning.ts), what it
 *         is and how it measured on the held-out half; null otherwise;
 *   tier: in hybrid mode, "confident keyword match" (the upper tier of search/ranking/fusion.ts `fuseByEvidence`:
 *         0.5 + 0.5 · (keyword + s · vector) / (1 + s), s = vector_weight / 5) or "blend" (0.5 · (vector_weight · vector + (1 − vector_weight) ·
 *         keyword)); null when one leg ran alone;
 *   blended: the fused score before boosts (one leg alone: vector_weight · vector + (1 − vector_weight) · keyword);
 *   boosts: factors applied after fusion, e.g. {"reason": "sub-agent session", "factor": 0.85};
 *   score: the fused score the ranking used;
 *   confidence: the result's calibrated confidence (search/ranking/confidence.ts), from
 *   terms_held / terms_missing: the query terms its best document holds and lacks (rarest first), the evidence the
 *         confidence and the "No confident match" line are made of (issue 38, item 2: `terms_in_preview` is what the
 *         preview shows, which can hold words the best document does not).
 */
export interface ResultExplanation {
  terms: string[];
  terms_in_preview: string[];
  keyword_score: number | null;
  vector_score: number | null;
  vector_weight: number;
  semantic_share: number;
  calibration: string | null;
  tuning: string | null;
  tier: "confident keyword match" | "blend" | null;
  blended: number;
  boosts: Array<{ reason: string; factor: number }>;
  score: number;
  confidence: number;
  terms_held: string[];
  terms_missing: string[];
}

/** Stem-insensitive key, the same rule as the preview's highlighting (search/reading/preview.ts). */
const stemKey = (word: string): string => word.toLowerCase().slice(0, 5);

/**
 * Explain one result.
 * @param terms the parsed query words (`parseLexicalQuery(query).highlightWords`)
 * @param vectorWeight the fusion weight of the vector leg that ran (`SearchResponse.vectorWeight`: 0 keyword-only,
 *   1 vector-only, else the hybrid weight)
 */
export function explainResult(
  result: SessionResult | TurnResult,
  terms: readonly string[],
  vectorWeight: number,
  dates: readonly UnderstoodDate[] = [],
  ranking: { semanticShare: number; calibration: string | null; tuning?: string | null } = {
    semanticShare: 1,
    calibration: null,
  },
): ResultExplanation {
  const preview = "preview" in result ? result.preview : result.responseExcerpt;
  const shown = new Set(preview.highlights.map(([start, end]) => stemKey(preview.text.slice(start, end))));
  const inPrompt =
    "prompt" in result ? new Set((result.prompt.match(/[\p{L}\p{N}]+/gu) ?? []).map(stemKey)) : new Set<string>();
  const hybrid = vectorWeight > 0 && vectorWeight < 1;
  const tier = !hybrid
    ? null
    : result.confident && result.keywordScore !== undefined
      ? "confident keyword match"
      : "blend";
  const blended = hybrid
    ? evidenceTierScore(result.keywordScore, result.vectorScore, tier === "confident keyword match", vectorWeight)
    : vectorWeight * (result.vectorScore ?? 0) + (1 - vectorWeight) * (result.keywordScore ?? 0);
  const boosts: ResultExplanation["boosts"] = [];
  let expected = blended;
  if ("isSubagent" in result && result.isSubagent) {
    boosts.push({ reason: "sub-agent session", factor: subagentScoreFactor });
    expected *= subagentScoreFactor;
  }
  const date = dateBoostOf(result, dates);
  if (date) {
    boosts.push(date);
    expected *= date.factor;
  }
  if (expected > 0 && Math.abs(result.score - expected) > 1e-6) {
    boosts.push({ reason: "other ranking adjustments (not itemized)", factor: roundScore(result.score / expected)! });
  }
  return {
    terms: [...terms],
    terms_in_preview: terms.filter((term) => shown.has(stemKey(term)) || inPrompt.has(stemKey(term))),
    keyword_score: roundScore(result.keywordScore) ?? null,
    vector_score: roundScore(result.vectorScore) ?? null,
    vector_weight: vectorWeight,
    semantic_share: roundScore(ranking.semanticShare)!,
    calibration: ranking.calibration,
    tuning: ranking.tuning ?? null,
    tier,
    blended: roundScore(blended)!,
    boosts,
    score: roundScore(result.score)!,
    confidence: roundScore(result.confidence)!,
    terms_held: [...result.matchedTerms],
    terms_missing: [...result.missingTerms],
  };
}

/**
 * The date boost of one result (search/dates/time-boost.ts), recomputed from its session span (level 1) or turn time
 * (level 2) and the dates the ranking used: `{reason: "in the dates named", factor: 1}`, `"near …", 0.8` or
 * `"outside …", 0.3`; undefined when no date was used.
 */
function dateBoostOf(
  result: SessionResult | TurnResult,
  dates: readonly UnderstoodDate[],
): ResultExplanation["boosts"][number] | undefined {
  const used = dates.filter((date) => date.applied);
  if (used.length === 0) return undefined;
  const [first, last] = "turn" in result ? [result.timestamp, result.timestamp] : [result.startedAt, result.endedAt];
  const factor = dateFactorOf(first, last, used);
  const where = factor === dateFactors.inRange ? "in" : factor === dateFactors.near ? "near" : "outside";
  return { reason: `${where} the dates named (${used.map((date) => date.label).join(", ")})`, factor };
}

/** Every result's explanation, in result order. */
export function explainResponse(response: SearchResponse): ResultExplanation[] {
  const terms = parseLexicalQuery(response.query).highlightWords;
  const ranking = {
    semanticShare: response.semanticShare,
    calibration: response.calibration ? `${response.calibration.entry} (${response.calibration.status})` : null,
    tuning: response.tuning ? describeTuning(response.tuning) : null,
  };
  return (response.results as Array<SessionResult | TurnResult>).map((result) =>
    explainResult(result, terms, response.vectorWeight, response.dates, ranking),
  );
}

const leg = (score: number | null) => (score === null ? "—" : score.toFixed(4));

/**
 * The stderr text of `--explain`: a header naming the query terms, then one line per result, e.g.
 *   `explain 1. 23d3db6a-c18 score 0.1350 (blend 0.5×(0.70×vector — + 0.30×keyword 0.9000) = 0.1350); boosts: none; in preview: docker`
 */
export function renderExplainText(response: SearchResponse): string {
  const explanations = explainResponse(response);
  const terms = explanations[0]?.terms ?? parseLexicalQuery(response.query).highlightWords;
  const used = response.dates.filter((date) => date.applied).map((date) => date.label);
  const calibration = response.calibration
    ? `; calibration ${response.calibration.entry} (${response.calibration.status}), semantic share ${roundScore(response.semanticShare)}`
    : "";
  const lines = [
    `explain: ${response.mode} mode, query terms: ${terms.join(", ") || "(none)"}${used.length > 0 ? `; dates: ${used.join(", ")}` : ""}${calibration}`,
    ...(response.tuning ? [`explain: ranked with your own tuning ${describeTuning(response.tuning)}`] : []),
  ];
  (response.results as Array<SessionResult | TurnResult>).forEach((result, i) => {
    const e = explanations[i]!;
    const id = "turn" in result ? `${shortId(result.sessionId)}:${result.turn}` : shortId(result.sessionId);
    const boosts =
      e.boosts.length === 0 ? "none" : e.boosts.map((boost) => `${boost.reason} ×${boost.factor}`).join(", ");
    const fusion =
      e.tier === "confident keyword match"
        ? `confident keyword match ${e.blended.toFixed(4)} = 0.5 + 0.5×(keyword ${leg(e.keyword_score)} + ${share(e.vector_weight)}×vector ${leg(e.vector_score)})/${(1 + confidentTierVectorShare(e.vector_weight)).toFixed(3)}`
        : `${e.tier === "blend" ? "blend 0.5×" : "blend "}(${e.vector_weight.toFixed(2)}×vector ${leg(e.vector_score)} + ${(1 - e.vector_weight).toFixed(2)}×keyword ${leg(e.keyword_score)}) = ${e.blended.toFixed(4)}`;
    lines.push(
      `explain ${response.offset + i + 1}. ${id} score ${e.score.toFixed(4)} (${fusion}); boosts: ${boosts}; in preview: ${e.terms_in_preview.join(", ") || "(none)"}; confidence ${e.confidence.toFixed(2)} (holds ${e.terms_held.join(", ") || "none"}${e.terms_missing.length > 0 ? `; lacks ${e.terms_missing.join(", ")}` : ""})`,
    );
  });
  return `${lines.join("\n")}\n`;
}
