/**
 * Issue 13: an absolute confidence per result and per answer (src/search/ranking/confidence.ts). Sessions are written as
 * Claude Code JSONL, indexed with the real indexer and searched with the real search API and CLI; the curve is the
 * committed calibration.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Database } from "bun:sqlite";
import { mkdtempSync, rmSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import {
  confidentAt,
  judgeResults,
  keywordConfidence,
  termRarities,
  termsHeldInIndex,
  type ConfidenceInput,
  type JudgeOptions,
} from "../../src/search/ranking/confidence.ts";
import { parseLexicalQuery, searchIndex, type SessionResult, type TurnResult } from "../../src/search/index.ts";
import { confidentPrefix } from "../../src/search/api.ts";
import type { Calibrations } from "../../src/search/ranking/calibration.ts";
import { fillerText, writeClaudeSession } from "../helpers/claude-writer.ts";
import { runCli } from "../helpers/cli.ts";

const work = mkdtempSync(join(tmpdir(), "recall-confidence-"));
mkdirSync(join(work, "none")); // an empty OpenCode folder: a named folder must exist (issue 15)
const claude = join(work, "claude");
const home = join(work, "home");
let db: Database;

beforeAll(async () => {
  const write = (n: number, cwd: string, turns: Array<{ prompt: string; response: string }>) =>
    writeClaudeSession(
      join(claude, "projects", `-home-u-${n}`, `${n}${n}${n}${n}${n}${n}${n}${n}-0000-4000-8000-00000000000${n}.jsonl`),
      {
        sessionId: `${n}${n}${n}${n}${n}${n}${n}${n}-0000-4000-8000-00000000000${n}`,
        cwd,
        turns,
      },
    );
  write(1, "/home/u/net", [
    {
      prompt: "the docker bridge network drops packets after the host resumes",
      response: "Recreated the bridge and pinned the MTU to 1400.",
    },
    { prompt: "now run the tests", response: fillerText(1, 20) },
  ]);
  write(2, "/home/u/api", [
    { prompt: "add a python script that exports the docker image list", response: "Wrote export_images.py." },
    { prompt: "调度器为什么卡住了", response: "队列被锁住了。" },
  ]);
  for (let n = 3; n <= 8; n++)
    write(n, `/home/u/p${n}`, [
      { prompt: `refactor the module ${fillerText(n, 8)}`, response: fillerText(n + 10, 30) },
    ]);
  const summary = await runIndex({ recallHome: home, roots: { "claude-code": [claude], opencode: [] } });
  expect(summary.failedUnits).toBe(0);
  db = openIndex(databasePath(home), { readonly: true });
});
afterAll(() => {
  db?.close();
  rmSync(work, { recursive: true, force: true });
});

/** The local index's verdicts, as the pipeline makes them (judgeResults over the terms the documents hold). */
function judge(query: string, inputs: ConfidenceInput[], model: string, options: JudgeOptions = {}) {
  const lexical = parseLexicalQuery(query);
  const held = termsHeldInIndex(db, lexical, [...new Set(inputs.map((input) => input.documentId))]);
  return judgeResults(lexical, inputs, held, termRarities(db, lexical), model, options);
}

/** `recall search <args>` over the test's history, from the source. */
const run = (args: string[]) =>
  runCli(["search", ...args, "--claude-dir", claude, "--opencode-dir", join(work, "none")], {
    ...process.env,
    RECALL_HOME: home,
    HOME: work,
    NO_COLOR: "1",
  });

const search = async (query: string, level: "session" | "turn" = "session") =>
  searchIndex(db, { query, level, filters: {}, mode: "keyword", limit: 5 });

