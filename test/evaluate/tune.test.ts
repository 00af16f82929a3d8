/**
 * `recall eval` and `--tune` from the command line (issue 43), on generated Claude Code histories indexed with a
 * generated embedding model: the report's shape, the 50-label floor, a history where tuning cannot help (nothing
 * stored, the held-out half not worse), and a stored tuning that searches use and `--explain` and `doctor` name.
 */
import { describe, expect, test } from "bun:test";
import { basename, join } from "node:path";
import { storeTuning } from "../../src/evaluate/index.ts";
import { databasePath, openIndex } from "../../src/index/index.ts";
import type { Tuning } from "../../src/search/ranking/tuning.ts";
import { writeClaudeSession } from "../helpers/claude-writer.ts";
import { runCli } from "../helpers/cli.ts";
import { getTestModelPath } from "../helpers/models.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";

const tempDir = tempDirs("recall-eval-tune-");
const model = getTestModelPath();
/** The generated model's name as its fingerprint records it (its file's base name). */
const modelName = basename(model, ".gguf");

const first = ["amber", "basalt", "cobalt", "dune", "ember", "fjord", "glacier", "harbor", "indigo", "juniper"];
const second = ["lantern", "meadow", "nebula", "orchard", "prism", "quarry", "ripple", "summit"];
const third = ["ledger", "parser", "router", "scheduler", "uploader", "watcher"];

/**
 * A history of `count` sessions, each committing "Repair the <a> <b> <c>" after a prompt that names <a> <b> <c>: a
 * triple no other session holds, so keyword search finds every label first and confidently, whatever the weight.
 * With `echo`, the second prompt says the commit message itself ("repair the <a> <b> <c> please"): that copy is
 * withheld, and the sessions that share two of the words and hold "repair" in their own commits often come first, still
 * confidently (the committed keyword curve trusts 3 of 4 words).
 */
function writeHistory(root: string, count: number, echo = false): string {
  const claude = join(root, "claude");
  for (let index = 0; index < count; index++) {
    const words = `${first[index % first.length]} ${second[index % second.length]} ${third[index % third.length]}`;
    const id = `${String(index).padStart(8, "0")}-0000-4000-8000-000000000000`;
    writeClaudeSession(join(claude, `-work-p${index % 5}`, `${id}.jsonl`), {
      sessionId: id,
      cwd: `/work/p${index % 5}`,
      startMs: Date.UTC(2026, 1, 1) + index * 3_600_000,
      turns: [
        { prompt: `the ${words} fails on start`, response: `The ${words} reads a missing file.` },
        {
          prompt: echo ? `repair the ${words} please` : "please fix it now",
          response: "Fixed and committed.",
          tools: [{ name: "Bash", input: { command: `git commit -am "fix: Repair the ${words}"` }, output: "ok" }],
        },
      ],
    });
  }
  return claude;
}

function recall(args: readonly string[], home: string, claude: string) {
  return runCli([...args, "--claude-dir", claude], { ...process.env, RECALL_HOME: home, HOME: home });
}

