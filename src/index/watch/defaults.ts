/**
 * The watcher's timing defaults, in ms, in a module of their own: `recall watch`'s flags show them, and importing them
 * from watch.ts would load the watcher and the whole indexer below it for every command's start-up (issue 42).
 */

/** Defaults of {@link import("./watch.ts").WatchOptions}, in ms. */
export const watchDefaults = {
  debounceMs: 2000,
  maxDelayMs: 10_000,
  lockRetryMs: 2000,
  lockRetryMaxMs: 30_000,
  fallbackIntervalMs: 60_000,
  embedderIdleMs: 300_000,
};
