/**
 * One JSON POST to a chat API with what both remote backends need (issue 41): a per-request timeout (default
 * 120 s, SUMMARIES_TIMEOUT_MS), waits and retries on 429/503/529 and other 5xx (Retry-After honoured, in seconds or an
 * HTTP date; at most 3 retries and 60 s of waiting in all), and every failure as a SummaryFailure. HTTP answers are
 * classified by the embeddings endpoint's rules (embed/remote-failures.ts: too large, auth, retryable, permanent).
 * The API key never appears in a message: it is masked wherever a server echoes it.
 */
import { parseRetryAfterMs } from "../embed/remote-embedder.ts";
import { classifyHttpFailure } from "../embed/remote-failures.ts";
import { SummaryFailure } from "./types.ts";

/** Tuning of the remote backends; the defaults suit a hosted API or a llama-server. Tests shrink them. */
export interface ChatHttpOptions {
  /** per-request timeout in ms; default 120,000 (SUMMARIES_TIMEOUT_MS) */
  timeoutMs?: number;
  /** retries after the first attempt on 429/503/529/5xx; default 3 */
  maxRetries?: number;
  /** the most time spent waiting between attempts, over all retries, in ms; default 60,000 */
  maxTotalWaitMs?: number;
  /** first wait when the server gives no Retry-After, in ms (doubles per retry); default 1,000 */
  baseDelayMs?: number;
}

/** One request: where, the headers (with the key), the JSON body, and the key to mask in messages. */
export interface ChatRequest {
  url: string;
  headers: Record<string, string>;
  body: unknown;
  /** the API key, masked as `***` wherever a server's message repeats it */
  secret: string | undefined;
}

/** Statuses that mean "busy, ask again later" rather than "broken": rate limited, unavailable, overloaded (Anthropic). */
const busyStatuses = new Set([429, 503, 529]);

const abortable = (ms: number, signal: AbortSignal | undefined) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** An HTTP failure answer: its status, the start of its body and its Retry-After in ms. */
interface HttpAnswer {
  status: number;
  body: string;
  retryAfterMs: number | undefined;
}

/**
 * Returns the parsed JSON of a 2xx answer.
 * @throws SummaryFailure: `timeout` (no answer within timeoutMs), `unreachable` (refused, reset, DNS; or 5xx and 404
 *   after the retries), `rate_limited` (429/503/529 after the retries or past 60 s of waiting; retryAfterMs set when the
 *   server gave one), `auth` (401/403), `too_large` (413 always; 400/500 whose body says the input is too long),
 *   `bad_answer` (another 4xx, or a body that is not JSON); an aborted `signal` rejects with its reason
 */
export async function postChatJson(
  request: ChatRequest,
  options: ChatHttpOptions = {},
  signal?: AbortSignal,
): Promise<unknown> {
  const maxRetries = options.maxRetries ?? 3;
  const maxTotalWaitMs = options.maxTotalWaitMs ?? 60_000;
  let waitedMs = 0;
  for (let attempt = 0; ; attempt++) {
    const outcome = await postOnce(request, options.timeoutMs ?? 120_000, signal);
    if (!("status" in outcome)) return outcome.json;
    const failure = classifyHttpFailure(outcome.status, outcome.body, outcome.retryAfterMs);
    const spendCap = /enforced_spend_limit_reached/.test(outcome.body);
    if (failure.kind !== "retryable" || outcome.status === 408 || spendCap)
      throw failureOf(request, outcome, failure.kind, spendCap);
    const waitMs = outcome.retryAfterMs ?? (options.baseDelayMs ?? 1_000) * 2 ** attempt;
    if (attempt >= maxRetries || waitedMs + waitMs > maxTotalWaitMs) throw failureOf(request, outcome, "retryable");
    await abortable(waitMs, signal);
    waitedMs += waitMs;
  }
}

/** One attempt: the JSON of a 2xx answer, or the failure answer to classify. */
async function postOnce(
  request: ChatRequest,
  timeoutMs: number,
  signal: AbortSignal | undefined,
): Promise<{ json: unknown } | HttpAnswer> {
  const timeout = AbortSignal.timeout(timeoutMs);
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...request.headers },
      body: JSON.stringify(request.body),
      signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
    });
    if (!response.ok) {
      const body = mask((await response.text().catch(() => "")).slice(0, 2_000), request.secret);
      return { status: response.status, body, retryAfterMs: parseRetryAfterMs(response.headers.get("retry-after")) };
    }
    const text = await response.text();
    try {
      return { json: JSON.parse(text) as unknown };
    } catch {
      throw new SummaryFailure(
        "bad_answer",
        `${request.url} answered with a body that is not JSON: ${text.slice(0, 80)}`,
      );
    }
  } catch (error) {
    if (error instanceof SummaryFailure) throw error;
    if (signal?.aborted) throw signal.reason;
    if (timeout.aborted)
      throw new SummaryFailure("timeout", `${request.url} did not answer within ${timeoutMs} ms`, { cause: error });
    throw new SummaryFailure("unreachable", `cannot reach ${request.url}: ${mask(String(error), request.secret)}`, {
      cause: error,
    });
  }
}

/** The SummaryFailure of a failure answer, by its remote-failures.ts kind. */
function failureOf(
  request: ChatRequest,
  answer: HttpAnswer,
  kind: "too-large" | "auth" | "network" | "retryable" | "permanent",
  spendCap = false,
): SummaryFailure {
  const message = `${request.url} answered http ${answer.status}${answer.body ? `: ${answer.body.slice(0, 200)}` : ""}`;
  // 413 is "Payload Too Large" by definition (Anthropic's request_too_large), whatever the body says.
  if (kind === "too-large" || answer.status === 413) return new SummaryFailure("too_large", message);
  if (kind === "auth") return new SummaryFailure("auth", message);
  if (spendCap || (kind === "retryable" && busyStatuses.has(answer.status)))
    return new SummaryFailure(
      "rate_limited",
      message,
      answer.retryAfterMs === undefined ? {} : { retryAfterMs: answer.retryAfterMs },
    );
  if (answer.status === 408) return new SummaryFailure("timeout", message);
  if (kind === "retryable" || answer.status === 404) return new SummaryFailure("unreachable", message);
  return new SummaryFailure("bad_answer", message);
}

/** `text` with every occurrence of `secret` replaced by `***`. */
function mask(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join("***") : text;
}