describe("absolute confidence (issue 13)", () => {
  test("a result holding every query word is confident, with its matched terms and full coverage", async () => {
    const response = await search("docker bridge network MTU");
    const top = response.results[0] as SessionResult;
    expect(top.sessionId.startsWith("11111111")).toBe(true);
    expect(top.matchedTerms).toEqual(["docker", "bridge", "network", "mtu"]);
    expect(top.coverage).toBeCloseTo(1, 6);
    expect(top.confident).toBe(true);
    expect(top.confidence).toBeGreaterThan(0.9);
    expect(response.confident).toBe(true);
  });

  test("a lexical trap (one common word matches, the rare words are absent from the history) is not confident, yet still listed", async () => {
    const response = await search("docker swarm rolling update");
    expect(response.results.length).toBeGreaterThan(0);
    const top = response.results[0] as SessionResult;
    expect(top.matchedTerms).toEqual(["docker"]);
    expect(top.coverage).toBeLessThan(0.3);
    expect(top.confident).toBe(false);
    expect(response.confident).toBe(false);
  });

  test("the score stays relative (the top result scores 1 either way) while the confidence is absolute", async () => {
    const strong = (await search("docker bridge network MTU")).results[0]!;
    const weak = (await search("docker swarm rolling update")).results[0]!;
    expect(strong.score).toBeCloseTo(weak.score, 6);
    expect(strong.confidence - weak.confidence).toBeGreaterThan(0.5);
  });

  test("a word found nowhere weighs most: the rarer the missing word, the lower the coverage", async () => {
    const rarities = termRarities(db, parseLexicalQuery("docker zzqxflorb"));
    expect(rarities.map((rarity) => rarity.documents)).toEqual([4, 0]); // docker: two turn documents and their two session documents
    expect(rarities[1]!.idf).toBeGreaterThan(rarities[0]!.idf);
  });

  test("turns carry confidence too, and terms in an unsegmented script count when the side index holds them", async () => {
    const turns = (await search("docker bridge", "turn")).results as TurnResult[];
    expect(turns[0]!.confident).toBe(true);
    const cjk = (await search("调度器 卡住", "turn")).results as TurnResult[];
    expect(cjk[0]!.matchedTerms.length).toBe(2);
    expect(cjk[0]!.confident).toBe(true);
  });

  test("the keyword curve is monotonic, zero without evidence, and crosses the bar between a third and two thirds of the query", () => {
    expect(keywordConfidence(0)).toBe(0);
    expect(keywordConfidence(0.3)).toBeLessThan(confidentAt);
    expect(keywordConfidence(0.7)).toBeGreaterThan(confidentAt);
    expect(keywordConfidence(1)).toBeGreaterThan(keywordConfidence(0.7));
  });

  test("a vector-only candidate gets no keyword confidence from words it does not hold, and an uncalibrated model adds none", () => {
    const documentId = (
      db.query("SELECT id FROM documents WHERE level = 'turn' ORDER BY id LIMIT 1").get() as { id: number }
    ).id;
    const [verdict] = judge("zzqxflorb", [{ documentId, keywordRaw: undefined, cosine: 0.99 }], "no-such-model");
    expect(verdict).toMatchObject({ confidence: 0, confident: false, matchedTerms: [], cosine: 0.99 });
    // GloVe's cosine was calibrated and found not to separate hits from misses (stored as null): it adds nothing either.
    expect(
      judge("zzqxflorb", [{ documentId, keywordRaw: undefined, cosine: 0.99 }], "glove-wink-100d-f16")[0]!.confidence,
    ).toBe(0);
    // A model with a curve: its cosine alone can make a result confident, through that curve.
    const calibrations: Calibrations = {
      keyword: { slope: 7, intercept: -3.5 },
      default: { vectorWeight: 0.3, vector: null, note: "" },
      models: { "a-model": { status: "fitted", vectorWeight: 0.5, vector: { slope: 20, intercept: -14 }, note: "" } },
    };
    const [strong, weak] = judge(
      "zzqxflorb",
      [
        { documentId, keywordRaw: undefined, cosine: 0.9 },
        { documentId, keywordRaw: undefined, cosine: 0.5 },
      ],
      "a-model",
      { calibrations },
    );
    expect(strong!.confidence).toBeCloseTo(1 / (1 + Math.exp(-(20 * 0.9 - 14))), 9);
    expect(strong!.confident).toBe(true);
    expect(weak!.confident).toBe(false);
    // The same cosine for a query of identifiers (semantic share 0) adds nothing; for a short one, part of it.
    const withShare = (semanticShare: number) =>
      judge("zzqxflorb", [{ documentId, keywordRaw: undefined, cosine: 0.9 }], "a-model", {
        calibrations,
        semanticShare,
      })[0]!.confidence;
    expect(withShare(0)).toBe(0);
    expect(withShare(0.5)).toBeCloseTo(strong!.confidence / 2, 9);
  });

  test("the CLI says 'no confident match', marks weak results, and carries confidence and raw leg scores in JSON", () => {
    const text = run(["docker swarm rolling update", "--keyword-only", "--no-reindex"]);
    expect(text.exitCode).toBe(0);
    const out = text.stdout.toString();
    expect(out).toContain("No confident match");
    expect(out).toMatch(/\[0\.\d\d\] weak \[claude-code\]/);
    const json = JSON.parse(
      run(["docker swarm rolling update", "--keyword-only", "--no-reindex", "--json"]).stdout.toString(),
    );
    expect(json.confident).toBe(false);
    expect(json.results[0]).toMatchObject({ confident: false, matched_terms: ["docker"], cosine: null });
    expect(json.results[0].keyword_raw).toBeGreaterThan(0);
    const strong = JSON.parse(
      run([
        "docker bridge network MTU",
        "--keyword-only",
        "--no-reindex",
        "--json",
        "--format",
        "index",
      ]).stdout.toString(),
    );
    expect(strong.confident).toBe(true);
    expect(strong.results[0].confidence).toBeGreaterThan(0.9);
    expect(run(["docker bridge network MTU", "--keyword-only", "--no-reindex"]).stdout.toString()).not.toContain(
      "No confident match",
    );
  });

  test("one rule for the header, the marks and the JSON: weak below 0.50 or below a weak result; 'no confident match' exactly when the first is weak (issue 26)", () => {
    for (const query of [
      "docker",
      "docker bridge network MTU",
      "docker swarm rolling update",
      "python script",
      "network",
    ]) {
      for (const depth of ["1", "2"]) {
        const args = [query, "--keyword-only", "--no-reindex", "--depth", depth, "--limit", "8"];
        const json = JSON.parse(run([...args, "--json"]).stdout.toString());
        const text = run(args).stdout.toString();
        const marks = [...text.matchAll(/^\[(\d\.\d\d)\]( weak)? \[/gm)];
        expect(marks.map((mark) => Number(mark[1]))).toEqual(
          json.results.map((result: { confidence: number }) => Number(result.confidence.toFixed(2))),
        );
        let above = true;
        for (const [i, mark] of marks.entries()) {
          const result = json.results[i];
          above = above && result.confidence >= 0.5;
          expect(result.confident).toBe(above);
          expect(mark[2] === " weak").toBe(!result.confident);
        }
        expect(json.confident).toBe(json.results.length > 0 && json.results[0].confident);
        expect(text.includes("No confident match")).toBe(json.results.length > 0 && !json.results[0].confident);
      }
    }
  });

  test("a confident result ranked below a weak one is not a confident match: the answer has none (issue 26)", () => {
    const verdict = (confidence: number) => ({
      confidence,
      confident: confidence >= 0.5,
      matchedTerms: [],
      missingTerms: [],
      outsideDates: false,
      coverage: 0,
      keywordRaw: undefined,
      cosine: undefined,
    });
    const judged = confidentPrefix([verdict(0.9), verdict(0.4), verdict(0.7)]);
    expect(judged.map((entry) => [entry.confidence, entry.confident])).toEqual([
      [0.9, true],
      [0.4, false],
      [0.7, false],
    ]);
    expect(confidentPrefix([verdict(0.6), verdict(0.8)]).map((entry) => entry.confident)).toEqual([true, true]);
  });
});
