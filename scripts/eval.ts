/**
 * `bun run eval`: retrieval quality on the real corpus (../shared/corpus) for the labelled queries in
 * test/corpus/queries.json: recall@5 and MRR per query kind (keyword, topic, question, paraphrase) at
 * level 1, and for the queries with an expected turn at level 2, for each leg: keyword, vector, hybrid.
 * The vector and hybrid rows need a model: pass one with RECALL_MODEL=<preset or path.gguf> (or --model);
 * without it only the keyword leg is measured. The index is built in a private temp RECALL_HOME.
 * No trained model can be downloaded on the development machines, so the committed suite only floors
 * the keyword leg; this script is how a user with a real model measures the semantic legs.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openEmbedder } from "../src/embed/index.ts";
import { databasePath, openIndex, runIndex } from "../src/index/index.ts";
import { createVectorLeg, evaluateRetrieval, type LabelledQuery, type SearchMode } from "../src/search/index.ts";
import { claudeCorpusRoots, hasCorpus, opencodeCorpusRoots } from "../test/helpers/corpus.ts";
import queries from "../test/corpus/queries.json";

if (!hasCorpus) {
  process.stderr.write("eval: ../shared/corpus is missing; nothing to evaluate\n");
  process.exit(1);
}
const modelAt = process.argv.indexOf("--model");
const model = modelAt > 0 ? process.argv[modelAt + 1] : process.env.RECALL_MODEL;
const home = mkdtempSync(join(tmpdir(), "recall-eval-"));
try {
  const embedder = model ? await openEmbedder({ env: process.env, home, modelFlag: model }) : undefined;
  const started = performance.now();
  await runIndex({
    recallHome: home,
    roots: { "claude-code": claudeCorpusRoots(), opencode: opencodeCorpusRoots() },
    openEmbedder: embedder ? async () => embedder : undefined,
    hooks: { onEmbedProgress: ({ done, total }) => process.stderr.write(`\reval: embedding ${done}/${total} chunks`) },
  });
  process.stderr.write(`\neval: indexed in ${((performance.now() - started) / 1000).toFixed(1)} s${model ? ` with ${model}` : " (no model: keyword leg only)"}\n`);
  const db = openIndex(databasePath(home), { readonly: true });
  const modes: SearchMode[] = embedder ? ["keyword", "vector", "hybrid"] : ["keyword"];
  const rows: string[] = [["mode", "kind", "n", "recall@5", "MRR"].join("\t")];
  for (const mode of modes) {
    const result = await evaluateRetrieval(db, queries as LabelledQuery[], mode, embedder ? createVectorLeg(db, home, embedder) : undefined);
    for (const [kind, scores] of Object.entries(result.sessions)) rows.push([mode, kind, scores.queries, scores.recallAt5.toFixed(3), scores.mrr.toFixed(3)].join("\t"));
    rows.push([mode, "turns (level 2)", result.turns.queries, result.turns.recallAt5.toFixed(3), result.turns.mrr.toFixed(3)].join("\t"));
  }
  console.log(rows.join("\n"));
  db.close();
  await embedder?.dispose();
} finally {
  rmSync(home, { recursive: true, force: true });
}
