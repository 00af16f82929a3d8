import { describe, expect, test } from "bun:test";
import { databasePath, openIndex } from "../../src/index/index.ts";
import { readUsage } from "../../src/search/listing/usage.ts";
import { buildUsageIndex } from "../helpers/usage-index.ts";
import { tempDirs } from "../helpers/temp-dirs.ts";

const tempDir = tempDirs("recall-usage-reader-");
const range = [Date.parse("2025-01-01T00:00:00Z"), Date.parse("2026-12-31T00:00:00Z")] as const;

async function withIndex<T>(read: (db: ReturnType<typeof openIndex>) => T): Promise<T> {
  const home = tempDir();
  await buildUsageIndex(home, tempDir());
  const db = openIndex(databasePath(home), { readonly: true });
  try {
    return read(db);
  } finally {
    db.close();
  }
}

describe("usage reader (issue 38 item 14)", () => {
  test("tokens and costs per model: estimated from the table, unpriced when the model has no price", async () => {
    const report = await withIndex((db) => readUsage(db, {}, ...range, "month"));
    const models = Object.fromEntries(report.models.map((model) => [model.model, model]));
    // usage-split.jsonl: 88 + 278 + 44544 + 16000 tokens; 88×$3 + 278×$15 + 44544×$0.30 + 16000×$3.75 per million
    expect(models["claude-sonnet-4-20250514"]?.tokens).toEqual({
      input: 88,
      output: 278,
      cacheRead: 44544,
      cacheWrite: 16000,
    });
    expect(Math.round(models["claude-sonnet-4-20250514"]!.cost.estimated * 1e7)).toBe(777_972);
    // the Codex rollout's last total: 26740 input (22912 cached), 408 output; 3828×$1.25 + 408×$10 + 22912×$0.125
    expect(models["gpt-5.1-codex-max"]?.tokens).toEqual({ input: 3828, output: 408, cacheRead: 22912, cacheWrite: 0 });
    expect(Math.round(models["gpt-5.1-codex-max"]!.cost.estimated * 1e6)).toBe(11_729);
    // the Gemini chat: 23896 uncached input, 677 output with thoughts, 43377 cached; ×$0.30, $2.50, $0.03
    expect(models["gemini-2.5-flash"]?.tokens).toEqual({ input: 23896, output: 677, cacheRead: 43377, cacheWrite: 0 });
    expect(Math.round(models["gemini-2.5-flash"]!.cost.estimated * 1e8)).toBe(1_016_261);
    // OpenCode recorded cost 0 for big-pickle (read as none) and the table has no price: unpriced, not $0
    expect(models["big-pickle"]?.cost).toEqual({ recorded: 0, estimated: 0, unpriced: 1 });
    expect(report.totals.cost.unpriced).toBe(1);
    expect(report.totals.turns).toBe(7); // 2 Claude + 2 Codex + 2 Gemini + 1 OpenCode
  });

  test("sessions and turns per project and month, every month between the first and the last", async () => {
    const report = await withIndex((db) => readUsage(db, {}, ...range, "month"));
    expect(report.buckets[0]).toBe("2025-06");
    expect(report.buckets.at(-1)).toBe("2026-01");
    expect(report.buckets.length).toBe(8);
    const codex = report.projects.find((project) => project.key === "/Users/test_user/agent-sample");
    expect(codex?.sessions[report.buckets.indexOf("2025-12")]).toBe(1);
    expect(codex?.turns[report.buckets.indexOf("2025-12")]).toBe(2);
    expect(codex?.turns.reduce((sum, n) => sum + n, 0)).toBe(2);
    // the Gemini chat's hash folder names no project path: the sessions without one are a project of their own
    expect(report.projects.find((project) => project.key === "")?.totalTurns).toBe(2);
    expect(report.perBucket[report.buckets.indexOf("2025-06")]?.tokens.output).toBe(278);
  });

  test("filters as search: an agent, a project, a since date", async () => {
    const codex = await withIndex((db) => readUsage(db, { source: "codex" }, ...range, "day"));
    expect(codex.models.map((model) => model.model)).toEqual(["gpt-5.1-codex-max"]);
    expect(codex.buckets).toEqual(["2025-12-09"]);
    const music = await withIndex((db) => readUsage(db, { project: "ai-music" }, ...range, "week"));
    expect(music.models.map((model) => model.model)).toEqual(["claude-sonnet-4-20250514"]);
    expect(music.totals.turns).toBe(2);
    const since = await withIndex((db) =>
      readUsage(db, { since: Date.parse("2026-01-01T00:00:00Z") }, ...range, "day"),
    );
    expect(since.models.map((model) => model.model)).toEqual(["big-pickle"]);
  });

  test("tool calls per tool name, as the turns store them, most first", async () => {
    const [report, stored] = await withIndex((db) => [
      readUsage(db, {}, ...range, "day"),
      db.query<{ tools: string }, []>("SELECT tools FROM turns").all(),
    ]);
    const counted = new Map<string, number>();
    for (const { tools } of stored)
      for (const call of JSON.parse(tools) as Array<{ name: string }>)
        counted.set(call.name, (counted.get(call.name) ?? 0) + 1);
    expect(report.tools).toEqual([
      { name: "Bash", calls: counted.get("Bash")! },
      { name: "Write", calls: counted.get("Write")! },
    ]);
    expect(report.tools).toEqual([
      { name: "Bash", calls: 15 },
      { name: "Write", calls: 2 },
    ]);
  });
});
