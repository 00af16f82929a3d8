/**
 * The bundler's `define` that gives the binary its dependencies' production builds: React, react-reconciler and
 * scheduler (the picker's Ink) require `./cjs/<name>.development.js` unless `process.env.NODE_ENV` is "production"
 * when they load, and the binary's user never sets it. Inlined, the development branches are dead code and leave the
 * bundle. Measured on the picker (alternating runs of both binaries, real corpus, 2-core Xeon, 2026-11-30): a key's
 * echo 28.3 → 23.8 ms p50, its results 51.1 → 47.6 ms.
 */
export const productionDefine: Record<string, string> = { "process.env.NODE_ENV": JSON.stringify("production") };
