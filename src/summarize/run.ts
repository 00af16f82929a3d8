/**
 * One `recall summarize` run (issue 41): for each selected session, build what is sent (prompt.ts) from the index's
 * redacted copy, skip it when a summary of the very same prompt is stored (a session is summarized again only once it
 * grew or its abstract changed), send it to the backend, and store the summary (summaries.ts) as it comes, so an
 * interrupted run resumes where it stopped. Never silent: every selected session ends in exactly one count, a summary
 * made now, one made before, or a reason it has none ({@link NotSummarizedReason}).
 * A backend that keeps failing for reasons outside the session (unreachable, timeout, rate limited, refused key) is
 * stopped after {@link consecutiveFailureLimit} such failures in a row (one failure for a refused key): the rest are
 * counted `backend_stopped`, and the run says why in one line, as the embedding circuit breaker does.
 * A refused, too-large or badly answered prompt is not sent again unless `retryFailed` (or the session changed).
 */
import type { Database } from "bun:sqlite";
import { buildSummaryPrompt, type SummarySource } from "./prompt.ts";
import { readSummaryState, storeFailure, storeSummary, summarySourceOf, type MadeSummary } from "./summaries.ts";
import { SummaryFailure, type SummaryBackend, type SummaryFailureReason, type SummaryPrompt } from "./types.ts";

/** Why a selected session has no new summary after the run. */
export type NotSummarizedReason =
  | SummaryFailureReason
  /** No backend is configured (RECALL_SUMMARY_MODEL, SUMMARIES_URL or ANTHROPIC_API_KEY). */
  | "no_backend"
  /** The backend was stopped after consecutive failures before this session's turn. */
  | "backend_stopped"
  /** `--limit` was reached before this session's turn. */
  | "over_limit"
  /** The run was interrupted (Ctrl-C) before this session's summary came back. */
  | "interrupted";

/** Failures that say the backend, not the session, is the problem: they count toward the circuit breaker. */
const backendFailures: ReadonlySet<SummaryFailureReason> = new Set(["unreachable", "timeout", "rate_limited", "auth"]);
/** Failures that say this prompt will fail again: it is not re-sent unless asked. */
const promptFailures: ReadonlySet<SummaryFailureReason> = new Set(["refused", "too_large", "bad_answer"]);

/** Backend failures in a row that stop a run (a refused key stops it at once). */
export const consecutiveFailureLimit = 3;

/** One session to summarize: its index rowid and what names it in the output. */
export interface SummaryCandidate {
  rowid: number;
  sessionId: string;
  project: string;
  title: string | null;
}

/** One session of a dry run: what would be sent. */
export interface PlannedSummary extends SummaryCandidate {
  /** Characters of system + user (UTF-16 code units). */
  characters: number;
  /** ⌈characters / 4⌉ (prompt.ts). */
  estimatedTokens: number;
}

/** What a run did, in counts that add up to `selected`. */
export interface SummarizeReport {
  selected: number;
  /** Summaries made by this run. */
  summarized: number;
  /** Sessions whose stored summary was made from the same prompt: nothing sent. */
  cached: number;
  /** Sessions with no new summary, by reason (only reasons that occurred). */
  notSummarized: Partial<Record<NotSummarizedReason, number>>;
  /** The one line that stopped the backend, when it was stopped. */
  stopped: string | null;
  /** A dry run's sessions, in order (empty otherwise): the ones that would be sent. */
  planned: PlannedSummary[];
  /** Characters and estimated tokens sent (a dry run: that would be sent). */
  characters: number;
  estimatedTokens: number;
}

/** Options of {@link summarizeSessions}. */
export interface SummarizeOptions {
  /** The index, open for writing (summaries are stored as they come, each in its own short transaction). */
  db: Database;
  candidates: readonly SummaryCandidate[];
  /** null = none configured: every session that needs a summary is counted `no_backend`. */
  backend: SummaryBackend | null;
  dryRun?: boolean;
  /** Most summaries to request in this run (cached sessions do not count); undefined = no limit. */
  limit?: number;
  /** Send again prompts that were refused, too large or badly answered before. */
  retryFailed?: boolean;
  /** The prompt's budget in characters (prompt.ts default when undefined). */
  budgetCharacters?: number;
  /** Requests in flight at once: 1 for a local model (default), a few for a remote endpoint. */
  concurrency?: number;
  /** Aborting stops the run: what is in flight is abandoned and counted `interrupted`. */
  signal?: AbortSignal;
  /** Called as each session is settled: sessions settled so far, of `candidates.length`. */
  onProgress?(settled: number, total: number): void;
  /**
   * Serializes the writes of one summary or failure (e.g. under the index's write lock); default: runs it.
   * Resolves when written.
   */
  write?(store: () => void): Promise<void>;
  /** Epoch ms now (tests); default Date.now. */
  now?(): number;
}

