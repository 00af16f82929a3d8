/**
 * The charts of the usage page (issue 38 item 14) as plain data: each is a bar chart of named series over categories,
 * embedded in the page as JSON (jsonScriptData) and drawn by /assets/app.js with ECharts, numbers shown on hover. The
 * same numbers are in the tables beside them (usage-page.ts); every name here (projects, models, tools) is session
 * data and is only ever JSON or escaped text, never markup.
 */
import type { ProjectUsage, UsageReport } from "../search/listing/usage.ts";

/** One chart: series of numbers over `categories` (same length), stacked when they share `stack`. */
export interface ChartSpec {
  categories: string[];
  series: Array<{ name: string; data: number[]; stack?: string }>;
  /** What one unit is, for the tooltip: `turns`, `tokens`, `USD`. */
  unit: string;
  /** Bars along the y axis (long category names: tools, models, projects). */
  horizontal?: boolean;
}

/** The charts by the id of the element that shows each (`data-chart`). */
export type UsageCharts = Record<string, ChartSpec>;

/** Tools shown in the tool chart; the table lists them all. */
const maxToolBars = 25;

/**
 * The charts of a report. `labels` maps a project path to its label (project-labels.ts); the projects past the first
 * twelve are one series, `otherProjects`.
 */
export function usageCharts(report: UsageReport, labels: ReadonlyMap<string, string>): UsageCharts {
  const projects: Array<{ name: string; project: ProjectUsage }> = report.projects.map((project) => ({
    name: labels.get(project.key) ?? project.label,
    project,
  }));
  if (report.otherProjects) projects.push({ name: report.otherProjects.label, project: report.otherProjects });
  const perBucket = (pick: (slice: UsageReport["perBucket"][number]) => number) => report.perBucket.map(pick);
  return {
    "projects-turns": {
      categories: report.buckets,
      series: projects.map(({ name, project }) => ({ name, data: project.turns, stack: "turns" })),
      unit: "turns",
    },
    "projects-sessions": {
      categories: report.buckets,
      series: projects.map(({ name, project }) => ({ name, data: project.sessions, stack: "sessions" })),
      unit: "sessions",
    },
    tools: {
      categories: report.tools.slice(0, maxToolBars).map((tool) => tool.name),
      series: [{ name: "calls", data: report.tools.slice(0, maxToolBars).map((tool) => tool.calls) }],
      unit: "calls",
      horizontal: true,
    },
    models: {
      categories: report.models.map((model) => model.model),
      series: [{ name: "turns", data: report.models.map((model) => model.turns) }],
      unit: "turns",
      horizontal: true,
    },
    tokens: {
      categories: report.buckets,
      series: [
        { name: "input", data: perBucket((slice) => slice.tokens.input), stack: "tokens" },
        { name: "output", data: perBucket((slice) => slice.tokens.output), stack: "tokens" },
        { name: "cache read", data: perBucket((slice) => slice.tokens.cacheRead), stack: "tokens" },
        { name: "cache write", data: perBucket((slice) => slice.tokens.cacheWrite), stack: "tokens" },
      ],
      unit: "tokens",
    },
    "cost-time": {
      categories: report.buckets,
      series: [
        { name: "estimated", data: perBucket((slice) => slice.cost.estimated), stack: "cost" },
        { name: "recorded", data: perBucket((slice) => slice.cost.recorded), stack: "cost" },
      ],
      unit: "USD",
    },
    "cost-projects": {
      categories: projects.map(({ name }) => name),
      series: [
        { name: "estimated", data: projects.map(({ project }) => project.cost.estimated), stack: "cost" },
        { name: "recorded", data: projects.map(({ project }) => project.cost.recorded), stack: "cost" },
      ],
      unit: "USD",
      horizontal: true,
    },
  };
}
