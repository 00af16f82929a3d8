/**
 * A module's export loaded at its first use instead of at start-up (./plugin.ts points cmd-ts's chalk here): cmd-ts
 * styles only its help and errors, yet chalk builds its styles and supports-color sniffs the environment when they
 * load, ~0.4 ms of every command's start-up in a compiled binary (`recall search` on the real corpus, runs rotating over
 * fresh copies of each binary, 2-core Xeon, 2026-11-30).
 */

/**
 * A stand-in for the object `load` returns, which calls `load` once, at the first property read or `in` test, and
 * forwards every read to that object (its getters run with it as `this`, so chalk's chained styles work: `red.bold`).
 * Only reads and `in` are forwarded: the stand-in is for a consumer that reads properties (cmd-ts reads chalk's styles).
 * @param load returns the real object; errors it throws surface at the first use
 */
export function lazily<T extends object>(load: () => T): T {
  let loaded: T | undefined;
  const real = (): T => {
    loaded ??= load();
    return loaded;
  };
  return new Proxy({} as T, {
    get: (_target, property) => Reflect.get(real(), property),
    has: (_target, property) => Reflect.has(real(), property),
  });
}
