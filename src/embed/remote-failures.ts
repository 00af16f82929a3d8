/**
 * What a failed request to an OpenAI-compatible `/v1/embeddings` endpoint means, so the remote embedder can act on
 * it (issue 12): `too-large` (the input exceeds what the server embeds at once: never send that text again, split
 * it), `auth` (401/403: stop, the key is wrong), `network` (refused, reset, timed out: counts toward the circuit
 * breaker), `retryable` (408, 429, other 5xx: back off and retry) and `permanent` (other 4xx, malformed answers).
 * Error bodies recognised as too-large, from the servers' sources:
 *   llama-server (tools/server/server.cpp), HTTP 500: `input is too large to process. increase the physical batch size`,
 *     newer builds `input (666 tokens) is too large to process. increase the physical batch size (current batch size: 512)`;
 *   OpenAI, HTTP 400: `This model's maximum context length is 8192 tokens, however you requested 9000 tokens`;
 *   Ollama / vLLM, HTTP 400/500: `input length exceeds the context length`, `... too many tokens ...`.
 */

/** The kind of a failed request; see the module doc. */
export type FailureKind = "too-large" | "auth" | "network" | "retryable" | "permanent";

/** A failed request: its kind, a one-line message, and what the server said about sizes when it did. */
export class RequestFailure extends Error {
  constructor(
    message: string,
    readonly kind: FailureKind,
    readonly retryAfterMs: number | undefined = undefined,
    /** tokens of the rejected input and the server's limit, when the message states them (llama-server does) */
    readonly sizes: { inputTokens: number; limitTokens: number } | undefined = undefined,
    /** set for a timeout: the timeout level (doublings) the request was sent with */
    readonly timeoutLevel: number | undefined = undefined,
  ) {
    super(message);
  }
}

const tooLargePattern =
  /too large|too long|too many tokens|exceeds? (the )?(context|maximum|max)|maximum context length|context length exceeded|input length exceeds/i;

/**
 * Classifies an HTTP error answer.
 * @param status the HTTP status (≥ 400)
 * @param body the response body (the first few hundred characters are enough)
 * @param retryAfterMs a parsed Retry-After header, if any
 */
export function classifyHttpFailure(status: number, body: string, retryAfterMs: number | undefined): RequestFailure {
  const message = `http ${status}${body ? `: ${body.slice(0, 200)}` : ""}`;
  if ((status === 400 || status === 413 || status === 500) && tooLargePattern.test(body)) {
    const input = /(\d+)\s*tokens\)?\s*is too large/i.exec(body) ?? /requested (\d+) tokens/i.exec(body);
    const limit = /batch size:\s*(\d+)/i.exec(body) ?? /maximum context length is (\d+)/i.exec(body);
    const sizes = input && limit ? { inputTokens: Number(input[1]), limitTokens: Number(limit[1]) } : undefined;
    return new RequestFailure(message, "too-large", undefined, sizes);
  }
  if (status === 401 || status === 403) return new RequestFailure(message, "auth");
  if (status === 408 || status === 429 || status >= 500) return new RequestFailure(message, "retryable", retryAfterMs);
  return new RequestFailure(message, "permanent");
}
