/**
 * Bench (issue 42, speed at every size): a warm hybrid search at 20,000 generated sessions, in process, beside the same
 * keyword search, so the vector leg's cost at scale has rows of its own (the other benches search keyword-only there).
 * The corpus is scripts/gen-corpus.ts's (lib.ts `ensureGeneratedCorpus`); it is indexed once with every chunk embedded
 * by {@link hashEmbedder}, a stand-in for a model: a deterministic unit vector of `--dims` (default 384, the width of
 * bge-small and all-MiniLM) from each text's hash. Its vectors mean nothing, so the rankings are not measured here,
 * only what a search costs: the int8 scan of every stored vector, the owners' lookup, fusion and hydration. The query
 * embedding is the stand-in's too (a model's takes what scripts/bench/hybrid-cold.ts measures). Embedding the ~220k
 * chunks of 20k sessions with a real model here would take hours; the hash takes ~20 s.
 * The index is kept in ~/.cache/recall-bench/hybrid-v<version>-<sessions>-<dims>/ (a RECALL_HOME; ~1.6 GB at 20k,
 * 384 dims) and made again when its `.complete` marker is missing.
 * Rows, p50 over `--runs` rounds of lib.ts `typedQueries` (one unmeasured round first), each with its keyword twin
 * (`keyword.search.warm.<name>`): hybrid.search.warm.{session, turn, project, turn_since}.scaled-<sessions>
 *   project      level 1, `--project` the smallest project (as index-search.ts filters)
 *   turn_since   level 2, `--since` the day from which the newest ~2% of sessions ran
 * Usage: bun scripts/bench/hybrid-scale.ts [--sessions 20000] [--dims 384] [--runs 3]
 */
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fingerprintString, type Embedder, type ModelFingerprint } from "../../src/embed/types.ts";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { isoLocalDate } from "../../src/search/dates/calendar.ts";
import { searchIndex, type SearchFilters } from "../../src/search/index.ts";
import { openVectorLeg } from "../../src/service/vector-leg.ts";
import { argValue, benchCacheDir, ensureGeneratedCorpus, narrowFilterValues, report, typedQueries } from "./lib.ts";

const sessions = argValue("--sessions", 20_000);
const dims = argValue("--dims", 384);
const runs = argValue("--runs", 3);
/** Version of the cached index: a new one when what it holds changes (the stand-in, the corpus). */
const cachedIndexVersion = 1;

/**
 * A stand-in embedding model of `width` dimensions: each text's vector is a unit vector drawn from its FNV-1a hash
 * (every 7th UTF-16 unit; then a multiply-xorshift stream per dimension), so the same text always gets the same vector.
 * Tokens are counted as characters / 4. It never fails.
 */
function hashEmbedder(width: number): Embedder {
  const vectorOf = (text: string): Float32Array => {
    let state = 2166136261;
    for (let i = 0; i < text.length; i += 7) state = Math.imul(state ^ text.charCodeAt(i), 16777619);
    const vector = new Float32Array(width);
    let norm = 0;
    for (let i = 0; i < width; i++) {
      state = Math.imul(state ^ (state >>> 15), 2246822519) ^ i;
      const value = (state >>> 0) / 4294967296 - 0.5;
      vector[i] = value;
      norm += value * value;
    }
    norm = Math.sqrt(norm);
    for (let i = 0; i < width; i++) vector[i]! /= norm;
    return vector;
  };
  const fingerprint: ModelFingerprint = {
    name: "bench-hash",
    fileHash: "0".repeat(64),
    dims: width,
    pooling: "mean",
    queryPrefix: "",
    documentPrefix: "",
  };
  return {
    fingerprint,
    fingerprintKey: fingerprintString(fingerprint),
    dims: width,
    contextTokens: 512,
    parallelTexts: 256,
    countTokens: (text) => Math.ceil(text.length / 4),
    embedDocuments: async (texts) => texts.map(vectorOf),
    embedQuery: async (text) => vectorOf(text),
    dispose: async () => {},
  };
}

const embedder = hashEmbedder(dims);
const corpus = ensureGeneratedCorpus(sessions);
const home = join(benchCacheDir, `hybrid-v${cachedIndexVersion}-${sessions}-${dims}`);
if (!existsSync(join(home, ".complete"))) {
  rmSync(home, { recursive: true, force: true });
  const started = performance.now();
  const summary = await runIndex({
    recallHome: home,
    roots: { "claude-code": [join(corpus, "projects")], opencode: [join(corpus, "opencode")] },
    openEmbedder: async () => embedder,
  });
  if (summary.failedUnits > 0 || (summary.embedding?.failed ?? 0) > 0)
    throw new Error(`indexing the bench corpus failed: ${JSON.stringify(summary)}`);
  process.stderr.write(
    `hybrid-scale: indexed ${summary.added} sessions, ${summary.embedding?.embedded ?? 0} chunks embedded in ${((performance.now() - started) / 1000).toFixed(1)} s\n`,
  );
  writeFileSync(join(home, ".complete"), "");
}

const db = openIndex(databasePath(home), { readonly: true });
const { leg, notice } = await openVectorLeg(db, home, { open: async () => embedder });
if (!leg) throw new Error(`no vector leg on the bench index: ${notice}`);
const narrow = narrowFilterValues(db);
const smallestProject = narrow.project!;
const since = new Date(narrow.since!);
since.setHours(0, 0, 0, 0); // the local day, as `--since <date>` reads it
const searches: Array<{ name: string; level: "session" | "turn"; filters: SearchFilters; filter?: string }> = [
  { name: "session", level: "session", filters: {} },
  { name: "turn", level: "turn", filters: {} },
  { name: "project", level: "session", filters: { project: smallestProject }, filter: `--project ${smallestProject}` },
  {
    name: "turn_since",
    level: "turn",
    filters: { since: since.getTime() },
    filter: `--depth 2 --since ${isoLocalDate(since.getTime())}`,
  },
];
for (const { name, level, filters, filter } of searches) {
  for (const mode of ["keyword", "hybrid"] as const) {
    const times: number[] = [];
    for (let round = 0; round <= runs; round++)
      for (const query of typedQueries) {
        const started = performance.now();
        await searchIndex(db, { query, level, filters, mode }, leg);
        if (round > 0) times.push(performance.now() - started); // round 0 warms the statements
      }
    report(`${mode}.search.warm.${name}.scaled-${sessions}`, times, { dims, ...(filter ? { filter } : {}) });
  }
}
db.close();
