/**
 * Progress on stderr: a cli-progress bar when stderr is a TTY, nothing at all on a pipe (an agent
 * reading stdout/stderr never sees bar frames). Returns hooks for the indexer.
 */
import type { SingleBar } from "cli-progress";
import { isTerminal, setLiveLine } from "./terminal.ts";

/** A progress display; `stop()` clears the bar. */
export interface ProgressDisplay {
  onProgress(progress: { source: string; done: number; total: number }): void;
  stop(): void;
}

/**
 * Create a progress display for an index run (no-op when stderr is not a TTY). cli-progress is
 * imported only here, on a TTY, so searches from agents and pipes never pay for loading it. While a bar is
 * drawn, terminal.ts `writeErr` writes notices above it (the bar is registered as the live line).
 */
export async function createIndexProgress(): Promise<ProgressDisplay> {
  if (!isTerminal(2)) return { onProgress() {}, stop() {} };
  const stream = process.stderr;
  const { SingleBar } = await import("cli-progress");
  let bar: SingleBar | undefined;
  let current = "";
  return {
    onProgress({ source, done, total }) {
      if (current !== source) {
        setLiveLine(undefined);
        bar?.stop();
        current = source;
        // forceRedraw: a redraw after a notice must draw even when the bar's text did not change.
        const next = new SingleBar({
          stream,
          format: `${source === "embeddings" ? "embedding  " : `indexing ${source.padEnd(11)}`} [{bar}] {value}/{total} ${source === "embeddings" ? "chunks" : "sessions"}`,
          clearOnComplete: true,
          hideCursor: true,
          forceRedraw: true,
        });
        bar = next;
        next.start(total, 0);
        setLiveLine({ redraw: () => next.render() });
      }
      bar?.update(done);
    },
    stop() {
      setLiveLine(undefined);
      bar?.stop();
    },
  };
}

/**
 * One labelled progress bar on stderr (`pushing   [====] 120/400 sessions`), or nothing when stderr is not a TTY.
 * @returns `update(done, total)` and `stop()` (clears the bar)
 */
export async function createProgressBar(
  label: string,
  unit: string,
): Promise<{ update(done: number, total: number): void; stop(): void }> {
  if (!isTerminal(2)) return { update() {}, stop() {} };
  const { SingleBar } = await import("cli-progress");
  const bar = new SingleBar({
    stream: process.stderr,
    format: `${label.padEnd(10)} [{bar}] {value}/{total} ${unit}`,
    clearOnComplete: true,
    hideCursor: true,
    forceRedraw: true,
  });
  let started = false;
  return {
    update(done, total) {
      if (!started) {
        started = true;
        bar.start(total, done);
        setLiveLine({ redraw: () => bar.render() });
      } else bar.update(done);
    },
    stop() {
      setLiveLine(undefined);
      if (started) bar.stop();
    },
  };
}
