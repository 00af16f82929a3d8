#!/usr/bin/env bun
/**
 * Entry point. Loads the application (src/app.ts) lazily so that, in the compiled binary, the plain
 * `recall --help` (and `recall help`, its alias in app.ts) and `recall --version` print text that scripts/build.ts
 * captured from this same application at build time, without loading cmd-ts and every command definition (with
 * scripts/build/start-up/plugin.ts, `recall sessions --help` takes 8–12 ms more than a compiled hello-world's 8.5 ms,
 * measured here). The build splits the bundle at every dynamic import, so this file is the binary's whole first chunk
 * and that path loads nothing else. From source (`bun src/cli.ts`) nothing is precomputed and cmd-ts answers
 * everything.
 */

/** Set by the `define` of scripts/build.ts: the output of `--help` and `--version`. */
declare const RECALL_PRECOMPUTED_OUTPUT: { help: string; version: string } | undefined;

/**
 * How long the compiled binary keeps the reluctant JIT it starts with (scripts/build.ts `startUpJitScale`), in ms: a
 * one-shot search is done by then; a command still running (an index run, a server, the picker) gets the normal JIT.
 */
const fullJitAfterMs = 100;

async function run(argv: string[]): Promise<number> {
  const precomputed = typeof RECALL_PRECOMPUTED_OUTPUT === "object" ? RECALL_PRECOMPUTED_OUTPUT : undefined;
  const only = argv.length === 1 ? argv[0] : undefined;
  if (precomputed && (only === "--help" || only === "help" || only === "--version")) {
    await Bun.write(Bun.stdout, only === "--version" ? precomputed.version : precomputed.help);
    return 0;
  }
  const { main } = await import("./app.ts");
  return main(argv);
}

if (import.meta.main) {
  setTimeout(() => Bun.unsafe.setJITPolicy(1), fullJitAfterMs).unref();
  process.exitCode = await run(process.argv.slice(2));
}