/** A session's prompt and its hash (the cache key), or null for a session gone since it was selected. */
function promptOf(
  db: Database,
  rowid: number,
  budget: number | undefined,
): { prompt: SummaryPrompt; hash: string } | null {
  const source: SummarySource | undefined = summarySourceOf(db, rowid);
  if (!source) return null;
  const prompt = buildSummaryPrompt(source, budget);
  return { prompt, hash: Bun.hash(`${prompt.system}\u0000${prompt.user}`).toString(16) };
}

/**
 * Summarize the candidates in order (newest first, as the caller selected them).
 * @throws what `options.write` throws (a lock that cannot be had); a backend's failures are counted, never thrown
 */
export async function summarizeSessions(options: SummarizeOptions): Promise<SummarizeReport> {
  const { db, candidates, backend } = options;
  const report: SummarizeReport = {
    selected: candidates.length,
    summarized: 0,
    cached: 0,
    notSummarized: {},
    stopped: null,
    planned: [],
    characters: 0,
    estimatedTokens: 0,
  };
  const count = (reason: NotSummarizedReason) => {
    report.notSummarized[reason] = (report.notSummarized[reason] ?? 0) + 1;
  };
  const write = options.write ?? (async (store: () => void) => store());
  const now = options.now ?? Date.now;
  let settled = 0;
  const settle = () => options.onProgress?.(++settled, candidates.length);
  let requested = 0;
  let failuresInRow = 0;

  /** One candidate: every path ends in exactly one count (none for a session gone since it was selected). */
  const runOne = async (candidate: SummaryCandidate): Promise<void> => {
    const built = promptOf(db, candidate.rowid, options.budgetCharacters);
    if (!built) {
      report.selected--; // forgotten since it was selected: no longer one of the run's sessions
      return;
    }
    const state = readSummaryState(db, candidate.rowid);
    if (state.text !== null && state.contentHash === built.hash) {
      report.cached++;
      return;
    }
    if (
      !options.retryFailed &&
      state.failure &&
      promptFailures.has(state.failure) &&
      state.failureHash === built.hash
    ) {
      count(state.failure);
      return;
    }
    if (options.signal?.aborted) {
      count("interrupted");
      return;
    }
    if (report.stopped !== null) {
      count("backend_stopped");
      return;
    }
    if (options.limit !== undefined && requested >= options.limit) {
      count("over_limit");
      return;
    }
    const { characters, estimatedTokens } = built.prompt;
    /** Counts this prompt as sent (or, in a dry run, as one that would be). */
    const charge = () => {
      requested++;
      report.characters += characters;
      report.estimatedTokens += estimatedTokens;
    };
    if (options.dryRun) {
      report.planned.push({ ...candidate, characters, estimatedTokens });
      charge();
      return;
    }
    if (!backend) {
      count("no_backend");
      return;
    }
    charge();
    try {
      const text = await backend.summarize(built.prompt, options.signal);
      if (options.signal?.aborted) throw options.signal.reason;
      const made: MadeSummary = {
        text,
        contentHash: built.hash,
        backend: backend.kind,
        model: backend.model,
        madeAt: now(),
      };
      await write(() => storeSummary(db, candidate.rowid, made));
      failuresInRow = 0;
      report.summarized++;
    } catch (error) {
      if (!(error instanceof SummaryFailure)) {
        if (options.signal?.aborted) count("interrupted");
        else throw error;
        return;
      }
      count(error.reason);
      await write(() =>
        storeFailure(db, candidate.rowid, { reason: error.reason, contentHash: built.hash, message: error.message }),
      );
      if (backendFailures.has(error.reason)) {
        failuresInRow++;
        if ((error.reason === "auth" || failuresInRow >= consecutiveFailureLimit) && report.stopped === null)
          report.stopped = `${backend.kind} ${backend.model} stopped after ${error.reason === "auth" ? "its key was refused" : `${failuresInRow} failures in a row`}: ${error.message}`;
      } else failuresInRow = 0;
    }
  };

  let next = 0;
  const worker = async () => {
    while (next < candidates.length) {
      const candidate = candidates[next++]!;
      await runOne(candidate);
      settle();
    }
  };
  const concurrency = Math.max(1, Math.min(options.concurrency ?? 1, candidates.length));
  await Promise.all(Array.from({ length: concurrency }, worker));
  return report;
}
