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
 * The plugin (see the file comment). Pass it to `Bun.build`'s `plugins`.
 * @throws Error from the build when a rewritten file no longer holds the import line it expects
 */
export const startUpPlugin: BunPlugin = {
  name: "recall-start-up",
  setup(build) {
    build.onResolve({ filter: /^debug$/ }, (args) =>
      args.importer.includes("/node_modules/cmd-ts/") ? { path: join(here, "debug.ts") } : undefined,
    );
    for (const rewrite of rewrites)
      build.onLoad({ filter: rewrite.file }, async (args) => {
        const text = await Bun.file(args.path).text();
        if (!text.includes(rewrite.from))
          throw new Error(`${args.path} no longer holds \`${rewrite.from}\` (scripts/build/start-up/plugin.ts)`);
        return { contents: text.replace(rewrite.from, rewrite.to), loader: "js" };
      });
  },
};
