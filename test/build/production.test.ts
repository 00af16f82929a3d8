/**
 * The binary's bundle takes its dependencies' production builds (scripts/build/production.ts): the picker's React,
 * react-reconciler and scheduler, read from the bundler's own metafile of the picker with the build's `define`. The same
 * bundle without it takes the development builds, so the check can fail.
 */
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { productionDefine } from "../../scripts/build/production.ts";

const repo = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "recall-production-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The React family's build files (`*.production.js`, `*.development.js`) bundled into the picker with `define`. */
async function reactBuilds(define: Record<string, string>): Promise<string[]> {
  const result = await Bun.build({
    entrypoints: [join(repo, "src", "pick", "run-picker.tsx")],
    outdir: join(work, String(Object.keys(define).length)),
    target: "bun",
    format: "esm",
    external: ["react-devtools-core"],
    define,
    metafile: true,
    throw: false,
  });
  if (!result.success || !result.metafile) throw new Error(result.logs.map(String).join("\n"));
  return Object.keys(result.metafile.inputs).filter((input) =>
    /\/(react|react-reconciler|scheduler)\/cjs\//.test(input),
  );
}

test("the picker's bundle holds React's production builds and none of its development builds", async () => {
  const production = await reactBuilds(productionDefine);
  expect(production.some((input) => input.endsWith("/react/cjs/react.production.js"))).toBe(true);
  expect(production.some((input) => input.endsWith("/react-reconciler/cjs/react-reconciler.production.js"))).toBe(true);
  expect(production.filter((input) => input.includes(".development."))).toEqual([]);
  // without the define, the same bundle takes the development builds: the check above can fail
  const unset = await reactBuilds({});
  expect(unset.some((input) => input.endsWith("/react/cjs/react.development.js"))).toBe(true);
});
