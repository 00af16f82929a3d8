/**
 * Bench (issue 42): the keyword index's tokens computed in TypeScript (src/index/tokens/keyword-tokens.ts), which the
 * team archive's push and search use and own postings would need at index time, against SQLite's FTS5 making the
 * same tokens (one in-memory FTS5 row per document, read back through fts5vocab `instance`: what the archive did
 * before). Input: every searched column of every document of the real corpus, indexed keyword-only as `bun run eval`
 * indexes it (scripts/eval/corpus-index.ts) and read back as the archive's push reads it (loadDocumentTexts).
 *   keyword-tokens.typescript   p50_ms per pass over all documents {mb_per_s, tokens, megabytes}
 *   keyword-tokens.fts5         the same through FTS5 (test/helpers/fts5-tokens.ts) {mb_per_s, tokens, megabytes}
 * Both must give the same token count (the exact tokens are the tests' job: test/index/tokens). Options: --runs N (5).
 */
import { keywordTokens } from "../../src/index/tokens/keyword-tokens.ts";
import { loadDocumentTexts } from "../../src/index/write/documents.ts";
import { fts5Tokens } from "../../test/helpers/fts5-tokens.ts";
import { indexCorpus } from "../eval/corpus-index.ts";
import { argValue, report } from "./lib.ts";

const runs = argValue("--runs", 5);
const corpus = await indexCorpus("bench-keyword-tokens", undefined);
const ids = corpus.db
  .query<{ id: number }, []>("SELECT id FROM documents ORDER BY id")
  .all()
  .map((row) => row.id);
const columns = [...loadDocumentTexts(corpus.db, ids).values()].flatMap((d) => [
  d.heading,
  d.body,
  d.extra,
  d.abstract,
]);
await corpus.close();
const megabytes = columns.reduce((sum, text) => sum + Buffer.byteLength(text), 0) / 1e6;

function measure(name: string, pass: () => number): void {
  const samples: number[] = [];
  let tokens = 0;
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    tokens = pass();
    samples.push(performance.now() - started);
  }
  const p50 = samples.toSorted((a, b) => a - b)[Math.floor(samples.length / 2)]!;
  report(name, samples, {
    mb_per_s: Math.round((megabytes / (p50 / 1000)) * 10) / 10,
    tokens,
    megabytes: Math.round(megabytes * 10) / 10,
  });
}

measure("keyword-tokens.typescript", () => columns.reduce((sum, text) => sum + keywordTokens(text).length, 0));
measure("keyword-tokens.fts5", () => fts5Tokens(columns).reduce((sum, tokens) => sum + tokens.length, 0));
