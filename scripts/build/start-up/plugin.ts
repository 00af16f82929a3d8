/**
 * A `Bun.build` plugin that keeps three Node modules out of the binary's start-up (issue 42, cold start). cmd-ts, which
 * every command loads to parse its arguments, brings them in, and in a compiled Bun 1.4.5 binary each costs milliseconds
 * before the first line of recall runs (measured here against a compiled hello-world of 8.5 ms: `node:tty` +6.5 ms,
 * `node:util`'s `inspect` +4.3 ms; p50 of 25 alternating runs, 2-vCPU EPYC, 2026-11-29):
 *  * `debug`, which cmd-ts's parser logs through, requires `node:tty` and `node:util` when it loads: it becomes
 *    ./debug.ts, a logger that is always off (cmd-ts's log was on only with `DEBUG=cmd-ts:*`);
 *  * chalk's supports-color imports `node:tty` for `isatty(1)` and `isatty(2)`: its import is pointed at ./tty.ts, which
 *    answers through recall's own terminal test (src/render/terminal.ts: `node:tty` only for a character device that
 *    is not /dev/null), so chalk decides on colour exactly as before;
 *  * cmd-ts's `oneOf` imports `node:util` for `inspect` of its literals: pointed at ./inspect.ts, which quotes a plain
 *    word as `inspect` does and leaves anything else to `inspect` itself.
 * And chalk itself, which cmd-ts styles its help and errors with, loads when cmd-ts first styles a text: each cmd-ts
 * file's `import chalk from "chalk"` becomes a stand-in from ./lazy-module.ts that requires chalk at its first use.
 * Measured with the three together: `recall search … --no-reindex` on the real corpus 56.8 → 47.4 ms, `recall sessions
 * --help` 29.0 → 21.3 ms (p50 of 40 alternating runs). Builtins are not passed to `onResolve`, so the two imports are
 * rewritten where they are loaded; a library release that changes either line fails the build instead of bringing the
 * module back unnoticed.
 */
import type { BunPlugin } from "bun";
import { join } from "node:path";

const here = import.meta.dir;

/** One import line of a library file replaced by another, matched by the file's path. */
interface ImportRewrite {
  file: RegExp;
  from: string;
  to: string;
}

const rewrites: ImportRewrite[] = [
  {
    file: /\/chalk\/source\/vendor\/supports-color\/index\.js$/,
    from: "import tty from 'node:tty';",
    to: `import tty from ${JSON.stringify(join(here, "tty.ts"))};`,
  },
  {
    file: /\/cmd-ts\/dist\/esm\/oneOf\.js$/,
    from: 'import { inspect } from "node:util";',
    to: `import { inspect } from ${JSON.stringify(join(here, "inspect.ts"))};`,
  },
];

/**
 * How every cmd-ts file that styles text imports chalk, and its lazy stand-in: the `require` stays in cmd-ts's file, so
 * chalk resolves as cmd-ts's own import did, and the bundler makes it a module initialised when first required.
 */
const cmdTsChalkImport = {
  from: 'import chalk from "chalk";',
  to: `import { lazily as lazilyLoaded } from ${JSON.stringify(join(here, "lazy-module.ts"))};\nconst chalk = lazilyLoaded(() => require("chalk").default);`,
};

/** cmd-ts's ES module files (one `onLoad` serves them and the files of `rewrites`: a file is loaded by one callback). */
const cmdTsFile = /\/cmd-ts\/dist\/esm\/.*\.js$/;

/**
 * The plugin (see the file comment). Pass it to `Bun.build`'s `plugins`.
 * @throws Error from the build when a rewritten file no longer holds the import line it expects
 */
export const startUpPlugin: BunPlugin = {
  name: "recall-start-up",
  setup(build) {
    build.onResolve({ filter: /^debug$/ }, (args) =>
      args.importer.includes("/node_modules/cmd-ts/") ? { path: join(here, "debug.ts") } : undefined,
    );
    const load = async (args: { path: string }) => {
      let text = await Bun.file(args.path).text();
      for (const rewrite of rewrites.filter((candidate) => candidate.file.test(args.path))) {
        if (!text.includes(rewrite.from))
          throw new Error(`${args.path} no longer holds \`${rewrite.from}\` (scripts/build/start-up/plugin.ts)`);
        text = text.replace(rewrite.from, rewrite.to);
      }
      if (cmdTsFile.test(args.path)) {
        text = text.replaceAll(cmdTsChalkImport.from, cmdTsChalkImport.to);
        if (/from\s*["']chalk["']/.test(text))
          throw new Error(`${args.path} imports chalk in a new way (scripts/build/start-up/plugin.ts)`);
      }
      return { contents: text, loader: "js" as const };
    };
    build.onLoad(
      { filter: new RegExp(`${cmdTsFile.source}|${rewrites.map((rewrite) => rewrite.file.source).join("|")}`) },
      load,
    );
  },
};
