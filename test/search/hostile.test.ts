import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EmbedError, UsageError } from "../../src/errors.ts";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { searchIndex } from "../../src/search/index.ts";
import { embeddableQueryText } from "../../src/search/ranking/query.ts";
import type { VectorLeg } from "../../src/search/api.ts";
import { generateHostileQueries, identifierQueries } from "../fixtures/hostile-queries.ts";
import { repo, runCli } from "../helpers/cli.ts";

const home = mkdtempSync(join(tmpdir(), "recall-hostile-"));
const roots = { "claude-code": [join(repo, "examples/claude-code")], opencode: [join(repo, "examples/opencode")] };
let db: Database;

beforeAll(async () => {
  await runIndex({ recallHome: home, roots });
  db = openIndex(databasePath(home), { readonly: true });
});
afterAll(() => {
  db.close();
  rmSync(home, { recursive: true, force: true });
});

describe("hostile queries", () => {
  const queries = generateHostileQueries(600, 1);

  test("600 generated hostile queries search at both levels without throwing (one with nothing visible is a usage error)", async () => {
    expect(queries.length).toBeGreaterThanOrEqual(500);
    let searched = 0;
    for (const query of queries) {
      for (const level of ["session", "turn"] as const) {
        try {
          const response = await searchIndex(db, { query, level, filters: {}, mode: "keyword" });
          expect(Array.isArray(response.results)).toBe(true);
          searched++;
        } catch (error) {
          // Only a query with nothing visible may be refused, and only as a usage error.
          expect(error).toBeInstanceOf(UsageError);
          expect(embeddableQueryText(query)).toBeNull();
        }
      }
    }
    expect(searched).toBeGreaterThan(900);
  });

  test("through the CLI, hostile queries exit 0 (or 2 when empty) and never print a stack trace", () => {
    // Command-line arguments cannot carry NUL bytes (an OS rule), so those inputs are only tested in process above.
    const sample = queries.filter((query, index) => index % 25 === 0 && !query.includes("\u0000"));
    for (const query of sample) {
      const result = runCli(
        [
          "search",
          query,
          "--json",
          "--no-reindex",
          "--claude-dir",
          roots["claude-code"][0]!,
          "--opencode-dir",
          roots.opencode[0]!,
        ],
        { ...process.env, RECALL_HOME: home },
      );
      const stderr = result.stderr;
      expect(stderr).not.toMatch(/\n\s+at .*:\d+:\d+/);
      expect(stderr).not.toContain("unexpected error");
      if (result.exitCode === 0) expect(JSON.parse(result.stdout).results).toBeArray();
      else expect(result.exitCode).toBe(2);
    }
  });

  test("exact identifiers from the example history find their session first", async () => {
    expect(identifierQueries.length).toBeGreaterThan(10);
    const misses: string[] = [];
    for (const { query, sessionId } of identifierQueries) {
      const response = await searchIndex(db, {
        query,
        level: "session",
        filters: { includeSubagents: true },
        mode: "keyword",
      });
      const first = (response.results as Array<{ sessionId: string }>)[0]?.sessionId;
      if (first !== sessionId) misses.push(`${query} → ${first ?? "nothing"} (expected ${sessionId})`);
    }
    expect(misses).toEqual([]);
  });

  test("a natural-language question still finds the session when not every word occurs", async () => {
    const response = await searchIndex(db, {
      query: "how did we fix the failing login test?",
      level: "session",
      filters: {},
      mode: "keyword",
    });
    expect((response.results as Array<{ sessionId: string }>)[0]?.sessionId).toBe(
      "f7dd9101-a59e-4327-a0b0-db9c860b0a97",
    );
  });

  test("issue 9 and issue 38 (item 16): a query of only invisible characters is a usage error and never reaches the embedder", async () => {
    // Stands in for the vector leg: records what it is asked to embed and fails on text with nothing
    // visible, as llama.cpp and remote endpoints did (EMBED_FAILED) before queries were normalized.
    const asked: string[] = [];
    const leg: VectorLeg = {
      async search(query) {
        asked.push(query);
        if (!/[\p{L}\p{N}\p{S}\p{P}]/u.test(query))
          throw new EmbedError("EMBED_FAILED", "query embedding failed: empty input");
        return [];
      },
    };
    for (const query of ["\u200b", "\u200b\u200b\ufeff", "\u202e\u2066\u00ad", " \u200b ", "\ufffd\ufffd"]) {
      for (const mode of ["hybrid", "vector", "keyword"] as const) {
        const search = searchIndex(db, { query, level: "session", filters: {}, mode }, leg);
        await expect(search).rejects.toThrow(UsageError);
        await expect(search).rejects.toThrow("the search query is empty: it has no visible characters");
      }
    }
    expect(asked).toEqual([]);
    const response = await searchIndex(
      db,
      { query: "login\u200b test\ufeff", level: "session", filters: {}, mode: "hybrid" },
      leg,
    );
    expect(response.mode).toBe("hybrid");
    expect(asked).toEqual(["login test"]);
    expect(response.results.length).toBeGreaterThan(0);
  });
});
