/**
 * Issue 38 item 14: `recall ui`'s usage page on an index of the four usage fixtures (test/helpers/usage-index.ts): the
 * tables behind the charts hold the fixtures' numbers, the charts' data is embedded as JSON, filters narrow it, and a
 * parameter that does not parse is a one-line problem.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildUsageIndex } from "../helpers/usage-index.ts";
import { auditHtml } from "./html-audit.ts";
import { startUi, type RunningUi } from "./ui-history.ts";

let root: string;
let ui: RunningUi;
let cookie: string;
let base: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "recall-ui-usage-"));
  const recallHome = join(root, "recall-home");
  mkdirSync(recallHome, { mode: 0o700 });
  const roots = await buildUsageIndex(recallHome, root);
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    HOME: root,
    RECALL_HOME: recallHome,
    RECALL_CLAUDE_DIRS: roots["claude-code"]!.join(":"),
    RECALL_CODEX_DIRS: roots.codex!.join(":"),
    RECALL_OPENCODE_DIRS: roots.opencode!.join(":"),
    RECALL_GEMINI_DIRS: roots["gemini-cli"]!.join(":"),
    RECALL_CURSOR_DIRS: join(root, "none"),
    RECALL_AIDER_DIRS: join(root, "none"),
  };
  ui = await startUi(env, ["--no-watch"]);
  ({ cookie, base } = await ui.login());
}, 120_000);
afterAll(async () => {
  await ui?.stop();
  rmSync(root, { recursive: true, force: true });
});

async function page(query: string): Promise<string> {
  const response = await fetch(`${ui.origin}${base}/usage${query}`, { headers: { cookie }, redirect: "manual" });
  expect(response.status).toBe(200);
  return await response.text();
}

/** The cells of the table row whose first cell is `first`, in the table whose heading is `heading`. */
function row(markup: string, heading: string, first: string): string[] {
  const section = markup.split('<section class="usage-part"').find((part) => part.includes(`>${heading}</h2>`));
  const match = new RegExp(`<tr><td>${first.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}</td>(.*?)</tr>`).exec(
    section ?? "",
  );
  return match ? [first, ...[...match[1]!.matchAll(/<td>(.*?)<\/td>/g)].map((cell) => cell[1]!)] : [];
}

describe("recall ui: the usage page (issue 38 item 14)", () => {
  test("the models table: tokens once per Claude message, Codex's cumulative total, costs estimated or unpriced", async () => {
    const markup = await page("?since=2025-01-01&bucket=month");
    expect(auditHtml(markup, { form: 1 })).toEqual([]); // the filter form besides the frame's search box
    const headers = ["Turns", "Input", "Output", "Cache read", "Cache write", "Estimated", "Recorded", "Unpriced"];
    const models = (model: string) =>
      Object.fromEntries(
        row(markup, "Models used", model)
          .slice(1)
          .map((cell, i) => [headers[i], cell]),
      );
    // usage-split.jsonl: 88 + 278 + 44,544 + 16,000 tokens, 88×$3 + 278×$15 + 44,544×$0.30 + 16,000×$3.75 per million
    expect(models("claude-sonnet-4-20250514")).toEqual({
      Turns: "2",
      Input: "88",
      Output: "278",
      "Cache read": "44,544",
      "Cache write": "16,000",
      Estimated: "$0.0778",
      Recorded: "$0.0000",
      Unpriced: "0",
    });
    // the rollout's last total: 26,740 input of which 22,912 cached, 408 output
    expect(row(markup, "Models used", "gpt-5.1-codex-max")).toEqual([
      "gpt-5.1-codex-max",
      "2",
      "3,828",
      "408",
      "22,912",
      "0",
      "$0.0117",
      "$0.0000",
      "0",
    ]);
    // OpenCode's big-pickle: cost 0 recorded (read as none), no price in the table: unpriced, not $0
    expect(row(markup, "Models used", "big-pickle").at(-1)).toBe("1");
    expect(row(markup, "Tool calls by tool", "Bash")).toEqual(["Bash", "15"]);
    expect(row(markup, "Tool calls by tool", "Write")).toEqual(["Write", "2"]);
    expect(row(markup, "Sessions and turns per project", "2025-12")).toEqual(["2025-12", "agent-sample", "1", "2"]);
    const charts = JSON.parse(/<script type="application\/json" id="usage-data">(.*?)<\/script>/s.exec(markup)![1]!);
    expect(charts.tools).toEqual({
      categories: ["Bash", "Write"],
      series: [{ name: "calls", data: [15, 2] }],
      unit: "calls",
      horizontal: true,
    });
    expect(charts["cost-time"].series.map((series: { name: string }) => series.name)).toEqual([
      "estimated",
      "recorded",
    ]);
    expect(markup).toContain(`href="${base}/usage" aria-current="page">Usage</a>`);
  });

  test("filters as search: one agent, one project", async () => {
    const codex = await page("?since=2025-01-01&source=codex&bucket=day");
    expect(row(codex, "Models used", "gpt-5.1-codex-max")[1]).toBe("2");
    expect(row(codex, "Models used", "claude-sonnet-4-20250514")).toEqual([]);
    expect(row(codex, "Cost per day", "2025-12-09")).toEqual(["2025-12-09", "$0.0117", "$0.0000", "0"]);
    const music = await page("?since=2025-01-01&project=ai-music");
    expect(row(music, "Models used", "claude-sonnet-4-20250514")[1]).toBe("2");
    expect(row(music, "Models used", "gpt-5.1-codex-max")).toEqual([]);
  });

  test("a bucket or a date that does not parse is a one-line problem", async () => {
    expect(await page("?bucket=fortnight")).toContain(
      '<p class="problem" role="alert">bucket must be day, week or month',
    );
    expect(await page("?since=2026-02-30")).toContain('<p class="problem" role="alert">');
  });
});
