/**
 * The watcher that keeps the index fresh while sessions are written (issue 10): used by the MCP server and by
 * `recall watch`. Pipeline of one cycle, started `debounceMs` (2 s) after the last change, or at most
 * `maxDelayMs` (10 s) after the first one while changes keep coming:
 *   1. plan the folders to watch again (roots that appeared or vanished; watch-targets.ts);
 *   2. keyword phase: `runIndex` without a model (incremental, by the freshness rule of freshness.ts, with the
 *      paths of the events re-stat'ed even when they are old files; Claude files are read from the last byte
 *      indexed), committed in batches, so a search sees new turns as soon as possible (`onIndexed`);
 *   3. embedding phase, when `openEmbedder` is given: `runIndex` again with it (a no-change scan, then only the
 *      chunks without vectors: idempotent). A model that cannot be opened costs this phase only (notice); new
 *      changes preempt it between batches of 32 chunks, and the next cycle carries on.
 * Only one process writes the index (index.lock): when another holds it, the cycle is skipped quietly and tried
 * again after a back-off (2 s doubling to 30 s, or the next change, whichever is later). Never prints; a
 * repeated warning or notice is passed on once an hour at most. Searches never wait: they read the last commit.
 */
import type { Database } from "bun:sqlite";
import { existsSync } from "node:fs";
import type { Embedder } from "../../embed/index.ts";
import type { SourceId, SourceRootMap } from "../../parsers/index.ts";
import { diskFullError, IndexError, isRecallError } from "../../errors.ts";
import { watchDefaults } from "./defaults.ts";
import type { EmbeddingSummary } from "../vectors/embedding.ts";
import { runIndex, type IndexHooks, type IndexSummary } from "../write/indexer.ts";
import { withKnownProjectFolders } from "../plan/known-projects.ts";
import { openIndex } from "../schema.ts";
import { databasePath } from "../../home/paths.ts";
import { FolderWatchSet } from "./folders.ts";
import { planWatchTargets, type EventEffect, type WatchTarget } from "./targets.ts";

/** Callbacks of a watcher. Called on the event loop; must not throw. */
export interface WatchHooks {
  /** After each keyword phase that ran (including cycles that found nothing new). */
  onIndexed?(summary: IndexSummary): void;
  /** After each committed batch of a keyword phase (`runIndex`'s onProgress): sessions parsed of `total` in `source`. */
  onProgress?(progress: { source: SourceId; done: number; total: number }): void;
  /** After an embedding phase that embedded or failed something; counts are chunks, `elapsedMs` its wall time. */
  onEmbedded?(summary: EmbeddingSummary, elapsedMs: number): void;
  /** A cycle was skipped because another process holds the index lock; it is retried after `retryInMs`. */
  onSkipped?(skip: { reason: "locked"; message: string; retryInMs: number }): void;
  /** Warnings: unreadable files, a folder that cannot be watched, a failed cycle (one line each, deduplicated). */
  onWarning?(message: string): void;
  /** Notices: keyword-only because no model, a root that appeared, ... (one line each, deduplicated). */
  onNotice?(message: string): void;
}

/** Options of {@link startWatcher}. */
export interface WatchOptions {
  recallHome: string;
  /** Roots per source, as for `runIndex` (HistoryContext.roots). */
  roots: SourceRootMap;
  /** Opens the embedding model for the embedding phase; absent: keyword-only. Owned by the caller (never disposed here). */
  openEmbedder?: () => Promise<Embedder>;
  /** Quiet time after the last change before a cycle starts, in ms; default 2000. */
  debounceMs?: number;
  /** Longest wait after the first unindexed change while changes keep coming, in ms; default 10 000. */
  maxDelayMs?: number;
  /** Run a cycle right after start (catch up with what changed while nothing watched); default true. */
  indexOnStart?: boolean;
  /**
   * Called after `embedderIdleMs` without an embedding phase, so the caller can free the model (a local model
   * holds hundreds of MB); the next phase calls `openEmbedder` again. Absent: the model stays as the caller keeps it.
   */
  releaseEmbedder?: () => Promise<void>;
  /** Idle time before `releaseEmbedder`, in ms; default 300 000 (5 min). */
  embedderIdleMs?: number;
  hooks?: WatchHooks;
}

