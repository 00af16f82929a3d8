import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

/**
 * DESIGN.md "Layout": a folder is a layer and imports go downward only. Ranks, lowest first; a file may
 * value-import from its own layer or a lower one (type-only imports are erased and do not count).
 * `binary/` (files embedded in the compiled executable) sits between the index and the embedding runtime; `service/`
 * (opening the index with its freshness check, the embedder, the vector leg, the shared flags) under the front ends.
 */
const ranks: Record<string, number> = {
  "errors.ts": 0,
  parsers: 1,
  home: 1,
  redact: 1,
  native: 1,
  index: 2,
  binary: 3,
  embed: 4,
  search: 5,
  "team-archive": 5,
  doctor: 5,
  render: 6,
  http: 6,
  service: 7,
  commands: 8,
  mcp: 8,
  pick: 8,
  ui: 8,
  "app.ts": 9,
  "cli.ts": 10,
};

/**
 * The front ends (issue 39): the CLI's commands, the MCP server, the picker and the web view. Siblings over `service/`
 * (the application layer every one of them calls) and the layers below: none imports another.
 */
const frontEnds = new Set(["commands", "mcp", "pick", "ui"]);

const src = resolve(import.meta.dir, "../src");
const layerOf = (file: string): string => relative(src, file).split("/")[0]!;

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
});
