/**
 * Summaries for every front end (issue 41): `recall summarize` and the MCP `summarize_session` tool run the same
 * code. It opens the index for writing, takes the index's write lock only while a summary is stored (a run of many
 * summaries never holds up `recall index` or the watcher for longer than one write), opens the configured backend
 * lazily and closes it, and turns an interrupt (SIGINT, SIGTERM) into an orderly stop: what is in flight is counted
 * `interrupted`, what was stored stays, and the next run resumes.
 */
import { join } from "node:path";
import { loadEnvWithDotEnv } from "../embed/index.ts";
import { acquireIndexLock, databasePath, homeFiles, openIndex, type RecallPaths } from "../index/index.ts";
import {
  openSummaryBackend,
  summaryBackendConfig,
  summarizeSessions,
  type SummarizeReport,
  type SummaryBackendConfig,
  type SummaryCandidate,
} from "../summarize/index.ts";

/** Options of {@link summarizeInIndex}. */
export interface SummarizeInIndexOptions {
  recallHome: string;
  candidates: readonly SummaryCandidate[];
  dryRun?: boolean;
  limit?: number;
  retryFailed?: boolean;
  /** The recall folders whose `.env` the backend's variables may come from (the environment wins). */
  paths: RecallPaths;
  /** The environment the backend is configured from (default process.env, over the `.env` file). */
  env?: Record<string, string | undefined>;
  /** Stop on SIGINT/SIGTERM (the CLI); default false (a server's own signal handling stays as it is). */
  stopOnSignal?: boolean;
  onProgress?(settled: number, total: number): void;
}

/** A run's report and the backend it used (null when none is configured). */
export interface SummarizeInIndexResult {
  report: SummarizeReport;
  backend: SummaryBackendConfig | null;
}

/** Requests in flight at once: one for a local model (one context), four for an endpoint. */
const concurrencyOf = (config: SummaryBackendConfig | null): number => (config?.kind === "local" ? 1 : 4);

/** Milliseconds a write waits for the index's lock (an index run holds it for seconds at most between batches). */
const lockWaitMs = 30_000;

/**
 * Summarize `candidates` (newest first) in the index at `recallHome`.
 * @throws UsageError for a malformed backend configuration (summarize/config.ts); IndexError when the index cannot be
 *   opened or its lock not had within 30 s
 */
export async function summarizeInIndex(options: SummarizeInIndexOptions): Promise<SummarizeInIndexResult> {
  const config = summaryBackendConfig(loadEnvWithDotEnv(options.env ?? process.env, options.paths));
  const backend = config && !options.dryRun ? openSummaryBackend(config) : null;
  const db = openIndex(databasePath(options.recallHome));
  const abort = new AbortController();
  const stop = () => abort.abort(new Error("interrupted"));
  if (options.stopOnSignal) for (const signal of ["SIGINT", "SIGTERM"] as const) process.once(signal, stop);
  try {
    const report = await summarizeSessions({
      db,
      candidates: options.candidates,
      backend,
      dryRun: options.dryRun,
      limit: options.limit,
      retryFailed: options.retryFailed,
      concurrency: concurrencyOf(config),
      signal: abort.signal,
      onProgress: options.onProgress,
      write: async (store) => {
        const lock = await acquireIndexLock(join(options.recallHome, homeFiles.lock), lockWaitMs);
        try {
          store();
        } finally {
          lock.release();
        }
      },
    });
    return { report, backend: config };
  } finally {
    if (options.stopOnSignal) for (const signal of ["SIGINT", "SIGTERM"] as const) process.off(signal, stop);
    db.close();
    await backend?.close();
  }
}
