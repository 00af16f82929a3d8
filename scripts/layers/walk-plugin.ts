/**
 * A Bun runtime plugin for the query walk (query-walk.ts, issue 39): every module under `src/` it loads afterwards is
 * rewritten so its exported functions and classes report the calls that enter them (walk-runtime.ts). Exported
 * `const` functions become `let` so they can be rebound to their wrappers; nothing else in the file changes.
 * Measurement only: it never runs in recall itself.
 */
import { plugin } from "bun";
import { readFileSync } from "node:fs";
import { relative, resolve } from "node:path";

const src = resolve(import.meta.dir, "../../src");
const runtime = resolve(import.meta.dir, "walk-runtime.ts");

/** The module's text with its exports wrapped (module doc). */
export function instrument(text: string, file: string): string {
  const functions = new Set<string>();
  const classes = new Set<string>();
  for (const match of text.matchAll(/^export (?:async )?function\*? (\w+)/gm)) functions.add(match[1]!);
  for (const match of text.matchAll(/^export (?:abstract )?class (\w+)/gm)) classes.add(match[1]!);
  const rewritten = text.replace(/^export const (\w+) = (?=async\b|\(|\w+ =>|function\b)/gm, (_, name: string) => {
    functions.add(name);
    return `export let ${name} = `;
  });
  const lines = [
    `import { walkWrap as __walkWrap, walkWrapClass as __walkWrapClass } from ${JSON.stringify(runtime)};`,
    ...[...functions].map((name) => `${name} = __walkWrap(${JSON.stringify(file)}, ${JSON.stringify(name)}, ${name});`),
    ...[...classes].map((name) => `__walkWrapClass(${JSON.stringify(file)}, ${JSON.stringify(name)}, ${name});`),
  ];
  return `${rewritten}\n${lines.join("\n")}\n`;
}

/** Register the plugin: call before the first import of recall's modules. */
export function registerWalkPlugin(): void {
  plugin({
    name: "recall query walk",
    setup(build) {
      // synchronous, so a module loaded through it can still be `require`d (each parser requires its parse code at
      // first use: src/parsers/ARCHITECTURE.md); Bun refuses `require` of a module an async onLoad made
      build.onLoad({ filter: /\/src\/.*\.tsx?$/ }, ({ path }) => {
        const text = readFileSync(path, "utf8");
        if (!path.startsWith(src)) return { contents: text, loader: path.endsWith(".tsx") ? "tsx" : "ts" };
        return {
          contents: instrument(text, relative(src, path)),
          loader: path.endsWith(".tsx") ? "tsx" : "ts",
        };
      });
    },
  });
}
