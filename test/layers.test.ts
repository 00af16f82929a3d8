import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { frontEnds, layerOfRelative, layerRanks } from "../scripts/layers/ranks.ts";

/** DESIGN.md "Layout": the layer ranks and the front ends are scripts/layers/ranks.ts's (shared with the query walk). */
const ranks = layerRanks;

const src = resolve(import.meta.dir, "../src");
const layerOf = (file: string): string => layerOfRelative(relative(src, file));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : /\.tsx?$/.test(entry.name)
        ? [join(dir, entry.name)]
        : [],
  );
}

/** Relative value imports of a file: static `import … from` (not `import type`) and dynamic `import(…)`. */
function valueImports(text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/^import\s+(?!type\b)[^;]*?from\s+"(\.[^"]+)"/gms)) found.push(match[1]!);
  for (const match of text.matchAll(/^export\s+(?!type\b)[^;]*?from\s+"(\.[^"]+)"/gms)) found.push(match[1]!);
  for (const match of text.matchAll(/import\(\s*"(\.[^"]+)"\s*\)/g)) found.push(match[1]!);
  return found;
}

describe("layering", () => {
  test("every source file belongs to a known layer", () => {
    for (const file of sourceFiles(src)) expect(Object.keys(ranks)).toContain(layerOf(file));
  });

  test("imports only go to the same layer or a lower one", () => {
    const upward: string[] = [];
    for (const file of sourceFiles(src)) {
      const from = layerOf(file);
      for (const specifier of valueImports(readFileSync(file, "utf8"))) {
        const target = resolve(dirname(file), specifier);
        if (!target.startsWith(src)) continue; // package.json, node_modules addons
        const to = layerOf(target);
        if (ranks[to]! > ranks[from]!) upward.push(`${relative(src, file)} → ${relative(src, target)}`);
      }
    }
    expect(upward).toEqual([]);
  });

  test("no front end imports another front end (issue 39)", () => {
    const across: string[] = [];
    for (const file of sourceFiles(src)) {
      const from = layerOf(file);
      if (!frontEnds.has(from)) continue;
      for (const specifier of valueImports(readFileSync(file, "utf8"))) {
        const target = resolve(dirname(file), specifier);
        if (!target.startsWith(src)) continue;
        const to = layerOf(target);
        if (frontEnds.has(to) && to !== from) across.push(`${relative(src, file)} → ${relative(src, target)}`);
      }
    }
    expect(across).toEqual([]);
  });

  test("only embed/ loads node-llama-cpp, and only lazily", () => {
    const offenders = sourceFiles(src).filter((file) => {
      const text = readFileSync(file, "utf8");
      return (
        /^import\s+(?!type\b)[^;]*from\s+"node-llama-cpp"/m.test(text) ||
        (layerOf(file) !== "embed" && /import\(\s*"node-llama-cpp"/.test(text))
      );
    });
    expect(offenders.map((file) => relative(src, file))).toEqual([]);
  });

  test("a query's walk from each front end to SQLite and back climbs back up at most 3 times (issue 39)", () => {
    // in its own process: the walk instruments every module it loads (scripts/layers/query-walk.ts)
    const run = Bun.spawnSync(
      [process.execPath, resolve(import.meta.dir, "../scripts/layers/query-walk.ts"), "--json"],
      {
        env: process.env,
        stdout: "pipe",
        stderr: "pipe",
      },
    );
    expect(run.exitCode).toBe(0);
    const last = run.stdout.toString().trim().split("\n").at(-1)!;
    const reports = JSON.parse(last) as Array<{ frontEnd: string; files: number; climbs: unknown[] }>;
    expect(reports.map((report) => report.frontEnd)).toEqual([
      "CLI (recall search)",
      "MCP (search tool)",
      "web view (search page)",
      "picker (sessions)",
    ]);
    for (const report of reports) {
      expect(report.files).toBeGreaterThan(10); // the walk saw the search run, down to SQLite
      expect({ frontEnd: report.frontEnd, climbs: report.climbs.length }).toEqual({
        frontEnd: report.frontEnd,
        climbs: Math.min(report.climbs.length, 3),
      });
    }
  }, 120_000);
});
