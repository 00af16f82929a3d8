/**
 * `bun scripts/calibrate-confidence.ts [--model use|glove|<preset|path>] [--write]`: fit src/search/ranking/calibration.json
 * (what the numbers mean: src/search/ranking/calibration.ts, src/search/ranking/confidence.ts; README "Search").
 *
 * Labelled queries: test/corpus/queries.json over the real corpus (../shared/corpus), and, with a model, the questions
 * of one LoCoMo conversation (`conv-26` of ../shared/bench/locomo, converted by its convert.py and indexed alone; it is
 * the calibration split: scripts/locomo.ts also reports the benchmark without it). Each index is built
 * in a private temporary RECALL_HOME with the model.
 *
 *   * keyword curve: for every own labelled query, a keyword-only level-1 search; its first result is a sample with
 *     the result's IDF-weighted coverage as evidence, label 1 when it is an expected session, 0 when it is not or the
 *     query is a negative. A logistic curve p = 1 / (1 + e^−(slope·x + intercept)) is fitted by Newton's method on the
 *     log-likelihood with a small L2 penalty (λ = 0.1; the labels are nearly separable, and without it the slope grows
 *     without bound). Kept unless the AUC falls below {@link minimumAuc}.
 *   * vector curve (with a model): the same over vector-only searches of both sets, the evidence being the first
 *     result's raw cosine; stored as null (the cosine adds no confidence) when its AUC is below {@link minimumAuc} or
 *     when, through the fitted curve, more than 20% of the negatives would be confident.
 *   * vector weight (with a model): every weight of {@link candidateWeights} is tried in hybrid search; the score of a
 *     weight is the mean over both sets of (session MRR + turn MRR) / 2, and the best wins (ties: the smaller weight,
 *     closer to the keyword leg). The query's semantic share (query-shape.ts) scales the weight as in search.
 *
 * Prints the samples, AUCs, the fitted curves, each weight's scores, and the semantic share per query kind. `--write`
 * stores the model's entry (`status: fitted`, with a note naming the run) under its name, or the keyword curve alone
 * without a model.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Database } from "bun:sqlite";
import { openEmbedder } from "../src/embed/index.ts";
import { databasePath, openIndex, runIndex } from "../src/index/index.ts";
import type { Calibrations, LogisticCurve } from "../src/search/ranking/calibration.ts";
import calibrationFile from "../src/search/ranking/calibration.json";
import { createVectorLeg, searchIndex, type SessionResult, type VectorLeg } from "../src/search/index.ts";
import { areaUnderCurve, fitLogistic } from "../src/evaluate/logistic.ts";
import { evaluateRetrieval, type LabelledQuery } from "./eval/evaluate.ts";
import { queryShape } from "../src/search/ranking/query-shape.ts";
import ownQueries from "../test/corpus/queries.json";
import { indexCorpus, modelArgument } from "./eval/corpus-index.ts";
import { locomoCalibrationConversation, startEvalModel, type EvalModel } from "./eval/eval-model.ts";

interface Sample {
  query: string;
  kind: string;
  x: number;
  label: 0 | 1;
}

/** A labelled set over its own index. */
interface LabelledSet {
  name: string;
  db: Database;
  vectorLeg: VectorLeg | undefined;
  queries: LabelledQuery[];
}

/** Vector weights tried for the hybrid fusion: finer near 0, where a weak model's best weight lies. */
const candidateWeights = [0, 0.025, 0.05, 0.075, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1];

/** Below this AUC a leg's evidence is not used for confidence. */
const minimumAuc = 0.75;

/** First-result samples of one leg over a labelled set. */
async function firstResultSamples(set: LabelledSet, leg: "keyword" | "vector"): Promise<Sample[]> {
  const samples: Sample[] = [];
  for (const labelled of set.queries) {
    const response = await searchIndex(
      set.db,
      { query: labelled.query, level: "session", filters: { includeSubagents: false }, limit: 5, mode: leg },
      set.vectorLeg,
    );
    const top = (response.results as SessionResult[])[0];
    if (!top) continue;
    samples.push({
      query: labelled.query,
      kind: labelled.kind,
      x: leg === "keyword" ? top.coverage : (top.cosine ?? -1),
      label: labelled.expected_sessions.includes(top.sessionId) ? 1 : 0,
    });
  }
  return samples;
}

