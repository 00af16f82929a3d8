/**
 * The usage page of `recall ui` (`/usage`, issue 38 item 14): over a range of days and per day, week or month, the
 * sessions and turns of each project, tool calls per tool, the models used, tokens per kind and the cost, estimated
 * from a dated price table (search/listing/prices.ts) unless the agent recorded one. Each chart (usage-charts.ts, drawn by
 * /assets/app.js, numbers on hover) has a plain table of the same numbers in a <details> below it, readable without
 * script. Filters as search: `?project=…&source=…&since=…&bucket=day|week|month` (a year back by default).
 */
import type { Database } from "bun:sqlite";
import { sourceIds } from "../parsers/types.ts";
import { loadDateWords, parseFilterArgs } from "../search/listing/arguments.ts";
import { priceTableSource } from "../search/listing/prices.ts";
import {
  readUsage,
  usageBuckets,
  type UsageBucket,
  type UsageReport,
  type UsageTotals,
} from "../search/listing/usage.ts";
import { countOf } from "../render/format.ts";
import { yearBackStart } from "./activity-page.ts";
import { html, jsonScriptData, type SafeHtml } from "./html.ts";
import { pageHtml } from "./layout.ts";
import { projectLabels } from "./project-labels.ts";
import { usageCharts } from "./usage-charts.ts";

/** The page's query parameters, as typed ("" = not given). */
export interface UsagePageParams {
  project: string;
  source: string;
  since: string;
  bucket: string;
}

/** The parameters of a `/usage` URL. */
export function usageParamsOf(url: URL): UsagePageParams {
  const get = (name: string) => url.searchParams.get(name)?.trim() ?? "";
  return { project: get("project"), source: get("source"), since: get("since"), bucket: get("bucket") };
}

/** What the page shows: the report, or the one-line problem with the parameters. */
export interface UsagePageModel {
  params: UsagePageParams;
  report?: UsageReport;
  problem?: string;
}

/**
 * Read the usage the parameters ask for, up to `now` (epoch ms): from `since` (search's date forms) or a year back.
 * A parameter that does not parse gives a model with `problem` (the error's one line) and no report.
 */
export async function usagePageModel(db: Database, params: UsagePageParams, now = Date.now()): Promise<UsagePageModel> {
  try {
    const bucket = params.bucket || "week";
    if (!usageBuckets.includes(bucket as UsageBucket))
      throw new Error(`bucket must be day, week or month, not "${params.bucket}"`);
    await loadDateWords([params.since]);
    const filters = parseFilterArgs({ project: params.project, source: params.source, since: params.since }, now);
    const from = filters.since ?? yearBackStart(now);
    return { params, report: readUsage(db, { ...filters, since: undefined }, from, now, bucket as UsageBucket) };
  } catch (error) {
    return { params, problem: (error as Error).message };
  }
}

/** `12,345`. */
const count = (value: number) => value.toLocaleString("en-US");
/** `$1.23`, or `$0.0123` under a dollar. */
const usd = (value: number) => `$${value >= 1 ? value.toFixed(2) : value.toFixed(4)}`;

/** Charts (id and title) and the table of their numbers, under a heading. */
function part(
  id: string,
  title: string,
  charts: Array<[string, string]>,
  headers: string[],
  rows: SafeHtml[],
): SafeHtml {
  return html`<section class="usage-part" aria-labelledby="usage-${id}">
  <h2 id="usage-${id}">${title}</h2>
  ${charts.map(([chart, name]) => html`<div class="chart usage-chart" data-chart="${chart}" role="img" aria-label="${name}: bar chart; the numbers are in the table below"></div>`)}
  <details><summary>Table: ${title.toLowerCase()}</summary>
  <table class="usage-table"><thead><tr>${headers.map((header) => html`<th scope="col">${header}</th>`)}</tr></thead>
  <tbody>${rows}</tbody></table></details>
</section>`;
}

/** The token cells of a row: input, output, cache read, cache write. */
const tokenCells = (totals: UsageTotals) =>
  html`<td>${count(totals.tokens.input)}</td><td>${count(totals.tokens.output)}</td><td>${count(totals.tokens.cacheRead)}</td><td>${count(totals.tokens.cacheWrite)}</td>`;
/** The cost cells of a row: estimated, recorded, unpriced turns. */
const costCells = (totals: UsageTotals) =>
  html`<td>${usd(totals.cost.estimated)}</td><td>${usd(totals.cost.recorded)}</td><td>${count(totals.cost.unpriced)}</td>`;
const tokenHeaders = ["Input tokens", "Output tokens", "Cache read tokens", "Cache write tokens"];
const costHeaders = ["Estimated cost", "Recorded cost", "Unpriced turns"];

