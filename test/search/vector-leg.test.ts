/**
 * Issue 42: the vector leg searches a store whole and looks up only its best chunks' owners (search/ranking/vector.ts),
 * instead of listing every allowed chunk before each search. It must answer what an exact filtered search answers: the
 * generated history of test/helpers/filtered-history.ts (120 sessions × 5 turns, and sub-agents of 40 of them) is
 * embedded with a generated model, and for queries at both levels, under the default filters and narrowing ones, the
 * leg's owners and scores equal those of the search it replaced: every allowed chunk listed by SQL and searched with an
 * allow-list of them. Narrowing filters that keep few sessions list their chunks at once instead of reading the store's
 * best chunks first (vector.ts `fewSessionsShare`): legs that always and never take that way answer alike.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import { type Embedder, openEmbedder } from "../../src/embed/index.ts";
import { chunkStatus, databasePath, openIndex, openLevelStore, runIndex, vectorLevels } from "../../src/index/index.ts";
import { buildIdFilter } from "../../src/native/index.ts";
import { createVectorLeg, filterSql, type SearchFilters, type VectorLeg } from "../../src/search/index.ts";
import { narrowingFilters, wordsOf, writeFilteredHistory } from "../helpers/filtered-history.ts";
import { randomStream } from "../helpers/ranking-corpus.ts";
import { getTestModelPath } from "../helpers/models.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";

const work = mkdtempSync(join(tmpdir(), "recall-vector-leg-"));
const home = join(work, "home");
const random = randomStream(11);
let db: Database;
let embedder: Embedder;
let legs: Array<[string, VectorLeg]>;

beforeAll(async () => {
  writeFilteredHistory(join(work, "claude"), random);
  // sub-agents of 40 sessions, whose chunks the default filters leave out: the whole store's best chunks are read deeper
  for (const [i, file] of readdirSync(join(work, "claude"), { recursive: true, encoding: "utf8" }).entries()) {
    if (!file.endsWith(".jsonl") || i % 3 !== 0) continue;
    const sessionId = basename(file, ".jsonl");
    writeClaudeSession(join(work, "claude", dirname(file), sessionId, "subagents", `agent-a${i}.jsonl`), {
      sessionId,
      cwd: "/home/u/agents",
      turns: Array.from({ length: 8 }, () => ({ prompt: wordsOf(random, 6), response: wordsOf(random, 20) })),
    });
  }
  embedder = await openEmbedder({ env: {}, home, modelFlag: getTestModelPath() });
  const summary = await runIndex({
    recallHome: home,
    roots: { "claude-code": [join(work, "claude")] },
    openEmbedder: async () => embedder,
  });
  expect(summary.failedUnits).toBe(0);
  db = openIndex(databasePath(home), { readonly: true });
  legs = [
    ["default", createVectorLeg(db, home, embedder)],
    ["always listing narrowing filters' chunks at once", createVectorLeg(db, home, embedder, undefined, 1)],
    ["never listing them at once", createVectorLeg(db, home, embedder, undefined, 0)],
  ];
}, 180_000);
afterAll(async () => {
  db?.close();
  await embedder?.dispose();
  rmSync(work, { recursive: true, force: true });
});

/**
 * The answer of an allow-list search (the leg before issue 42's change): each store's chunks that pass the filters,
 * listed by SQL and searched with an allow-list of them, k doubling from 2 × candidates until enough owners are found.
 */
async function oracle(query: string, level: "session" | "turn", filters: SearchFilters, candidates: number) {
  const vector = await embedder.embedQuery(query);
  const best = new Map<number, { sessionRowid: number; documentId: number; turnNumber: number; score: number }>();
  for (const storeLevel of level === "turn" ? (["turn"] as const) : vectorLevels) {
    const filter = filterSql(filters, level === "turn" ? "t.timestamp" : undefined);
    const turns =
      level === "turn" ? "JOIN turns t ON t.session_rowid = d.session_rowid AND t.number = d.turn_number" : "";
    const owners = new Map(
      db
        .query<{ id: number; session_rowid: number; document_id: number; turn_number: number }, Array<string | number>>(
          `SELECT c.id, d.session_rowid, d.id AS document_id, d.turn_number FROM chunks c
           JOIN documents d ON d.id = c.document_id JOIN sessions s ON s.id = d.session_rowid ${turns}
           WHERE c.status = ? AND d.level = ? AND ${filter.where}`,
        )
        .all(chunkStatus.embedded, storeLevel, ...filter.params)
        .map((row) => [
          row.id,
          { sessionRowid: row.session_rowid, documentId: row.document_id, turnNumber: row.turn_number },
        ]),
    );
    if (owners.size === 0) continue;
    const store = openLevelStore(home, storeLevel, embedder);
    try {
      const allow = buildIdFilter(owners.keys());
      for (let k = candidates * 2; ; k *= 2) {
        const hits = store.search(vector, k, allow);
        for (const hit of hits) {
          const owner = owners.get(hit.id)!;
          const key = level === "session" ? owner.sessionRowid : owner.documentId;
          if ((best.get(key)?.score ?? -Infinity) < hit.score) best.set(key, { ...owner, score: hit.score });
        }
        if (best.size >= candidates || hits.length < k) break;
      }
    } finally {
      store.close();
    }
  }
  return [...best.values()].sort((a, b) => b.score - a.score).slice(0, candidates);
}

describe("issue 42: the vector leg looks up only its best chunks' owners", () => {
  test("the same owners and scores as an exact filtered search, at both levels, default and narrowing filters", async () => {
    const filterSets: SearchFilters[] = [{}, { includeSubagents: true }, ...narrowingFilters(random).slice(0, 15)];
    expect(db.query<{ n: number }, []>("SELECT count(*) AS n FROM sessions WHERE is_subagent = 1").get()!.n).toBe(40);
    let compared = 0;
    for (let n = 0; n < 6; n++) {
      const query = wordsOf(random, 2 + (n % 3));
      for (const filters of filterSets)
        for (const level of ["session", "turn"] as const)
          for (const candidates of [5, 40]) {
            const expected = await oracle(query, level, filters, candidates);
            for (const [way, leg] of legs) {
              const found = await leg.search(query, level, filters, candidates);
              expect({ way, query, filters, level, candidates, found }).toEqual({
                way,
                query,
                filters,
                level,
                candidates,
                found: expected,
              });
              if (found.length > 0) compared++;
            }
          }
    }
    expect(compared).toBeGreaterThan(900);
  }, 120_000);
});