/** Fit one leg's curve and print its samples; null when the evidence does not separate (see the module doc). */
function fitCurve(name: string, samples: readonly Sample[]): LogisticCurve | null {
  const fitted = fitLogistic(samples);
  const auc = areaUnderCurve(samples);
  const threshold = -fitted.intercept / fitted.slope;
  const negatives = samples.filter((sample) => sample.kind === "negative");
  const confidentNegatives = negatives.filter((sample) => sample.x >= threshold).length;
  const usable = auc >= minimumAuc && fitted.slope > 0 && confidentNegatives <= 0.2 * negatives.length;
  console.log(
    `\n${name}: ${samples.length} queries with a result; AUC ${auc.toFixed(3)}; fitted slope ${fitted.slope}, intercept ${fitted.intercept}; p = 0.5 at ${threshold.toFixed(3)}${usable ? "" : ` — not used: AUC < ${minimumAuc}, a falling curve, or over 20% of negatives confident`}`,
  );
  for (const sample of [...samples].sort((a, b) => a.x - b.x))
    console.log(
      `  ${sample.x.toFixed(3)}  ${sample.label ? "hit " : "miss"}  ${sample.kind.padEnd(12)} ${sample.query}`,
    );
  const hits = samples.filter((sample) => sample.label === 1);
  console.log(
    `  negatives below p = 0.5: ${negatives.length - confidentNegatives}/${negatives.length}; first-rank hits at or above: ${hits.filter((s) => s.x >= threshold).length}/${hits.length}`,
  );
  return usable ? fitted : null;
}

/**
 * Index one LoCoMo conversation (converted to Claude Code transcripts by the benchmark's convert.py) with the model,
 * and label its questions: expected sessions are the evidence sessions, the expected turn the first evidence turn.
 * @returns undefined (with a message) when python3 or the benchmark is missing
 */
