/**
 * Issue 17: hybrid search on a real, trained model (../shared/models/glove-wink-100d-f16.gguf) over real sessions
 * (../shared/corpus, the chiphuyen__sniffly project: 19 chunks, embedded in about 2 s). Both are read-only inputs;
 * the test skips with a message when either is absent.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { openEmbedder, type Embedder } from "../../src/embed/index.ts";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { createVectorLeg, searchIndex, type TurnResult, type VectorLeg } from "../../src/search/index.ts";
import { corpusDir, hasCorpus } from "../helpers/corpus.ts";
import { hasSharedModel, sharedModelPath } from "../helpers/models.ts";

const home = mkdtempSync(join(tmpdir(), "recall-shared-model-"));
let db: Database;
let embedder: Embedder;
let leg: VectorLeg;

describe.skipIf(!hasCorpus || !hasSharedModel)(
  "hybrid search with the shared GloVe model (needs ../shared/corpus and ../shared/models)",
  () => {
    let sharedFiles: string[];
    beforeAll(async () => {
      sharedFiles = readdirSync(dirname(sharedModelPath)).sort();
      embedder = await openEmbedder({ env: {}, home, modelFlag: sharedModelPath });
      const summary = await runIndex({
        recallHome: home,
        roots: { "claude-code": [join(corpusDir, "claude-code", "chiphuyen__sniffly")], opencode: [] },
        openEmbedder: async () => embedder,
      });
      expect(summary.failedUnits).toBe(0);
      db = openIndex(databasePath(home), { readonly: true });
      leg = createVectorLeg(db, home, embedder);
    });
    afterAll(async () => {
      db?.close();
      await embedder?.dispose();
      rmSync(home, { recursive: true, force: true });
    });

    const turns = async (query: string, mode: "keyword" | "vector" | "hybrid", alpha?: number) => {
      const response = await searchIndex(db, { query, level: "turn", filters: {}, limit: 10, mode, alpha }, leg);
      return {
        response,
        keys: (response.results as TurnResult[]).map((result) => `${result.sessionId.slice(0, 8)}:${result.turn}`),
      };
    };

    test("an exact identifier that occurs in one turn ranks that turn first in hybrid mode, at any vector weight below 1", async () => {
      // `ai_music_notebook` occurs in turn 1 of d3ad4cdc only; GloVe does not know the word, so its vector leg ranks that turn 2nd.
      expect((await turns("ai_music_notebook", "vector")).keys[0]).not.toBe("d3ad4cdc:1");
      for (const alpha of [undefined, 0.5, 0.9]) {
        const { response, keys } = await turns("ai_music_notebook", "hybrid", alpha);
        expect(response.mode).toBe("hybrid");
        expect(keys[0]).toBe("d3ad4cdc:1");
      }
    });

    test("a paraphrase that shares no word with its turn finds it in the top 5 in hybrid mode, where keyword-only does not list it", async () => {
      // d3ad4cdc turn 4: "all of texts now sound the same" (and the fix: more varied instruments per text). The query
      // says it in other words; every turn keyword-only lists matches one of its words, and d3ad4cdc:4 matches none.
      const query = "every sentence yields identical tune";
      const keyword = await turns(query, "keyword");
      expect(keyword.keys.length).toBeLessThan(10); // the keyword leg listed every turn that holds a query word
      expect(keyword.keys).not.toContain("d3ad4cdc:4");
      const hybrid = await turns(query, "hybrid");
      expect(hybrid.response.mode).toBe("hybrid");
      expect(hybrid.keys.slice(0, 5)).toContain("d3ad4cdc:4");
    });

    test("loading the shared model writes nothing beside it (its hash is cached in recall's own models folder)", () => {
      expect(readdirSync(dirname(sharedModelPath)).sort()).toEqual(sharedFiles);
    });

    test("the model's calibrated vector weight, scaled by the query's semantic share, is used by default and reported", async () => {
      const sentence = await turns("which music generation notebook did we change", "hybrid");
      expect(sentence.response.semanticShare).toBe(1);
      expect(sentence.response.vectorWeight).toBe(0.05);
      expect(sentence.response.calibration).toMatchObject({ entry: "glove-wink-100d-f16", status: "fitted" });
      // Three words: two thirds of the weight; an identifier: none (keyword order, vector candidates below).
      expect((await turns("music generation notebook", "hybrid")).response.vectorWeight).toBeCloseTo(0.05 * (2 / 3), 9);
      expect((await turns("test_diverse_simple", "hybrid")).response.vectorWeight).toBe(0);
      expect((await turns("music generation notebook", "hybrid", 0.6)).response.vectorWeight).toBe(0.6);
    });

    test("confident keyword matches keep their keyword order in hybrid mode; the semantic leg only adds candidates below them", async () => {
      for (const query of ["test_diverse_simple", "model_comparison", "conda environment aie311"]) {
        const keyword = await turns(query, "keyword");
        const hybrid = await turns(query, "hybrid", 0.9);
        const confident = (keyword.response.results as TurnResult[]).filter((result) => result.confident).length;
        expect(confident).toBeGreaterThan(0);
        expect(hybrid.keys.slice(0, confident)).toEqual(keyword.keys.slice(0, confident));
      }
    });
  },
);
