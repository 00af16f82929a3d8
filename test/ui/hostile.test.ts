/**
 * Issue 37: every vector of the hostile corpus (hostile-corpus.ts), planted in a session's title, prompt, answer, tool
 * input and output, Edit and Write diffs, project path and branch, rendered on every page that shows session text:
 * the search page (results, facets, matching turns), the session page, the `/turns` fragment a growing page fetches,
 * the activity page and its day list, and the usage page (the vector is also each session's model and a tool name).
 * Each answer is parsed (html-audit.ts): no element outside the pages' tags, no `on…` or `style` attribute, no URL with
 * a scheme other than http, https or mailto, no control character.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestSession } from "../helpers/claude-writer.ts";
import { auditHtml } from "./html-audit.ts";
import { hostileVectors } from "./hostile-corpus.ts";
import { prepareUiHistory, startUi, type RunningUi } from "./ui-history.ts";

/** The id of the session that carries vector `index`. */
const idOf = (index: number) => `7b2c3d4e-0000-4000-8000-${String(index).padStart(12, "0")}`;

/** A session with `vector` in every field a page shows. */
function hostileSession(webapp: string, vector: string, index: number): TestSession {
  // A project path is one folder name in Claude Code's layout (slashes become dashes): keep it under 255 bytes.
  const cwd = `${webapp}/p${index}-${vector.slice(0, 40)}`;
  return {
    sessionId: idOf(index),
    cwd,
    gitBranch: vector,
    startMs: Date.now() - (index + 1) * 60_000,
    title: vector,
    model: vector,
    turns: [
      {
        prompt: `zebraword ${vector}`,
        response: vector,
        tools: [
          { name: "Bash", input: { command: vector }, output: vector },
          {
            name: "Edit",
            input: { file_path: `${cwd}/a.ts`, old_string: vector, new_string: `${vector}\nnext` },
            output: vector,
          },
          { name: "Write", input: { file_path: `${cwd}/b.md`, content: vector }, output: vector },
          { name: vector, input: { value: vector }, output: vector },
        ],
      },
    ],
  };
}

let root: string;
let ui: RunningUi;
let cookie: string;
let base: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "recall-ui-hostile-"));
  const history = prepareUiHistory(root, (webapp) =>
    hostileVectors.map((vector, index) => hostileSession(webapp, vector, index)),
  );
  ui = await startUi(history.env, ["--no-watch"]);
  ({ cookie, base } = await ui.login());
}, 120_000);
afterAll(async () => {
  await ui?.stop();
  rmSync(root, { recursive: true, force: true });
});

/** The body of `path` (under the pages' path), which must answer 200. */
async function body(path: string): Promise<string> {
  const response = await fetch(`${ui.origin}${base}${path}`, { headers: { cookie }, redirect: "manual" });
  expect(`${response.status} ${path}`).toBe(`200 ${path}`);
  return await response.text();
}

/** Audit `markup` and say where it came from, so a failure names the page and the vector. */
function expectClean(markup: string, where: string, pageAdds: Record<string, number> = {}): void {
  expect({ where, problems: auditHtml(markup, pageAdds) }).toEqual({ where, problems: [] });
}

describe("recall ui: the hostile corpus renders as text everywhere", () => {
  test("search: recent sessions, results with facets, and each session's matching turns", async () => {
    expectClean(await body("/"), "/");
    const results = await body("/?q=zebraword");
    expectClean(results, "/?q=zebraword");
    expect(results).toContain('class="facet"');
    for (let index = 0; index < hostileVectors.length; index++) {
      const path = `/?q=zebraword&s=${idOf(index)}`;
      expectClean(await body(path), `${path} (vector ${index})`);
    }
  }, 120_000);

  test("session pages and the /turns fragment: prompt, answer, tool calls, diffs, title, path, branch", async () => {
    for (let index = 0; index < hostileVectors.length; index++) {
      const page = await body(`/session/${idOf(index)}`);
      expectClean(page, `session page (vector ${index})`);
      expect(page).toContain('class="diff"');
      const turns = await body(`/session/${idOf(index)}/turns?after=0`);
      expect(turns).not.toMatch(/[\u007F-\u009F]/);
      expectClean((JSON.parse(turns) as { html: string }).html, `/turns fragment (vector ${index})`);
    }
  }, 120_000);

  test("the usage page: models, tools and projects in its tables, and its chart data (issue 38 item 14)", async () => {
    for (const bucket of ["day", "week", "month"]) {
      const page = await body(`/usage?bucket=${bucket}`);
      expectClean(page, `/usage?bucket=${bucket}`, { form: 1 }); // its filter form besides the frame's search box
      const charts = JSON.parse(/<script type="application\/json" id="usage-data">(.*?)<\/script>/s.exec(page)![1]!);
      // Every vector is a model and a tool name: each reaches the chart data as a string, unchanged.
      const models = new Set(charts.models.categories as string[]);
      const tools = new Set(charts.tools.categories as string[]);
      expect(hostileVectors.filter((vector) => !models.has(vector))).toEqual([]);
      expect(tools.size).toBeGreaterThan(3);
    }
  });

  test("the activity page and its day lists", async () => {
    const page = await body("/activity");
    expectClean(page, "/activity");
    const data = JSON.parse(/<script type="application\/json" id="activity-data">(.*?)<\/script>/s.exec(page)![1]!);
    for (const [date] of data.all.days as Array<[string]>)
      expectClean(await body(`/activity/day?date=${date}`), `/activity/day?date=${date}`);
  });
});
