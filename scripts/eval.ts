/**
 * `bun run eval`: retrieval quality on the real corpus (../shared/corpus: Claude Code, OpenCode, Codex CLI, Gemini CLI,
 * Cursor, Aider) for the labelled queries in test/corpus/queries.json: recall@5 and MRR per query kind (keyword, topic,
 * question, paraphrase) at level 1, and for the queries with an expected turn at level 2, for each leg: keyword,
 * vector, hybrid; then the same per source (the source of a query's first expected session: rows `source:<id>` for
 * all its kinds and `source:<id>/<kind>` per kind, `turns/…` at level 2).
 * The vector and hybrid rows need a model: `--model use` (the Universal Sentence Encoder, served for the run by
 * scripts/eval/use-server.ts), `--model glove`, or a preset name or `.gguf` path (also RECALL_MODEL); without one only
 * the keyword leg is measured. `--queries <file>` evaluates another labelled set (e.g.
 * test/corpus/queries-heldout.json). The index is built in a private temp RECALL_HOME.
 * Output: one tab-separated row per group: mode, group, n, hit@1, recall@5 (hit@5; the share for the confidence
 * rows), MRR.
 */
import type { SearchMode } from "../src/search/index.ts";
import { evaluateRetrieval, type LabelledQuery, type ScoresByKind } from "./eval/evaluate.ts";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { indexCorpus, modelArgument } from "./eval/corpus-index.ts";

const queriesAt = process.argv.indexOf("--queries");
const queriesPath =
  queriesAt > 0 ? resolve(process.argv[queriesAt + 1] ?? "") : resolve(import.meta.dir, "../test/corpus/queries.json");
const queries = JSON.parse(readFileSync(queriesPath, "utf8")) as LabelledQuery[];

/**
 * One output row per kind of `scores`, in the order of `scores`: the group name is `prefix` + kind.
 * With `allName`, the `all` row is named `allName` and comes first (the per-source rows).
 */
function scoreRows(mode: SearchMode, scores: ScoresByKind, prefix: string, allName?: string): string[] {
  const entries = Object.entries(scores);
  const ordered =
    allName === undefined
      ? entries
      : [...entries.filter(([kind]) => kind === "all"), ...entries.filter(([kind]) => kind !== "all")];
  return ordered.map(([kind, score]) =>
    [
      mode,
      kind === "all" ? (allName ?? `${prefix}all`) : `${prefix}${kind}`,
      score.queries,
      score.hitAt1.toFixed(3),
      score.recallAt5.toFixed(3),
      score.mrr.toFixed(3),
    ].join("\t"),
  );
}

const corpus = await indexCorpus("eval", modelArgument());
try {
  const modes: SearchMode[] = corpus.vectorLeg ? ["keyword", "vector", "hybrid"] : ["keyword"];
  const rows: string[] = [["mode", "kind", "n", "hit@1", "recall@5 (share for confidence rows)", "MRR"].join("\t")];
  for (const mode of modes) {
    const result = await evaluateRetrieval(corpus.db, queries, mode, corpus.vectorLeg);
    rows.push(...scoreRows(mode, result.sessions, ""), ...scoreRows(mode, result.turns, "turns/"));
    const { confidence } = result;
    rows.push(
      [
        mode,
        "negatives: no confident match",
        confidence.negatives,
        "-",
        confidence.negativesUnconfident.toFixed(3),
        "-",
      ].join("\t"),
    );
    rows.push(
      [mode, "rank-1 hits: confident", confidence.rankOneHits, "-", confidence.rankOneConfident.toFixed(3), "-"].join(
        "\t",
      ),
    );
    for (const [source, levels] of Object.entries(result.sources)) {
      rows.push(...scoreRows(mode, levels.sessions, `source:${source}/`, `source:${source}`));
      rows.push(...scoreRows(mode, levels.turns, `turns/source:${source}/`, `turns/source:${source}`));
    }
    for (const error of confidence.errors) process.stderr.write(`eval (${mode}): ${error}\n`);
  }
  console.log(rows.join("\n"));
} finally {
  await corpus.close();
}