/** What a watcher is watching now. */
export interface WatchDescription {
  /** Folders watched, with their root and kind; `pending` targets wait for a missing root. */
  targets: WatchTarget[];
  /** Folders watched because they became active (session folders, new message folders). */
  hotFolders: number;
  /** True after a folder could not be watched: a cycle also runs every `fallbackIntervalMs`. */
  isPeriodic: boolean;
}

/** A running watcher. */
export interface Watcher {
  /**
   * Stop: no new cycle starts; the folder watchers and timers are closed; a running cycle stops after its
   * current batch commits (sessions) or its current 32-chunk batch (embeddings), its parse worker is
   * terminated and the lock released. Resolves when all of that is done; idempotent.
   */
  close(): Promise<void>;
  /** What is watched now. */
  describe(): WatchDescription;
}

/** How long a repeated warning or notice stays quiet, in ms. */
const repeatQuietMs = 3_600_000;

/** Thrown from runIndex's progress hooks to stop a run between batches (close, or new changes during embedding). */
class StopRun extends Error {}

/**
 * Start watching the roots; resolves once every folder watcher has read its folder (changes made after that
 * are seen). The first cycle starts at once unless `indexOnStart` is false; it is not awaited.
 * @throws nothing for missing or unreadable roots (they are watched for, or reported by the cycles)
 */
export async function startWatcher(options: WatchOptions): Promise<Watcher> {
  const watcher = new IndexWatcher(options);
  await watcher.start();
  return watcher;
}

class IndexWatcher implements Watcher {
  private readonly folders: FolderWatchSet;
  private readonly hooks: WatchHooks;
  private readonly debounceMs: number;
  private readonly maxDelayMs: number;
  private readonly said = new Map<string, number>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private replanTimer: ReturnType<typeof setTimeout> | undefined;
  private fallback: ReturnType<typeof setInterval> | undefined;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private dirtySince: number | undefined;
  private lastChangeAt = 0;
  private lockedUntil = 0;
  private lockRetryMs = watchDefaults.lockRetryMs;
  private cycle: Promise<void> | undefined;
  private planning: Promise<void> = Promise.resolve();
  private embedding = false;
  private closing: Promise<void> | undefined;
  /** Paths of the events since the last keyword phase: the quick check re-stats them even when they are old files. */
  private readonly changedPaths = new Set<string>();

  constructor(private readonly options: WatchOptions) {
    this.hooks = options.hooks ?? {};
    this.debounceMs = options.debounceMs ?? watchDefaults.debounceMs;
    this.maxDelayMs = Math.max(options.maxDelayMs ?? watchDefaults.maxDelayMs, this.debounceMs);
    this.folders = new FolderWatchSet(options.recallHome, {
      onEffect: (effect, path) => this.onEffect(effect, path),
      onError: (message) => {
        this.warn(message);
        this.startFallback();
      },
    });
  }

  async start(): Promise<void> {
    await this.replan();
    if (this.options.indexOnStart ?? true) this.markDirty(0);
  }

