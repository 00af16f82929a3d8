/**
 * The seam between `recall summarize` (the command, its cache and display: the lead's) and the backends that turn one
 * session into one short summary (issue 41, "Summaries on request"): a local chat GGUF (local-chat.ts), an
 * OpenAI-compatible `/v1/chat/completions` endpoint (openai-chat.ts) or Anthropic's Messages API (anthropic.ts).
 * What is sent is built by prompt.ts; what comes back is cleaned by answer.ts; config.ts picks the backend.
 */

/** What one backend is asked: a system prompt and one user message, already cut to a budget (prompt.ts). */
export interface SummaryPrompt {
  /** the instructions: 2–3 plain sentences, what was asked, done, how it ended, the files that mattered */
  system: string;
  /** the session, most telling parts first (prompt.ts) */
  user: string;
  /** characters of system + user (UTF-16 code units, as `String.length`) */
  characters: number;
  /** characters / 4 rounded up: a rough token count (English prose averages about 4 characters per BPE token) */
  estimatedTokens: number;
}

/** Why a summary could not be made; the command decides whether to retry later, skip or stop. */
export type SummaryFailureReason =
  | "refused"
  | "too_large"
  | "rate_limited"
  | "bad_answer"
  | "unreachable"
  | "auth"
  | "timeout";

/**
 * A summary that failed, with why. Messages are one lower-case line naming the backend's URL or model, never a key.
 * `retryAfterMs` is set for `rate_limited` when the server said how long to wait (Retry-After), in ms.
 */
export class SummaryFailure extends Error {
  readonly reason: SummaryFailureReason;
  readonly retryAfterMs: number | undefined;

  constructor(reason: SummaryFailureReason, message: string, options: { retryAfterMs?: number; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = "SummaryFailure";
    this.reason = reason;
    this.retryAfterMs = options.retryAfterMs;
  }
}

/** One summarizer. `summarize` may be called many times, one call at a time or concurrently; `close` frees it. */
export interface SummaryBackend {
  kind: "local" | "openai" | "anthropic";
  /** the model as shown to the user: a GGUF file's base name, or the model id sent to the API */
  model: string;
  /**
   * Returns the cleaned summary (answer.ts: plain sentences, at most 1,500 characters).
   * @throws SummaryFailure for every failure a user can meet (reason says which); an aborted `signal` rejects with
   *   the signal's reason
   */
  summarize(prompt: SummaryPrompt, signal?: AbortSignal): Promise<string>;
  /** Releases the model or connections; later `summarize` calls reload or reconnect. Never throws. */
  close(): Promise<void>;
}
