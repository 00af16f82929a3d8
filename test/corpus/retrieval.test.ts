import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import {
  evaluateRetrieval,
  unindexedSource,
  type LabelledQuery,
  type LevelScores,
} from "../../scripts/eval/evaluate.ts";
import { allCorpusRoots, hasCorpus } from "../helpers/corpus.ts";
import queries from "./queries.json";

const home = mkdtempSync(join(tmpdir(), "recall-retrieval-"));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe.skipIf(!hasCorpus)("keyword retrieval on the real corpus (needs ../shared/corpus)", () => {
  test("queries written from real sessions find them: recall@5 and MRR floors per kind and per source, at both levels; negatives are not confident", async () => {
    // Every source of the corpus is indexed (as `bun run eval` does), so the Claude Code and OpenCode queries also
    // compete with the Codex, Gemini CLI, Cursor and Aider sessions.
    const summary = await runIndex({ recallHome: home, roots: allCorpusRoots() });
    expect(summary.failedUnits).toBe(0);
    const db = openIndex(databasePath(home), { readonly: true });
    const result = await evaluateRetrieval(db, queries as LabelledQuery[], "keyword");
    db.close();
    const line = (name: string, s: { queries: number; recallAt5: number; mrr: number }) =>
      `${name}: n=${s.queries} recall@5=${s.recallAt5.toFixed(2)} MRR=${s.mrr.toFixed(2)}`;
    const levelLines = (prefix: string, levels: LevelScores) => [
      ...Object.entries(levels.sessions).map(([kind, s]) => line(`${prefix}sessions/${kind}`, s)),
      ...Object.entries(levels.turns).map(([kind, s]) => line(`${prefix}turns/${kind}`, s)),
    ];
    const { confidence } = result;
    console.log(
      [
        ...levelLines("", result),
        ...Object.entries(result.sources).flatMap(([source, levels]) => levelLines(`${source}: `, levels)),
        `negatives answered "no confident match": ${confidence.negativesUnconfident.toFixed(2)} of ${confidence.negatives}; rank-1 hits confident: ${confidence.rankOneConfident.toFixed(2)} of ${confidence.rankOneHits}`,
      ].join("\n"),
    );
    // Keyword-answerable kinds must be found, at both levels; paraphrases (other words than the session uses) are
    // the semantic leg's job and are only reported here.
    for (const kind of ["keyword", "topic", "question"]) {
      expect(result.sessions[kind]!.recallAt5).toBeGreaterThanOrEqual(0.9);
      expect(result.sessions[kind]!.mrr).toBeGreaterThanOrEqual(0.8);
      expect(result.turns[kind]!.recallAt5).toBeGreaterThanOrEqual(0.85);
    }
    // issue 13: ranking sessions by their best turns must keep every exact-term query in the top 5.
    expect(result.sessions.keyword!.recallAt5).toBe(1);
    expect(result.turns.all!.queries).toBeGreaterThanOrEqual(40);
    // issue 13: topics absent from the corpus and lexical traps are answered "no confident match" (measured 16 of 16
    // with the committed calibration over every source); rank-1 hits stay confident (measured 81 of 88: the others are
    // paraphrases found with a third of their words or less, where most rank-1 results are wrong; confidence.ts).
    expect(confidence.negatives).toBeGreaterThanOrEqual(8);
    expect(confidence.negativesUnconfident).toBeGreaterThanOrEqual(0.8);
    expect(confidence.rankOneConfident).toBeGreaterThanOrEqual(0.85);

    // issue 11: every labelled session is in the index (a query whose first session is not indexed is grouped apart).
    expect(result.sources[unindexedSource]).toBeUndefined();
    // issue 11: the Codex and Gemini CLI cases (test/corpus/QUERIES.md) exist for each kind, and the keyword leg finds
    // their keyword and question cases. Measured: codex keyword 6/6 at rank 1 (MRR 1.00), question 6/6 in the top 5
    // (MRR 0.92: the PodGroup question ranks the Claude Code Volcano session first), every expected turn of both kinds in
    // the top 5; gemini-cli keyword 5/5 at rank 1, question 7/7 at rank 1, turns 12/12 in the top 5 (question turn MRR
    // 0.83). Floors leave room for one miss per kind and source.
    for (const source of ["codex", "gemini-cli"]) {
      const levels = result.sources[source]!;
      for (const kind of ["keyword", "paraphrase", "question"])
        expect(levels.sessions[kind]!.queries).toBeGreaterThanOrEqual(4);
      expect(levels.sessions.keyword!.recallAt5).toBe(1); // exact terms, as for the other sources
      expect(levels.sessions.keyword!.mrr).toBeGreaterThanOrEqual(0.8);
      expect(levels.sessions.question!.recallAt5).toBeGreaterThanOrEqual(0.8);
      expect(levels.sessions.question!.mrr).toBeGreaterThanOrEqual(0.75);
      for (const kind of ["keyword", "question"]) expect(levels.turns[kind]!.recallAt5).toBeGreaterThanOrEqual(0.8);
    }
  });
});
