/**
 * Keeps a large index run's resident memory bounded: each thread that parses or writes (the parse workers, the writing
 * thread) makes a full collection of its own heap every so many session bytes it handled, once the process's resident
 * memory is above {@link residentFloorBytes} (a run over a small history makes none).
 *
 * Why: JavaScriptCore collects when its heap has grown enough by its own heuristics, and memory held outside its heap
 * (the buffers of the results passed between the threads, what the allocator keeps after a free) does not count much
 * toward them. With two parse workers and the writer all busy, that garbage was most of a run's memory, and it grew
 * with the sessions' sizes. `Bun.gc(true)` is a synchronous full collection that also hands the allocator's free pages
 * back to the system. Measured on 2026-11-30 (2-core Xeon, keyword-only first index from source):
 *   - the generated 20k corpus (25,292 sessions, 2.4 GB), two alternating runs each: peak RSS 458 and 479 MB before,
 *     317 and 315 MB with these settings; CPU time (user + system) 93.6 and 85.3 s before, 95.7 and 91.2 s with them;
 *     wall 53.6 and 49.3 s before, 54.9 and 51.8 s with them. Single runs: 455 MB when only the workers collect (so
 *     the writing thread's share matters too), ~300 MB with a collection every 32 MB in every thread;
 *   - 300 sessions of 2.5 MB (750 MB): 793–892 MB before, 322–360 MB with these settings.
 * A full collection took 20–30 ms in a parse worker and 60–95 ms in the writing thread, which holds the queued keyword
 * postings (index/postings/keyword-postings.ts); so the writer collects half as often. Gating on resident memory
 * alone made every thread collect at the same moment, each then slower (two cores for three collections).
 */

/** Resident memory (bytes) of the process below which no thread collects. */
export const residentFloorBytes = 160 * 1024 * 1024;

/** Session bytes a parse worker handles between two of its collections. */
export const workerCollectEveryBytes = 24 * 1024 * 1024;

/** Session bytes the writing thread writes between two of its collections. */
export const writerCollectEveryBytes = 48 * 1024 * 1024;

/** One thread's account of the session bytes it handled since it last collected. */
export class GarbageBudget {
  private sinceCollection = 0;

  /**
   * @param everyBytes session bytes between two collections of this thread
   * @param residentBytes the process's resident memory in bytes (`process.memoryUsage.rss`, ~3 µs here)
   * @param collect a synchronous full collection of this thread's heap
   */
  constructor(
    private readonly everyBytes: number,
    private readonly residentBytes: () => number = () => process.memoryUsage.rss(),
    private readonly collect: () => void = () => Bun.gc(true),
  ) {}

  /**
   * Note `bytes` more session bytes handled (a parse's `bytesRead`, a written batch's), and collect once `everyBytes`
   * were handled since the last collection, unless the process is under {@link residentFloorBytes}.
   */
  noteHandled(bytes: number): void {
    this.sinceCollection += bytes;
    if (this.sinceCollection < this.everyBytes || this.residentBytes() < residentFloorBytes) return;
    this.sinceCollection = 0;
    this.collect();
  }
}
