/**
 * `bun run eval`: retrieval quality on the real corpus (../shared/corpus) for the labelled queries in
 * test/corpus/queries.json: recall@5 and MRR per query kind (keyword, topic, question, paraphrase) at
 * level 1, and for the queries with an expected turn at level 2, for each leg: keyword, vector, hybrid.
 * The vector and hybrid rows need a model: pass one with RECALL_MODEL=<preset or path.gguf> (or --model);
 * without it only the keyword leg is measured. The index is built in a private temp RECALL_HOME.
 */
import { evaluateRetrieval, type LabelledQuery, type SearchMode } from "../src/search/index.ts";
import queries from "../test/corpus/queries.json";
import { indexCorpus, modelArgument } from "./eval/corpus-index.ts";

const corpus = await indexCorpus("eval", modelArgument());
try {
  const modes: SearchMode[] = corpus.vectorLeg ? ["keyword", "vector", "hybrid"] : ["keyword"];
  const rows: string[] = [["mode", "kind", "n", "recall@5 (share for confidence rows)", "MRR"].join("\t")];
  for (const mode of modes) {
    const result = await evaluateRetrieval(corpus.db, queries as LabelledQuery[], mode, corpus.vectorLeg);
    for (const [kind, scores] of Object.entries(result.sessions)) rows.push([mode, kind, scores.queries, scores.recallAt5.toFixed(3), scores.mrr.toFixed(3)].join("\t"));
    for (const [kind, scores] of Object.entries(result.turns)) rows.push([mode, `turns/${kind}`, scores.queries, scores.recallAt5.toFixed(3), scores.mrr.toFixed(3)].join("\t"));
    const { confidence } = result;
    rows.push([mode, "negatives: no confident match", confidence.negatives, confidence.negativesUnconfident.toFixed(3), "-"].join("\t"));
    rows.push([mode, "rank-1 hits: confident", confidence.rankOneHits, confidence.rankOneConfident.toFixed(3), "-"].join("\t"));
    for (const error of confidence.errors) process.stderr.write(`eval (${mode}): ${error}\n`);
  }
  console.log(rows.join("\n"));
} finally {
  await corpus.close();
}
