/**
 * What a command's start-up loads (issue 42, cold start), read from the bundler's own metafile of src/cli.ts split as
 * the binary is: the chunk holding src/app.ts with the one holding the command's definition (app.ts loads the one the
 * command line names), and the one holding the search handler, each with the chunks they import statically. With
 * scripts/build/start-up/plugin.ts neither holds cmd-ts's `debug`, chalk, nor a static import of `node:tty`,
 * `node:util` or `node:crypto`; the same bundle without the plugin does (so the check can fail). And the plugin's four
 * stand-ins answer as the modules they replace.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { inspect as nodeInspect } from "node:util";
import createDebug from "../../scripts/build/start-up/debug.ts";
import { inspect } from "../../scripts/build/start-up/inspect.ts";
import { lazily } from "../../scripts/build/start-up/lazy-module.ts";
import { startUpPlugin } from "../../scripts/build/start-up/plugin.ts";
import { isatty } from "../../scripts/build/start-up/tty.ts";
import { commandNames } from "../../src/app.ts";
import { isTerminal } from "../../src/render/terminal.ts";

const repo = resolve(import.meta.dir, "../..");
const work = mkdtempSync(join(tmpdir(), "recall-start-up-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

type Metafile = NonNullable<Awaited<ReturnType<typeof Bun.build>>["metafile"]>;

/** src/cli.ts bundled and split as scripts/build.ts does (no compile, no bytecode), with its metafile. */
async function bundle(withPlugin: boolean): Promise<Metafile> {
  const result = await Bun.build({
    entrypoints: [join(repo, "src", "cli.ts")],
    outdir: join(work, withPlugin ? "with" : "without"),
    splitting: true,
    target: "bun",
    format: "esm",
    external: ["node-llama-cpp", "react-devtools-core", "pg-cloudflare"],
    plugins: withPlugin ? [startUpPlugin] : [],
    metafile: true,
    throw: false,
  });
  if (!result.success || !result.metafile) throw new Error(result.logs.map(String).join("\n"));
  return result.metafile;
}

/** The inputs (source paths) of the chunks holding `inputs` and of every chunk they import statically. */
function startUpInputs(metafile: Metafile, ...inputs: string[]): string[] {
  const holders = inputs.map((input) => {
    const holder = Object.entries(metafile.outputs).find(([, output]) => input in output.inputs)?.[0];
    if (!holder) throw new Error(`no chunk holds ${input}`);
    return holder;
  });
  const seen = new Set<string>();
  const pending = [...holders];
  while (pending.length > 0) {
    const chunk = pending.pop()!;
    if (seen.has(chunk)) continue;
    seen.add(chunk);
    for (const imported of metafile.outputs[chunk]!.imports)
      if (imported.kind === "import-statement" && imported.path in metafile.outputs) pending.push(imported.path);
  }
  return [...new Set([...seen].flatMap((chunk) => Object.keys(metafile.outputs[chunk]!.inputs)))];
}