describe("recall eval from the command line (issue 43)", () => {
  test("--json: one object with the scores per kind and level, keyword-only beside hybrid", () => {
    const root = tempDir();
    const claude = writeHistory(root, 6);
    const run = recall(["eval", "--json", "--model", model], join(root, "home"), claude);
    expect(run.exitCode).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report).toMatchObject({ version: 1, queries: 6, mode: "hybrid", tuning: null });
    for (const scores of [
      report,
      report.kinds.commit,
      report.turns,
      report.keyword_only,
      report.keyword_only.kinds.commit,
    ])
      expect(Object.keys(scores)).toEqual(
        expect.arrayContaining(["queries", "recall_at_1", "recall_at_5", "recall_at_10", "mrr", "confident_rank1"]),
      );
    expect(report.keyword_only.recall_at_1).toBe(1);
    expect(report.keyword_only.confident_rank1).toBe(1);
    expect(report.labels[0]).toEqual({
      kind: "commit",
      query: expect.stringMatching(/^Repair the /),
      sessions: [expect.any(String)],
      rank: 1,
      turn_rank: expect.any(Number),
    });
  }, 60_000);

  test("--tune needs 50 labels, and cannot be given with --reset", () => {
    const root = tempDir();
    const claude = writeHistory(root, 6);
    const few = recall(["eval", "--tune"], join(root, "home"), claude);
    expect(few.exitCode).toBe(1);
    expect(few.stderr).toContain("tuning needs at least 50 labelled queries, and this history gave 6");
    const both = recall(["eval", "--tune", "--reset"], join(root, "home"), claude);
    expect(both.exitCode).toBe(2);
    expect(both.stderr).toContain("give --tune or --reset, not both");
  }, 60_000);

  test("where tuning cannot help, it stores nothing and the held-out half is not worse", () => {
    const root = tempDir();
    const home = join(root, "home");
    const claude = writeHistory(root, 60);
    const run = recall(["eval", "--tune", "--json", "--model", model], home, claude);
    expect(run.exitCode).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.queries).toBe(60);
    expect(report.fitting_queries + report.held_out_queries).toBe(60);
    expect(report.mode).toBe("hybrid");
    expect(report.kept).toBe(false);
    for (const key of ["recall_at_5", "mrr", "turn_mrr", "confidence_accuracy"])
      expect(report.after[key]).toBeGreaterThanOrEqual(report.before[key]);
    expect(report.before.recall_at_5).toBe(1);
    const doctor = recall(["doctor", "--json", "--model", model], home, claude);
    const tuning = JSON.parse(doctor.stdout).checks.find((check: { id: string }) => check.id === "tuning");
    expect(tuning.message).toContain("no tuning of your own");
  }, 60_000);

  test("where confident answers are often wrong, a stricter keyword curve is kept, and searches use it", () => {
    const root = tempDir();
    const home = join(root, "home");
    const claude = writeHistory(root, 60, true);
    const run = recall(["eval", "--tune", "--json", "--keyword-only"], home, claude);
    expect(run.exitCode).toBe(0);
    const report = JSON.parse(run.stdout);
    expect(report.mode).toBe("keyword");
    expect(report.weight).toBeNull();
    expect(report.kept).toBe(true);
    expect(report.after.confidence_accuracy).toBeGreaterThan(report.before.confidence_accuracy);
    for (const key of ["recall_at_5", "mrr", "turn_mrr"]) expect(report.after[key]).toBe(report.before[key]);
    // stricter than the committed curve: p = 0.5 at a higher coverage
    expect(-report.keyword_curve.intercept / report.keyword_curve.slope).toBeGreaterThan(3.4406 / 7.2093);
    const search = recall(["search", "amber lantern ledger", "--explain", "--keyword-only"], home, claude);
    expect(search.stderr).toContain("explain: ranked with your own tuning of");
    expect(search.stderr).toContain("a stricter keyword confidence curve");
  }, 60_000);

  test("a stored tuning is what searches rank with, and --explain, doctor and eval say so; --reset removes it", () => {
    const root = tempDir();
    const home = join(root, "home");
    const claude = writeHistory(root, 6);
    expect(recall(["index", "--model", model], home, claude).exitCode).toBe(0);
    const tuning: Tuning = {
      version: 1,
      model: modelName,
      vectorWeight: 0.05,
      keyword: null,
      tunedAt: Date.UTC(2026, 10, 29),
      labels: 80,
      heldOutQueries: 40,
      before: { recallAt5: 0.7, mrr: 0.5 },
      after: { recallAt5: 0.75, mrr: 0.55 },
    };
    const db = openIndex(databasePath(home));
    storeTuning(db, tuning);
    db.close();
    const search = recall(
      ["search", "why does the amber lantern ledger fail", "--json", "--explain", "--model", model],
      home,
      claude,
    );
    expect(search.exitCode).toBe(0);
    const response = JSON.parse(search.stdout);
    expect(response.mode).toBe("hybrid");
    expect(response.results[0].explain.calibration).toBe(`${modelName} (tuned)`);
    expect(response.results[0].explain.tuning).toContain("of 2026-11-29 by recall eval --tune (vector weight 0.05");
    const text = recall(
      ["search", "why does the amber lantern ledger fail", "--explain", "--model", model],
      home,
      claude,
    );
    expect(text.stderr).toContain("explain: ranked with your own tuning of 2026-11-29");
    const doctor = JSON.parse(recall(["doctor", "--json", "--model", model], home, claude).stdout);
    expect(doctor.checks.find((check: { id: string }) => check.id === "tuning").message).toContain(
      "recall@5 0.700 → 0.750",
    );
    expect(recall(["eval", "--model", model], home, claude).stdout).toContain(
      "ranked with your own tuning of 2026-11-29",
    );
    const reset = recall(["eval", "--reset"], home, claude);
    expect(reset.stdout).toBe("removed your tuning: searches use the committed calibration\n");
    const after = JSON.parse(
      recall(["search", "amber lantern ledger", "--json", "--explain", "--model", model], home, claude).stdout,
    );
    expect(after.results[0].explain.tuning).toBeNull();
  }, 60_000);
});