  describe(): WatchDescription {
    return {
      targets: this.folders.targets,
      hotFolders: this.folders.hotCount,
      isPeriodic: this.fallback !== undefined,
    };
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      for (const timer of [this.timer, this.replanTimer, this.idleTimer]) clearTimeout(timer);
      clearInterval(this.fallback);
      await this.planning;
      await this.folders.close();
      await this.cycle; // stops at its next batch boundary (StopRun)
    })();
    return this.closing;
  }

  private get isClosed(): boolean {
    return this.closing !== undefined;
  }

  private onEffect(effect: EventEffect, path: string): void {
    if (this.isClosed) return;
    if (effect.replan) this.replanSoon();
    if (effect.index) {
      this.changedPaths.add(path);
      this.markDirty();
    }
  }

  /** The configured roots plus, for Aider, the project folders the index knows (known-projects.ts); the roots alone without an index. */
  private rootsWithKnownProjects(): SourceRootMap {
    const path = databasePath(this.options.recallHome);
    if (!existsSync(path)) return this.options.roots;
    let db: Database | undefined;
    try {
      db = openIndex(path, { readonly: true });
      return withKnownProjectFolders(db, this.options.roots);
    } catch {
      return this.options.roots; // a damaged or half-created index: the next cycle reports it
    } finally {
      db?.close();
    }
  }

  /** Plan the targets again (serialized; a failure falls back to a cycle every minute and keeps the chain alive). */
  private replan(): Promise<void> {
    this.planning = this.planning.then(async () => {
      if (this.isClosed) return;
      try {
        await this.folders.apply(planWatchTargets(this.rootsWithKnownProjects()));
      } catch (error) {
        this.warn(
          `cannot watch the source folders: ${(error as Error)?.message ?? String(error)}; changes are picked up every minute instead`,
        );
        this.startFallback();
      }
    });
    return this.planning;
  }

  private replanSoon(): void {
    clearTimeout(this.replanTimer);
    this.replanTimer = setTimeout(() => {
      const before = new Set(
        this.folders.targets.filter((target) => target.kind === "pending").map((target) => target.root),
      );
      void this.replan().then(() => {
        const appeared = [...before].filter(
          (root) => !this.folders.targets.some((target) => target.kind === "pending" && target.root === root),
        );
        for (const root of appeared) this.notice(`${root} appeared; watching it`);
        if (appeared.length > 0) this.markDirty(0);
      });
    }, 100);
  }

  /** Note a change and (re)arm the cycle timer: `delayMs` after now (default the debounce), bounded by maxDelayMs. */
  private markDirty(delayMs = this.debounceMs): void {
    if (this.isClosed) return;
    const now = Date.now();
    this.dirtySince ??= now;
    this.lastChangeAt = now;
    this.arm(delayMs);
  }

  private arm(delayMs: number): void {
    if (this.isClosed || this.dirtySince === undefined) return;
    if (this.embedding) return; // the embedding phase sees `dirtySince` and stops at its next batch
    if (this.cycle) return; // re-armed when the running cycle ends
    const now = Date.now();
    const due = Math.max(Math.min(now + delayMs, this.dirtySince + this.maxDelayMs), this.lockedUntil);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.runCycle(), Math.max(0, due - now));
  }

  private runCycle(): void {
    this.timer = undefined;
    if (this.isClosed || this.cycle) return;
    this.dirtySince = undefined;
    this.cycle = this.cycleOnce().finally(() => {
      this.cycle = undefined;
      // An index run over 20k sessions leaves ~430 MB of garbage that Bun's lazy GC may keep for a long time in an
      // idle server; a full collection here costs ~35 ms and brings RSS from ~515 to ~85 MB (2-core VM, 2026-11).
      Bun.gc(true);
      if (this.dirtySince !== undefined) this.arm(Math.max(0, this.lastChangeAt + this.debounceMs - Date.now()));
    });
  }

  private async cycleOnce(): Promise<void> {
    await this.replan();
    if (this.isClosed) return;
    const summary = await this.runPhase(false);
    if (!summary) return;
    this.hooks.onIndexed?.(summary);
    if (!this.options.openEmbedder || this.isClosed || this.dirtySince !== undefined) return;
    this.embedding = true;
    try {
      const started = performance.now();
      const embedded = await this.runPhase(true);
      const result = embedded?.embedding;
      if (result) {
        this.armEmbedderRelease();
        if (result.embedded + result.failed > 0) this.hooks.onEmbedded?.(result, performance.now() - started);
      }
      if (embedded && embedded.added + embedded.updated + embedded.deleted + embedded.restored > 0)
        this.hooks.onIndexed?.(embedded);
    } finally {
      this.embedding = false;
    }
  }

  /**
   * One `runIndex`: keyword only, or with the model. Returns its summary, or undefined when it was skipped
   * (lock held), stopped (close, or new changes during embedding) or failed (warned; retried on the next change).
   */
  private async runPhase(withModel: boolean): Promise<IndexSummary | undefined> {
    const stopIf = (shouldStop: boolean) => {
      if (shouldStop) throw new StopRun();
    };
    const hooks: IndexHooks = {
      onProgress: (progress) => {
        stopIf(this.isClosed);
        this.hooks.onProgress?.(progress);
      },
      onEmbedProgress: () => stopIf(this.isClosed || this.dirtySince !== undefined),
      onWarning: (message) => this.warn(message),
      onNotice: (message) => this.notice(message),
    };
    // The keyword phase takes the event paths; a run that does not complete gives them back for the next one.
    const changedPaths = withModel ? [] : [...this.changedPaths];
    for (const path of changedPaths) this.changedPaths.delete(path);
    try {
      const summary = await runIndex({
        recallHome: this.options.recallHome,
        roots: this.options.roots,
        lockWaitMs: 0,
        hooks,
        openEmbedder: withModel ? this.options.openEmbedder : undefined,
        followModelChange: true, // a watcher runs in the background: it may carry a re-embed (embedding.ts)
        changedPaths,
      });
      this.lockedUntil = 0;
      this.lockRetryMs = watchDefaults.lockRetryMs;
      return summary;
    } catch (thrown) {
      for (const path of changedPaths) this.changedPaths.add(path);
      if (thrown instanceof StopRun) return undefined;
      const error = diskFullError(thrown) ?? thrown;
      if (error instanceof IndexError && error.code === "INDEX_LOCKED") {
        this.onLocked(error.message);
        return undefined;
      }
      const message = isRecallError(error)
        ? `${error.message}${error.hint ? ` (${error.hint})` : ""}`
        : `unexpected error: ${(error as Error)?.message ?? String(error)}`;
      this.warn(`${withModel ? "embedding" : "index"} cycle failed: ${message}; retrying after the next change`);
      return undefined;
    }
  }

  /** Another process holds the lock: retry after a back-off that doubles up to 30 s (never a busy loop). */
  private onLocked(message: string): void {
    const retryInMs = this.lockRetryMs;
    this.lockRetryMs = Math.min(this.lockRetryMs * 2, watchDefaults.lockRetryMaxMs);
    this.lockedUntil = Date.now() + retryInMs;
    this.dirtySince ??= Date.now();
    this.hooks.onSkipped?.({ reason: "locked", message, retryInMs });
  }

  private armEmbedderRelease(): void {
    if (!this.options.releaseEmbedder) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.embedding || this.isClosed) return this.armEmbedderRelease();
      void this.options.releaseEmbedder!().catch((error) =>
        this.warn(`could not release the embedding model: ${(error as Error).message}`),
      );
    }, this.options.embedderIdleMs ?? watchDefaults.embedderIdleMs);
    this.idleTimer.unref?.();
  }

  /** A folder could not be watched: also run a cycle every minute, so its changes are still picked up. */
  private startFallback(): void {
    if (this.fallback || this.isClosed) return;
    this.fallback = setInterval(() => this.markDirty(0), watchDefaults.fallbackIntervalMs);
  }

  private warn(message: string): void {
    if (this.isFresh(`w:${message}`)) this.hooks.onWarning?.(message);
  }

  private notice(message: string): void {
    if (this.isFresh(`n:${message}`)) this.hooks.onNotice?.(message);
  }

  /** True when `key` was not passed on within the last hour (then it is noted as passed on now). */
  private isFresh(key: string): boolean {
    const now = Date.now();
    const last = this.said.get(key);
    if (last !== undefined && now - last < repeatQuietMs) return false;
    if (this.said.size > 1000) this.said.clear();
    this.said.set(key, now);
    return true;
  }
}
