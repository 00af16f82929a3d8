import { afterAll, describe, expect, test } from "bun:test";
import { Database } from "bun:sqlite";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { databasePath } from "../../src/index/index.ts";
import { getTestModelPath } from "../helpers/models.ts";
import { runCli } from "../helpers/cli.ts";

const repo = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "recall-hybrid-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const examples = [
  "--claude-dir",
  join(repo, "examples/claude-code"),
  "--opencode-dir",
  join(repo, "examples/opencode"),
];
const model = getTestModelPath();
const otherModel = getTestModelPath({ seed: 7 });

function recall(args: string[], home: string, extraEnv: Record<string, string> = {}) {
  const {
    exitCode: code,
    stdout,
    stderr,
  } = runCli([...args], { ...process.env, RECALL_HOME: home, HOME: work, ...extraEnv });
  return { code, stdout, stderr };
}

const home = join(work, "home");

describe("hybrid search with a generated model", () => {
  test("index embeds every document; status shows no pending chunk", () => {
    const indexed = recall(["index", ...examples, "--model", model, "--json"], home);
    expect(indexed.code).toBe(0);
    expect(JSON.parse(indexed.stdout).added).toBe(13);
    const status = JSON.parse(recall(["status", "--json", ...examples], home).stdout);
    expect(status.chunks.pending).toBe(0);
    expect(status.chunks.failed).toBe(0);
    expect(status.chunks.embedded).toBeGreaterThanOrEqual(13 + 43);
  });

  test("--vector-only with a query equal to a turn document's text finds that turn first", () => {
    const db = new Database(databasePath(home), { readonly: true });
    const row = db
      .query(
        "SELECT s.session_id, d.turn_number, c.text FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sessions s ON s.id = d.session_rowid WHERE d.level = 'turn' AND s.is_subagent = 0 ORDER BY d.id LIMIT 1 OFFSET 7",
      )
      .get() as { session_id: string; turn_number: number; text: string };
    db.close();
    const result = recall(
      ["search", row.text, "--depth", "2", "--vector-only", "--json", "--model", model, ...examples],
      home,
    );
    expect(result.code).toBe(0);
    const response = JSON.parse(result.stdout);
    expect(response.mode).toBe("vector");
    expect(response.results[0]).toMatchObject({ session_id: row.session_id, turn: row.turn_number });
    expect(response.results[0].vector_score).toBe(1);
  });

  test("hybrid results carry both leg scores; the fused score follows alpha below the confident keyword tier (issue 17)", () => {
    const result = recall(
      ["search", "refresh token 401 after idle", "--json", "--alpha", "0.7", "--model", model, ...examples],
      home,
    );
    const response = JSON.parse(result.stdout);
    expect(response.mode).toBe("hybrid");
    expect(response.results.length).toBeGreaterThan(1);
    for (const hit of response.results) {
      const blend = 0.7 * (hit.vector_score ?? 0) + 0.3 * (hit.keyword_score ?? 0);
      // confident keyword matches take 0.5-1 in keyword order (vector 0.1 as a tie-break); the rest take half the blend
      const expected =
        hit.confident && hit.keyword_score !== null
          ? 0.5 + (0.5 * (hit.keyword_score + 0.1 * (hit.vector_score ?? 0))) / 1.1
          : 0.5 * blend;
      expect(hit.score).toBeCloseTo(expected, 3);
    }
  });

  test("--explain names each hybrid result's tier and its fused score matches the ranking's", () => {
    const response = JSON.parse(
      recall(["search", "refresh token 401 after idle", "--json", "--explain", "--model", model, ...examples], home)
        .stdout,
    );
    expect(response.mode).toBe("hybrid");
    const tiers = new Set(response.results.map((hit: { explain: { tier: string } }) => hit.explain.tier));
    expect([...tiers].every((tier) => tier === "confident keyword match" || tier === "blend")).toBe(true);
    for (const hit of response.results)
      if (hit.explain.boosts.length === 0) expect(hit.explain.blended).toBeCloseTo(hit.score, 3);
    // The generated model has no calibration: the conservative default ranked it, and --explain says so.
    expect(response.results[0].explain).toMatchObject({
      calibration: "default (default)",
      semantic_share: 1,
      vector_weight: 0.3,
    });
    const text = recall(["search", "refresh token 401 after idle", "--explain", "--model", model, ...examples], home);
    expect(text.stderr).toContain("calibration default (default), semantic share 1");
  });

  test("filters apply before the top-k cut: a project filter still fills the limit with that project only", () => {
    const response = JSON.parse(
      recall(
        [
          "search",
          "fix the bug",
          "--vector-only",
          "--depth",
          "2",
          "--project",
          "shop-api",
          "--limit",
          "8",
          "--json",
          "--model",
          model,
          ...examples,
        ],
        home,
      ).stdout,
    );
    expect(response.results.length).toBe(8);
    for (const hit of response.results) expect(hit.project).toBe("shop-api");
  });

  test("a search with a different model than the vectors falls back to keyword-only and says why", () => {
    const result = recall(["search", "websocket leak", "--json", "--model", otherModel, ...examples], home);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).mode).toBe("keyword");
    expect(result.stderr).toContain("built with another model");
  });

  test("indexing with another model re-embeds everything with a clear notice", () => {
    const copy = join(work, "home-model-change");
    recall(["index", ...examples, "--model", model], copy);
    const changed = recall(["index", ...examples, "--model", otherModel], copy);
    expect(changed.code).toBe(0);
    expect(changed.stderr).toContain("the embedding model changed");
    expect(
      JSON.parse(recall(["search", "websocket leak", "--json", "--model", otherModel, ...examples], copy).stdout).mode,
    ).toBe("hybrid");
  });

  test("offline without a model, index stays keyword-only and says so in one line", () => {
    const offline = join(work, "home-offline");
    const result = recall(["index", ...examples], offline, { RECALL_OFFLINE: "1" });
    expect(result.code).toBe(0);
    const notices = result.stderr.split("\n").filter((line) => line.includes("keyword-only"));
    expect(notices.length).toBe(1);
    expect(
      JSON.parse(recall(["search", "websocket leak", "--json", ...examples], offline, { RECALL_OFFLINE: "1" }).stdout)
        .mode,
    ).toBe("keyword");
  });
});