async function locomoSet(model: EvalModel): Promise<(LabelledSet & { close(): Promise<void> }) | undefined> {
  const convert = resolve(import.meta.dir, "../../shared/bench/locomo/convert.py");
  const work = mkdtempSync(join(tmpdir(), "recall-calibrate-locomo-"));
  const converted = Bun.spawnSync(["python3", convert, "--out", join(work, "tree")], { stderr: "pipe" });
  if (converted.exitCode !== 0) {
    process.stderr.write(`calibrate: LoCoMo split skipped (${convert}: ${converted.stderr.toString().trim()})\n`);
    rmSync(work, { recursive: true, force: true });
    return undefined;
  }
  const project = join(work, "tree/claude/projects", `-home-locomo-${locomoCalibrationConversation}`);
  const home = join(work, "home");
  const embedder = await openEmbedder({ env: model.env, home, modelFlag: model.modelFlag });
  await runIndex({
    recallHome: home,
    roots: { "claude-code": [project], opencode: [] },
    openEmbedder: async () => embedder,
  });
  const queries = readFileSync(join(work, "tree/queries.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map(
      (line) =>
        JSON.parse(line) as {
          conversation: string;
          question: string;
          category_name: string;
          expected_sessions: string[];
          expected_turns: Array<{ session: string; turn: number }>;
        },
    )
    .filter((query) => query.conversation === locomoCalibrationConversation)
    .map(
      (query): LabelledQuery => ({
        query: query.question,
        kind: `locomo-${query.category_name}`,
        expected_sessions: query.expected_sessions,
        ...(query.expected_turns[0] ? { expected_turn: query.expected_turns[0] } : {}),
      }),
    );
  const db = openIndex(databasePath(home), { readonly: true });
  return {
    name: `LoCoMo ${locomoCalibrationConversation}`,
    db,
    vectorLeg: createVectorLeg(db, home, embedder),
    queries,
    async close() {
      db.close();
      await embedder.dispose();
      rmSync(work, { recursive: true, force: true });
    },
  };
}

const modelName = modelArgument();
const corpus = await indexCorpus("calibrate", modelName);
const calibrations = structuredClone(calibrationFile) as Calibrations;
const locomoModel = modelName ? await startEvalModel(modelName) : undefined;
const locomo = locomoModel ? await locomoSet(locomoModel) : undefined;
try {
  const own: LabelledSet = {
    name: "own labelled queries",
    db: corpus.db,
    vectorLeg: corpus.vectorLeg,
    queries: ownQueries as LabelledQuery[],
  };
  const sets = [own, ...(locomo ? [locomo] : [])];

  const shares = new Map<string, number[]>();
  for (const query of own.queries)
    shares.set(query.kind, [...(shares.get(query.kind) ?? []), queryShape(query.query).semanticShare]);
  console.log("semantic share per kind of the own labelled queries (query-shape.ts): mean, min, max");
  for (const [kind, values] of shares)
    console.log(
      `  ${kind.padEnd(10)} n ${values.length}  ${(values.reduce((a, b) => a + b, 0) / values.length).toFixed(2)}  ${Math.min(...values).toFixed(2)}  ${Math.max(...values).toFixed(2)}`,
    );

  const keywordCurve = fitCurve("keyword leg (own labelled queries)", await firstResultSamples(own, "keyword"));
  if (!keywordCurve)
    throw new Error("the keyword evidence does not separate hits from misses: keeping the committed curve");
  calibrations.keyword = keywordCurve;

  if (corpus.vectorLeg && corpus.model) {
    const samples = (await Promise.all(sets.map((set) => firstResultSamples(set, "vector")))).flat();
    const vectorCurve = fitCurve(`vector leg (${corpus.model}, ${sets.map((set) => set.name).join(" + ")})`, samples);
    let best = { weight: 0, score: -1 };
    for (const weight of candidateWeights) {
      const parts: string[] = [];
      let score = 0;
      for (const set of sets) {
        const alphaOf = (query: string) => weight * queryShape(query).semanticShare;
        // evaluateRetrieval takes one alpha: evaluate query by query so each gets its shape-scaled weight.
        let sessionMrr = 0;
        let turnMrr = 0;
        let withTurn = 0;
        const positives = set.queries.filter((query) => query.expected_sessions.length > 0);
        for (const query of positives) {
          const result = await evaluateRetrieval(set.db, [query], "hybrid", set.vectorLeg, alphaOf(query.query));
          sessionMrr += result.sessions.all?.mrr ?? 0;
          if (query.expected_turn) {
            turnMrr += result.turns.all?.mrr ?? 0;
            withTurn++;
          }
        }
        const setScore = (sessionMrr / positives.length + turnMrr / Math.max(1, withTurn)) / 2;
        score += setScore / sets.length;
        parts.push(
          `${set.name}: session MRR ${(sessionMrr / positives.length).toFixed(3)}, turn MRR ${(turnMrr / Math.max(1, withTurn)).toFixed(3)}`,
        );
      }
      console.log(`hybrid vector weight ${weight.toFixed(3)}: ${parts.join("; ")}; score ${score.toFixed(4)}`);
      if (score > best.score + 1e-9) best = { weight, score };
    }
    console.log(`hybrid vector weight for ${corpus.model}: ${best.weight}`);
    const date = new Date().toISOString().slice(0, 10);
    calibrations.models[corpus.model.toLowerCase().replace(/\.gguf$/, "")] = {
      status: "fitted",
      vectorWeight: best.weight,
      vector: vectorCurve,
      note: `Fitted ${date} by scripts/calibrate-confidence.ts --model ${modelName} on ${sets.map((set) => `${set.name} (${set.queries.length})`).join(" and ")}: the weight with the best mean session and turn MRR; ${vectorCurve ? `the cosine curve reaches p = 0.5 at ${(-vectorCurve.intercept / vectorCurve.slope).toFixed(3)}` : "its cosines do not separate hits from misses well enough to add confidence"}.`,
    };
  }
  if (process.argv.includes("--write")) {
    writeFileSync(
      join(import.meta.dir, "../src/search/ranking/calibration.json"),
      `${JSON.stringify(calibrations, null, 2)}\n`,
    );
    console.log("\nwrote src/search/ranking/calibration.json");
  }
} finally {
  await locomo?.close();
  await locomoModel?.stop();
  await corpus.close();
}