function filterForm(params: UsagePageParams, base: string): SafeHtml {
  const bucket = params.bucket || "week";
  return html`<form class="usage-filters activity-controls" action="${base}/usage" method="get">
  <label>Project <input name="project" value="${params.project}" placeholder="any" autocomplete="off"></label>
  <label>Agent <select name="source"><option value="">any</option>${sourceIds.map((id) => html`<option value="${id}"${params.source === id ? html` selected` : ""}>${id}</option>`)}</select></label>
  <label>Since <input name="since" value="${params.since}" placeholder="a year ago (e.g. 30d, 2026-01-01)" autocomplete="off"></label>
  <label>Per <select name="bucket">${usageBuckets.map((value) => html`<option value="${value}"${bucket === value ? html` selected` : ""}>${value}</option>`)}</select></label>
  <button type="submit">Show</button>
</form>`;
}

/** The page as HTML; its links start with `base` (layout.ts). */
export function usagePageHtml(model: UsagePageModel, base: string): string {
  const report = model.report;
  const head = html`<h1>Usage</h1>${filterForm(model.params, base)}`;
  if (!report) {
    const body = html`<section class="usage">${head}<p class="problem" role="alert">${model.problem ?? ""}</p></section>`;
    return pageHtml({ title: "Usage", kind: "usage", base, body });
  }
  const labels = projectLabels(report.projects.map((project) => ({ path: project.key, name: project.label })));
  const projects = report.projects.map((project) => ({ name: labels.get(project.key) ?? project.label, project }));
  if (report.otherProjects) projects.push({ name: report.otherProjects.label, project: report.otherProjects });
  const { totals } = report;
  const summary = html`<p class="summary">${report.from} to ${report.to}, per ${report.bucket}: ${countOf(totals.sessions, "session")}, ${countOf(totals.turns, "turn")}; ${count(totals.tokens.input)} input, ${count(totals.tokens.output)} output, ${count(totals.tokens.cacheRead)} cache read and ${count(totals.tokens.cacheWrite)} cache write tokens; cost ${usd(totals.cost.estimated)} estimated + ${usd(totals.cost.recorded)} recorded${totals.cost.unpriced > 0 ? html`, and ${countOf(totals.cost.unpriced, "turn")} of a model without a price (cost unknown)` : ""}.</p>
  <p class="hint">Costs are estimates from <a href="${priceTableSource.url}" rel="noreferrer">${priceTableSource.name}</a> as read on ${priceTableSource.readOn}, unless the agent recorded one (OpenCode records a cost per message). Claude Code, Codex and Gemini CLI record tokens and models; Cursor and Aider record neither.</p>`;
  const body =
    report.buckets.length === 0
      ? html`<section class="usage">${head}${summary}<p class="hint">No turns in this range.</p></section>`
      : html`<section class="usage">${head}${summary}
${part(
  "projects",
  "Sessions and turns per project",
  [
    ["projects-turns", "Turns per project"],
    ["projects-sessions", "Sessions per project"],
  ],
  ["Period", "Project", "Sessions", "Turns"],
  report.buckets.flatMap((bucket, index) =>
    projects
      .filter(({ project }) => (project.turns[index] ?? 0) > 0)
      .map(
        ({ name, project }) =>
          html`<tr><td>${bucket}</td><td>${name}</td><td>${count(project.sessions[index] ?? 0)}</td><td>${count(project.turns[index] ?? 0)}</td></tr>`,
      ),
  ),
)}
${part(
  "tools",
  "Tool calls by tool",
  [["tools", "Tool calls by tool"]],
  ["Tool", "Calls"],
  report.tools.map((tool) => html`<tr><td>${tool.name}</td><td>${count(tool.calls)}</td></tr>`),
)}
${part(
  "models",
  "Models used",
  [["models", "Turns per model"]],
  ["Model", "Turns", ...tokenHeaders, ...costHeaders],
  report.models.map(
    (model) =>
      html`<tr><td>${model.model}</td><td>${count(model.turns)}</td>${tokenCells(model)}${costCells(model)}</tr>`,
  ),
)}
${part(
  "tokens",
  `Tokens per ${report.bucket} by kind`,
  [["tokens", "Tokens by kind"]],
  ["Period", ...tokenHeaders],
  report.buckets.map((bucket, index) => html`<tr><td>${bucket}</td>${tokenCells(report.perBucket[index]!)}</tr>`),
)}
${part(
  "cost-time",
  `Cost per ${report.bucket}`,
  [["cost-time", "Cost, estimated and recorded"]],
  ["Period", ...costHeaders],
  report.buckets.map((bucket, index) => html`<tr><td>${bucket}</td>${costCells(report.perBucket[index]!)}</tr>`),
)}
${part(
  "cost-projects",
  "Tokens and cost per project",
  [["cost-projects", "Cost per project, estimated and recorded"]],
  ["Project", "Turns", ...tokenHeaders, ...costHeaders],
  projects.map(
    ({ name, project }) =>
      html`<tr><td>${name}</td><td>${count(project.totalTurns)}</td>${tokenCells(project)}${costCells(project)}</tr>`,
  ),
)}
  <script type="application/json" id="usage-data">${jsonScriptData(usageCharts(report, labels))}</script>
</section>`;
  return pageHtml({ title: "Usage", kind: "usage", base, body });
}