/** Every command's definition (flags and help), as src/app.ts loads them: the module each of its loaders imports. */
const commandDefinitions = [
  ...readFileSync(join(repo, "src", "app.ts"), "utf8").matchAll(/\(await import\("\.\/([^"]+)"\)\)\.\w+Command\b/g),
].map((match) => `src/${match[1]}`);

/**
 * What the inputs load at start-up that a command does not need: `debug`, chalk (cmd-ts styles only help and errors
 * with it), and static imports of the costly builtins.
 */
function costlyLoads(metafile: Metafile, inputs: readonly string[]): string[] {
  const found: string[] = [];
  for (const input of inputs) {
    if (/^node_modules\/(debug|chalk)\//.test(input)) found.push(input);
    for (const imported of metafile.inputs[input]?.imports ?? [])
      if (
        imported.kind === "import-statement" &&
        /^(node:)?(tty|util|crypto)$/.test(imported.original ?? imported.path)
      )
        found.push(`${input} → ${imported.original ?? imported.path}`);
  }
  return found;
}

describe("a command's start-up", () => {
  let withPlugin: Metafile;
  let withoutPlugin: Metafile;
  beforeAll(async () => {
    [withPlugin, withoutPlugin] = await Promise.all([bundle(true), bundle(false)]);
  });

  test("every command's start-up (src/app.ts and its definition) loads no parser, indexer, watcher or search renderer", () => {
    for (const definition of commandDefinitions) {
      const inputs = startUpInputs(withPlugin, "src/app.ts", definition);
      const heavy = inputs.filter((input) =>
        /^src\/(parsers\/[^/]+\/(parse|records|units)\.ts|index\/write\/indexer\.ts|index\/watch\/watch\.ts|render\/search\.ts|native\/)/.test(
          input,
        ),
      );
      expect(`${definition}: ${heavy.join(", ")}`).toBe(`${definition}: `);
      expect(inputs).toContain(definition); // the check reads the real closure
    }
  });

  test("a command's start-up wires its own definition, no other command's", () => {
    expect(commandDefinitions).toHaveLength(commandNames.length); // every loader read from app.ts
    const inputs = startUpInputs(withPlugin, "src/app.ts", "src/commands/search.ts");
    expect(inputs.filter((input) => commandDefinitions.includes(input))).toEqual(["src/commands/search.ts"]);
  });

  test("a search's start-up loads no parse code: each parser requires its listing and parse modules at first use", () => {
    const inputs = startUpInputs(withPlugin, "src/commands/search-handler.ts");
    expect(inputs).toContain("src/index/plan/staleness.ts"); // the freshness check and every parser's scan are there
    expect(inputs).toContain("src/parsers/claude-code/scan.ts");
    const parseCode = inputs.filter((input) => /^src\/parsers\/[^/]+\/(parse|records|turns|load)\.ts$/.test(input));
    expect(parseCode).toEqual([]);
    // the modules required at first use are still bundled, each in a chunk a require reaches
    const required = Object.values(withPlugin.outputs).flatMap((output) =>
      output.imports.filter((imported) => imported.kind === "require-call").map((imported) => imported.path),
    );
    const requiredInputs = required.flatMap((chunk) => Object.keys(withPlugin.outputs[chunk]?.inputs ?? {}));
    for (const module of [
      "claude-code/parse.ts",
      "opencode/parse.ts",
      "cursor/parse.ts",
      "cline/parse.ts",
      "goose/units.ts",
    ])
      expect(requiredInputs).toContain(`src/parsers/${module}`);
  });

  test("neither the app nor a search loads debug, chalk, node:tty, node:util or node:crypto at start-up", () => {
    for (const inputs of [["src/app.ts", "src/commands/search.ts"], ["src/commands/search-handler.ts"]])
      expect(costlyLoads(withPlugin, startUpInputs(withPlugin, ...inputs))).toEqual([]);
  });

  test("without the plugin, cmd-ts and chalk do load them (what the plugin is for)", () => {
    const loads = costlyLoads(withoutPlugin, startUpInputs(withoutPlugin, "src/app.ts", "src/commands/search.ts"));
    expect(loads).toContain("node_modules/chalk/source/vendor/supports-color/index.js → node:tty");
    expect(loads).toContain("node_modules/cmd-ts/dist/esm/oneOf.js → node:util");
    expect(loads.some((load) => load.startsWith("node_modules/debug/"))).toBe(true);
    expect(loads).toContain("node_modules/chalk/source/index.js");
  });
});

describe("the plugin's stand-ins", () => {
  test("inspect quotes as node:util's inspect does, for plain words and for strings that need escapes", () => {
    const values = [
      "full",
      "index",
      "jsonl",
      "markdown",
      "a b",
      "x.y:z/w-1",
      "",
      "it's",
      'say "hi"',
      "a\nb",
      "é",
      "\u001b[31m",
    ];
    for (const value of values) expect(inspect(value)).toBe(nodeInspect(value));
    for (const value of [42, null, undefined, { a: 1 }]) expect(inspect(value)).toBe(nodeInspect(value));
  });

  test("chalk loaded lazily styles as chalk does, chained styles and its level included, and loads at first use", () => {
    // chalk as cmd-ts resolves it (the plugin's require sits in cmd-ts's files)
    const chalk = createRequire(Bun.resolveSync("cmd-ts", repo))("chalk").default as typeof import("chalk").default;
    let loads = 0;
    const lazyChalk = lazily(() => {
      loads++;
      return chalk;
    });
    expect(loads).toBe(0);
    expect(lazyChalk.level).toBe(chalk.level);
    expect(loads).toBe(1);
    const level = chalk.level;
    chalk.level = 3; // colours on, whatever the test's terminal: the two must write the same escapes
    try {
      expect(lazyChalk.level).toBe(3);
      expect(lazyChalk.red.bold("error: ")).toBe("\u001b[31m\u001b[1merror: \u001b[22m\u001b[39m");
      for (const style of [
        (c: typeof chalk) => c.red("x"),
        (c: typeof chalk) => c.red.bold("error: "),
        (c: typeof chalk) => c.dim("  $ recall search --help"),
        (c: typeof chalk) => c.bold(`a${c.italic(" <subcommand>")}`),
        (c: typeof chalk) => c.yellow(42 as unknown as string),
      ])
        expect(style(lazyChalk)).toBe(style(chalk));
    } finally {
      chalk.level = level;
    }
    expect("italic" in lazyChalk).toBe(true);
    expect(loads).toBe(1);
  });

  test("the debug logger is off and can be called", () => {
    const log = createDebug("cmd-ts:parser");
    expect(log.enabled).toBe(false);
    expect(log("Registered:", "{}")).toBeUndefined();
  });

  test("isatty answers as recall's terminal test, and no other fd is a terminal", () => {
    expect(isatty(1)).toBe(isTerminal(1));
    expect(isatty(2)).toBe(isTerminal(2));
    expect(isatty(7)).toBe(false);
  });
});
