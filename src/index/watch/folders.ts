/**
 * The file-system side of the watcher (issue 10): one chokidar 5 watcher per target of watch-targets.ts,
 * folders only, events through native fs.watch (inotify on Linux, FSEvents/kqueue on macOS), never polling,
 * so an idle watcher costs no CPU. Turns chokidar's raw events into `EventEffect`s for watch.ts, keeps the
 * set of "hot" folders (watched because they became active) bounded, and reports watch failures once.
 * chokidar is imported on first use, so commands that never watch do not load it.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { FSWatcher } from "chokidar";
import { eventEffect, isIgnored, targetKey, type EventEffect, type WatchTarget } from "./targets.ts";

/** Where the folder watchers report to. Called synchronously from chokidar's callbacks; must not throw. */
export interface FolderWatchHooks {
  /** An event inside a target, with what it asks for (only events that ask for something are reported). */
  onEffect(effect: EventEffect, path: string): void;
  /** A folder could not be watched (watch limit reached, permission, ...): one line naming it. */
  onError(message: string, error: unknown): void;
}

/** Hot folders kept watched at most (the oldest is unwatched beyond it): bounds watches on long-running servers. */
export const hotFolderLimit = 256;

interface RunningTarget {
  target: WatchTarget;
  watcher: FSWatcher;
}

let chokidarModule: Promise<typeof import("chokidar")> | undefined;
const loadChokidar = () => (chokidarModule ??= import("chokidar"));

/** A set of folder watchers that follows the latest plan. Not reentrant: callers serialize `apply` and `close`. */
export class FolderWatchSet {
  private readonly running = new Map<string, RunningTarget>();
  /** Hot folder → key of the target whose watcher watches it; insertion order = age. */
  private readonly hot = new Map<string, string>();
  private readonly hotPaths = new Set<string>();
  /** Hot folders unwatched to respect the limit (chokidar must be told to watch them again). */
  private readonly evicted = new Set<string>();
  private closed = false;

  constructor(
    private readonly recallHome: string,
    private readonly hooks: FolderWatchHooks,
  ) {}

  /** The targets watched now. */
  get targets(): WatchTarget[] {
    return [...this.running.values()].map((entry) => entry.target);
  }

  /** Number of hot folders watched now. */
  get hotCount(): number {
    return this.hot.size;
  }

  /**
   * Start the watchers of new targets (resolving once chokidar has read their folders) and close those of
   * targets no longer planned. Returns how many targets were started and stopped.
   */
  async apply(targets: readonly WatchTarget[]): Promise<{ started: number; stopped: number }> {
    const wanted = new Map(targets.map((target) => [targetKey(target), target]));
    let stopped = 0;
    for (const [key, entry] of this.running) {
      if (wanted.has(key)) continue;
      this.running.delete(key);
      await entry.watcher.close();
      stopped++;
    }
    const fresh = [...wanted].filter(([key]) => !this.running.has(key));
    await Promise.all(fresh.map(([key, target]) => this.start(key, target)));
    return { started: fresh.length, stopped };
  }

  /** Stop every watcher; idempotent. */
  async close(): Promise<void> {
    this.closed = true;
    const entries = [...this.running.values()];
    this.running.clear();
    await Promise.all(entries.map((entry) => entry.watcher.close()));
  }

  private async start(key: string, target: WatchTarget): Promise<void> {
    const { FSWatcher } = await loadChokidar();
    if (this.closed) return;
    const watcher = new FSWatcher({
      persistent: true,
      ignoreInitial: true,
      usePolling: false,
      followSymlinks: true,
      atomic: false,
      depth: target.depth,
      ignorePermissionErrors: true, // an unreadable folder is reported by the index run ("unavailable"), once
      ignored: (path: string, stats?: import("node:fs").Stats) =>
        isIgnored(target, path, stats, this.hotPaths, this.recallHome),
    });
    this.running.set(key, { target, watcher });
    const report = (path: string) => {
      const effect = eventEffect(target, path);
      if (effect.hot) this.markHot(effect.hot, key, watcher);
      if (effect.index || effect.replan) this.hooks.onEffect(effect, path);
    };
    // Raw events carry writes to files inside watched folders (files have no watch of their own).
    watcher.on("raw", (_event, name, details) => {
      const folder = (details as { watchedPath?: string } | undefined)?.watchedPath;
      if (!folder) return;
      report(typeof name === "string" && name.length > 0 ? resolve(folder, name) : folder);
    });
    watcher.on("addDir", (path) => report(resolve(path)));
    watcher.on("unlinkDir", (path) => report(resolve(path)));
    watcher.on("error", (error) => this.hooks.onError(describeWatchError(target.path, error), error));
    await new Promise<void>((resolveReady) => {
      watcher.once("ready", () => resolveReady());
      watcher.once("error", () => resolveReady()); // a root that cannot be watched must not hang the start
      watcher.add(target.path);
    });
  }

  /**
   * Watch a folder that became active. A new folder is picked up by chokidar's own re-read of its parent
   * (the `ignored` predicate now lets it through); one unwatched earlier for the limit is added back.
   */
  private markHot(path: string, key: string, watcher: FSWatcher): void {
    if (this.hot.has(path)) {
      this.hot.delete(path); // refresh its age
      this.hot.set(path, key);
      return;
    }
    this.hot.set(path, key);
    this.hotPaths.add(path);
    if (this.evicted.delete(path) && existsSync(path)) watcher.add(path);
    if (this.hot.size <= hotFolderLimit) return;
    const [oldest, owner] = this.hot.entries().next().value as [string, string];
    this.hot.delete(oldest);
    this.hotPaths.delete(oldest);
    this.running.get(owner)?.watcher.unwatch(oldest);
    this.evicted.add(oldest);
    if (this.evicted.size > 16 * hotFolderLimit) this.evicted.delete(this.evicted.values().next().value as string);
  }
}

/** One line for a failed watch; the inotify limit gets the fix. */
export function describeWatchError(folder: string, error: unknown): string {
  const code = (error as { code?: unknown } | undefined)?.code;
  const message = error instanceof Error ? error.message : String(error);
  if (code === "ENOSPC" || code === "EMFILE") {
    return `cannot watch more folders under ${folder} (${code}: the system's limit of file watches is reached); changes there are picked up every minute instead — raise fs.inotify.max_user_watches to fix it`;
  }
  return `cannot watch ${folder}: ${message}; changes there are picked up every minute instead`;
}
