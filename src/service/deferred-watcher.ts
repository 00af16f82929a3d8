/**
 * When a long-lived server (`recall ui`, `recall mcp`) starts its watcher (issue 42): once it has answered its first
 * request, or after {@link watcherStartDelayMs} when none comes. The watcher's folder scan runs on the server's own
 * thread (chokidar reading every watched folder: ~300 ms at 20k sessions) and its first cycle indexes what changed; at
 * start they held the first answer back (at 20k sessions, from the binary: the web view's first page 500 → 152 ms, an MCP
 * client's start to first answer 455–625 → 206–242 ms). Until the first cycle has committed, answers come from the index as it is, as they did
 * while the watcher was starting.
 */
import type { Watcher } from "../index/index.ts";

/** How long a server waits for its first answer before it starts the watcher anyway, ms. */
const watcherStartDelayMs = 2000;

/** A watcher start put off by {@link deferWatcherStart}. */
export interface DeferredWatcher {
  /** Resolves to the started watcher; undefined when `cancel` came first or the start failed (`onError` was told). */
  watcher: Promise<Watcher | undefined>;
  /** Never start it (the server is stopping); `watcher` then resolves at once unless the start is already under way. */
  cancel(): void;
}

/**
 * Calls `start` when `answered` resolves or after {@link watcherStartDelayMs}, whichever comes first, unless cancelled.
 * @param onError told when `start` rejects (the server goes on answering from the index as it is)
 */
export function deferWatcherStart(
  answered: Promise<void>,
  start: () => Promise<Watcher>,
  onError: (error: unknown) => void,
): DeferredWatcher {
  let cancelled = false;
  let due!: () => void;
  const isDue = new Promise<void>((resolve) => (due = resolve));
  const timer = setTimeout(due, watcherStartDelayMs);
  void answered.then(due);
  const watcher = isDue.then(async () => {
    clearTimeout(timer);
    if (cancelled) return undefined;
    try {
      return await start();
    } catch (error) {
      onError(error);
      return undefined;
    }
  });
  return {
    watcher,
    cancel: () => {
      cancelled = true;
      due();
    },
  };
}
