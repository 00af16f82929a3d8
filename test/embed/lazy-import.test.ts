/**
 * node-llama-cpp costs ~150 ms+ to import, so only src/embed/load-runtime.ts may load it, and only through a
 * dynamic import(); every other file uses `import type` (docs/style.md §4, "lazy-import test").
 */
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";

const srcDir = join(import.meta.dir, "..", "..", "src");
const loaderFile = "embed/load-runtime.ts";

function listSourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return listSourceFiles(path);
    return /\.(ts|tsx|js|mjs)$/.test(name) ? [path] : [];
  });
}

/** Static imports/exports of node-llama-cpp that are not type-only, e.g. `import { getLlama } from "node-llama-cpp"`. */
function findValueImports(source: string): string[] {
  const statements = source.match(/^\s*(import|export)\s[^;]*?from\s*["']node-llama-cpp(\/[^"']*)?["']/gms) ?? [];
  const sideEffect = source.match(/^\s*import\s*["']node-llama-cpp(\/[^"']*)?["']/gm) ?? [];
  return [...statements.filter((statement) => !/^\s*(import|export)\s+type\s/.test(statement)), ...sideEffect];
}

function findDynamicImports(source: string): string[] {
  return source.match(/(import|require)\s*\(\s*["']node-llama-cpp(\/[^"']*)?["']\s*\)/g) ?? [];
}

describe("node-llama-cpp is imported lazily", () => {
  const files = listSourceFiles(srcDir).map((path) => ({
    name: relative(srcDir, path),
    source: readFileSync(path, "utf8"),
  }));

  test("the checker catches value imports and lets type imports pass", () => {
    expect(findValueImports('import { getLlama } from "node-llama-cpp";')).toHaveLength(1);
    expect(findValueImports('import {\n  getLlama,\n} from "node-llama-cpp";')).toHaveLength(1);
    expect(findValueImports('import "node-llama-cpp";')).toHaveLength(1);
    expect(findValueImports('import type { Llama } from "node-llama-cpp";')).toHaveLength(0);
    expect(findDynamicImports('await import("node-llama-cpp")')).toHaveLength(1);
  });

  test("no file in src/ value-imports node-llama-cpp at the top level", () => {
    const offenders = files.filter((file) => findValueImports(file.source).length > 0).map((file) => file.name);
    expect(offenders).toEqual([]);
  });

  test("only the runtime loader in src/embed imports it dynamically", () => {
    const importers = files.filter((file) => findDynamicImports(file.source).length > 0).map((file) => file.name);
    expect(importers).toEqual([loaderFile]);
  });
});
