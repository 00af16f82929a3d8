/**
 * Embedding through an OpenAI-compatible `POST /v1/embeddings` endpoint (llama-server, Ollama, vLLM, OpenAI…):
 * batches of texts, several requests in flight, retries with exponential backoff + jitter on 408/429/5xx (Retry-After
 * honoured), then one-by-one fallback for a batch that still fails; a text that still fails yields null. Issue 12:
 *   * a text the server finds too large (remote-failures.ts) is never sent whole again: it is split at a blank line
 *     (turn or paragraph), else a sentence, else in the middle, the parts are embedded, and the text gets their
 *     length-weighted mean, L2-normalized (mean pooling over parts, the usual way to embed a text longer than the
 *     model's window); the size learned from the rejection pre-splits later texts, so they cost no failing request.
 *     A part of under 64 characters that is still too large is reported through `onTextRejected`;
 *   * connection refused/reset and timeouts open a circuit breaker after `breakerFailures` consecutive failed
 *     attempts (default 3): everything in flight is abandoned and `embedDocuments` throws ENDPOINT_UNREACHABLE. Bound
 *     from the endpoint dying to the throw: about baseDelayMs × 3 for refused connections (≈ 1.5 s by default); for a
 *     server that hangs, three timeouts in a row, each twice the last (below), so 7 × the first timeout;
 *   * 401/403 throw ENDPOINT_AUTH at once, never retried;
 *   * without a fixed `timeoutMs` (EMBEDDINGS_TIMEOUT_MS), the timeout follows the server's measured speed:
 *     max(30 s, 10 × the slowest ms per text seen × texts in the request × requests in flight), at most 10 min, so a
 *     slow but healthy CPU server is never abandoned; a timeout doubles the timeout and halves the batch size for
 *     later requests.
 * Uses the built-in fetch. Config resolution is config.ts; the environment overrides are remote-options.ts.
 */
import { EmbedError } from "../errors.ts";
import type { RemoteEmbedConfig } from "./config.ts";
import { hashText } from "./model-hash.ts";
import { classifyHttpFailure, RequestFailure } from "./remote-failures.ts";
import { fingerprintString, normalizeVector, type Embedder, type EmbedHooks, type ModelFingerprint } from "./types.ts";

/** Tuning knobs; the defaults suit a hosted API or a llama-server. Tests shrink the delays. */
export interface RemoteEmbedderOptions {
  /** texts per request; default 32 (EMBEDDINGS_BATCH) */
  batchSize?: number;
  /** requests in flight; default 4 (EMBEDDINGS_CONCURRENCY) */
  concurrency?: number;
  /** fixed per-request timeout in ms (EMBEDDINGS_TIMEOUT_MS); default adaptive, see the module doc */
  timeoutMs?: number;
  /** floor of the adaptive timeout in ms; default 30000 */
  minTimeoutMs?: number;
  /** retries after the first attempt; default 4 */
  maxRetries?: number;
  /** first backoff in ms (doubles per retry, ×0.5–1.5 jitter); default 500 */
  baseDelayMs?: number;
  /** cap on any single wait, including Retry-After, in ms; default 30000 */
  maxDelayMs?: number;
  /** consecutive network failures (refused, reset, timed out) that open the circuit breaker; default 3 */
  breakerFailures?: number;
}

/** Parses Retry-After (seconds or an HTTP date) into ms; undefined when absent or invalid. */
export function parseRetryAfterMs(value: string | null, nowMs: number = Date.now()): number | undefined {
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const dateMs = Date.parse(value);
  return Number.isNaN(dateMs) ? undefined : Math.max(0, dateMs - nowMs);
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * UTF-8 bytes per token that prose rarely exceeds (English averages about 4 characters per BPE token; USE's
 * SentencePiece gave 2.8 on the median chunk of the real corpus and 4.2 at the 90th percentile of whole texts).
 */
const generousBytesPerToken = 4;

/** Parts shorter than this (characters) are not split further: a rejection then is final. */
const minimumPartLength = 64;

/**
 * Creates a remote embedder. Sends one probe request ("recall") to learn the dims (from the first response).
 * @throws EmbedError(ENDPOINT_AUTH) when the endpoint refuses the key (401/403), EmbedError(ENDPOINT_UNREACHABLE)
 *   when the probe fails otherwise after retries
 */
export async function createRemoteEmbedder(
  config: RemoteEmbedConfig,
  options: RemoteEmbedderOptions = {},
): Promise<Embedder> {
  const client = new EmbeddingsClient(config, options);
  let probe: Float32Array[];
  try {
    probe = await client.requestWithRetry(["recall"], () => {});
  } catch (cause) {
    if (cause instanceof RequestFailure && cause.kind === "auth") throw authError(config.url, cause);
    throw new EmbedError(
      "ENDPOINT_UNREACHABLE",
      `embedding endpoint failed: ${config.url}: ${(cause as Error).message}`,
      {
        cause,
        hint: "check EMBEDDINGS_URL and EMBEDDINGS_API_KEY",
      },
    );
  }
  const fingerprint: ModelFingerprint = {
    name: config.model,
    fileHash: hashText(`remote:${config.url}#${config.model}`),
    dims: probe[0]!.length,
    pooling: "unknown",
    queryPrefix: config.queryPrefix,
    documentPrefix: config.documentPrefix,
  };
  return new RemoteEmbedder(client, fingerprint, config.maxTokens, options, config.bytesPerToken ?? 3);
}

function authError(url: string, cause: RequestFailure): EmbedError {
  return new EmbedError(
    "ENDPOINT_AUTH",
    `the embedding endpoint ${url} refused the API key (${cause.message.slice(0, 80)})`,
    {
      cause,
      hint: "set EMBEDDINGS_API_KEY (environment or ~/.config/recall/.env) to a key the endpoint accepts",
    },
  );
}

/** The breaker opened: the endpoint stopped answering. */
class BreakerOpen extends Error {}

/** Raw HTTP: one request per call, retries per the options, the breaker and the adaptive timeout. Vectors come back normalized. */
class EmbeddingsClient {
  /** consecutive network failures (any request); reset by any answer */
  private networkFailures = 0;
  /** set when the breaker opened: the last network failure */
  broken: RequestFailure | undefined;
  /** slowest ms per text seen in a successful request (adaptive timeout) */
  private msPerText = 0;
  /** requests in flight now */
  inFlight = 0;
  /** the adaptive timeout is multiplied by 2^timeoutLevel: each new timeout doubles it */
  private timeoutLevel = 0;
  /** timeouts in a row, each at a higher level; reset by any answer */
  private timeoutsInARow = 0;

  constructor(
    private readonly config: RemoteEmbedConfig,
    private readonly options: RemoteEmbedderOptions,
  ) {}

  /** The timeout of a request of `texts` texts, in whole ms (rounded up, so messages print it as an integer). */
  timeoutFor(texts: number): number {
    if (this.options.timeoutMs !== undefined) return this.options.timeoutMs;
    const floor = this.options.minTimeoutMs ?? 30_000;
    return Math.ceil(
      Math.min(
        600_000,
        Math.max(floor, 10 * this.msPerText * texts * Math.max(1, this.inFlight)) * 2 ** this.timeoutLevel,
      ),
    );
  }

  private async requestOnce(texts: string[]): Promise<Float32Array[]> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;
    const timeoutMs = this.timeoutFor(texts.length);
    const level = this.timeoutLevel;
    const started = performance.now();
    let response: Response;
    this.inFlight++;
    try {
      response = await fetch(this.config.url, {
        method: "POST",
        headers,
        body: JSON.stringify({ model: this.config.model, input: texts }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      if (!response.ok) {
        const body = (await response.text().catch(() => "")).slice(0, 400);
        throw classifyHttpFailure(response.status, body, parseRetryAfterMs(response.headers.get("retry-after")));
      }
      const json = await response.json().catch(() => null);
      const vectors = parseEmbeddingsResponse(json, texts.length);
      this.msPerText = Math.max(
        this.msPerText,
        (performance.now() - started) / texts.length / Math.max(1, this.inFlight),
      );
      return vectors;
    } catch (error) {
      if (error instanceof RequestFailure) throw error;
      const isTimeout = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
      if (isTimeout)
        throw new RequestFailure(`timed out after ${timeoutMs} ms`, "network", undefined, undefined, level);
      throw new RequestFailure(`network error: ${String(error)}`, "network");
    } finally {
      this.inFlight--;
    }
  }

  /**
   * Tries up to 1 + maxRetries times; throws the last RequestFailure, or BreakerOpen once the breaker is open.
   * Too-large, auth and permanent failures are never retried.
   */
  async requestWithRetry(texts: string[], onWarning: (message: string) => void): Promise<Float32Array[]> {
    const maxRetries = this.options.maxRetries ?? 4;
    for (let attempt = 0; ; attempt++) {
      if (this.broken) throw new BreakerOpen(this.broken.message);
      try {
        const vectors = await this.requestOnce(texts);
        this.networkFailures = 0;
        this.timeoutsInARow = 0;
        return vectors;
      } catch (error) {
        const failure = error instanceof RequestFailure ? error : new RequestFailure(String(error), "permanent");
        const threshold = this.options.breakerFailures ?? 3;
        if (failure.timeoutLevel !== undefined) {
          // A timeout may mean a slow server: wait twice as long from now on. Only a timeout at the newest level
          // counts (requests sent together time out together), so a hung server is given up after `threshold`
          // doublings: at most (2^threshold − 1) × the first timeout.
          if (failure.timeoutLevel === this.timeoutLevel) {
            this.timeoutLevel++;
            this.timeoutsInARow++;
          }
          if (this.timeoutsInARow >= threshold) {
            this.broken ??= failure;
            throw new BreakerOpen(failure.message);
          }
        } else if (failure.kind === "network") {
          if (++this.networkFailures >= threshold) {
            this.broken ??= failure;
            throw new BreakerOpen(failure.message);
          }
        } else {
          this.networkFailures = 0;
        }
        const retryable = failure.kind === "network" || failure.kind === "retryable";
        if (!retryable || attempt >= maxRetries) throw failure;
        const waitMs = this.backoffMs(attempt, failure.retryAfterMs);
        onWarning(
          `embedding request failed (${failure.message}); retry ${attempt + 1}/${maxRetries} in ${Math.round(waitMs)} ms`,
        );
        await sleep(waitMs);
      }
    }
  }

  private backoffMs(attempt: number, retryAfterMs: number | undefined): number {
    const maxDelayMs = this.options.maxDelayMs ?? 30_000;
    if (retryAfterMs !== undefined) return Math.min(retryAfterMs, maxDelayMs);
    const exponentialMs = (this.options.baseDelayMs ?? 500) * 2 ** attempt;
    return Math.min(exponentialMs * (0.5 + Math.random()), maxDelayMs);
  }
}

/**
 * Validates `{data: [{embedding: number[], index}]}` and orders by index.
 * @throws RequestFailure (permanent) when the shape is wrong or a vector is empty/non-finite
 */
function parseEmbeddingsResponse(json: unknown, expectedCount: number): Float32Array[] {
  const data = (json as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== expectedCount) {
    throw new RequestFailure(`bad response: expected ${expectedCount} embeddings`, "permanent");
  }
  const ordered = [...data].sort(
    (a, b) => ((a as { index?: number }).index ?? 0) - ((b as { index?: number }).index ?? 0),
  );
  return ordered.map((item) => {
    const vector = normalizeVector((item as { embedding?: number[] }).embedding ?? []);
    if (!vector) throw new RequestFailure("bad response: empty or non-finite embedding", "permanent");
    return vector;
  });
}

/**
 * Splits a text the server refused into two or more non-empty parts: at blank lines (turns, paragraphs), else at
 * sentence ends, else in the middle (on a space when there is one). Returns [text] when it cannot be split.
 */
export function splitForServer(text: string): string[] {
  const ways: Array<[RegExp, string]> = [
    [/\n{2,}/, "\n\n"],
    [/(?<=[.!?])\s+/, " "],
    [/\n/, "\n"],
  ];
  for (const [separator, joiner] of ways) {
    const pieces = text.split(separator).filter((piece) => piece.trim().length > 0);
    if (pieces.length < 2) continue;
    // Two halves of about equal length, cut at a separator.
    const total = pieces.reduce((sum, piece) => sum + piece.length, 0);
    let cut = 0;
    for (let left = 0; cut < pieces.length - 1 && left + pieces[cut]!.length <= total / 2; cut++)
      left += pieces[cut]!.length;
    cut = Math.max(1, cut);
    return [pieces.slice(0, cut).join(joiner), pieces.slice(cut).join(joiner)];
  }
  if (text.length < 2) return [text];
  const middle = text.lastIndexOf(" ", Math.floor(text.length / 2));
  const at = middle > text.length / 4 ? middle : Math.floor(text.length / 2);
  return [text.slice(0, at), text.slice(at)].filter((part) => part.trim().length > 0);
}

/** Length-weighted mean of part vectors, L2-normalized; null when it has no direction. */
function meanOfParts(parts: { vector: Float32Array; length: number }[]): Float32Array | null {
  const dims = parts[0]!.vector.length;
  const sum = new Float64Array(dims);
  for (const { vector, length } of parts) for (let i = 0; i < dims; i++) sum[i] = sum[i]! + vector[i]! * length;
  return normalizeVector(sum);
}

class RemoteEmbedder implements Embedder {
  readonly fingerprintKey: string;
  readonly dims: number;
  readonly parallelTexts: number;
  private batchSize: number;
  /** texts longer than this many UTF-8 bytes are sent alone, not in a batch (learned from too-large answers) */
  private batchBytes = Infinity;
  /**
   * texts longer than this many UTF-8 bytes are split before sending, never tried whole (learned from too-large
   * answers: see {@link learnLimit})
   */
  private splitBytes = Infinity;
  /** the most UTF-8 bytes per token of a text the endpoint refused with its sizes (0 before any) */
  private refusedBytesPerToken = 0;
  /** texts refused as too large (or the largest of a refused batch): never sent whole again */
  private readonly refusedTexts = new Set<string>();
  private warnedTooLarge = false;

  constructor(
    private readonly client: EmbeddingsClient,
    readonly fingerprint: ModelFingerprint,
    readonly contextTokens: number,
    private readonly options: RemoteEmbedderOptions,
    /** UTF-8 bytes per token of the estimate (the model family's, else 3) */
    private readonly bytesPerToken = 3,
  ) {
    this.fingerprintKey = fingerprintString(fingerprint);
    this.dims = fingerprint.dims;
    this.batchSize = Math.max(1, options.batchSize ?? 32);
    this.parallelTexts = this.batchSize * Math.max(1, options.concurrency ?? 4);
  }

  /**
   * Estimate without the server's tokenizer: ceil(UTF-8 bytes / b) + 2, b = 3 unless the model family states its own
   * (model-family.ts `bytesPerToken`: 2.2 for the Universal Sentence Encoder's SentencePiece). Deliberately high: BPE
   * tokenizers average ~4 characters per English token and ~3 for code/JSON, so chunks sized by this stay within
   * limits; the few that do not (1.1% over a 512-token server, measured 2026-11-22) are split when the server says so.
   */
  countTokens(text: string): number {
    return Math.ceil(Buffer.byteLength(this.fingerprint.documentPrefix + text, "utf8") / this.bytesPerToken) + 2;
  }

  async embedDocuments(texts: string[], hooks: EmbedHooks = {}): Promise<(Float32Array | null)[]> {
    const results: (Float32Array | null)[] = new Array(texts.length).fill(null);
    let next = 0;
    let doneCount = 0;
    let fatal: unknown;
    const warned = new Set<string>();
    const warn = (message: string) => {
      const kind = message.replace(/[\d.]+/g, "#");
      if (warned.has(kind)) return;
      warned.add(kind);
      hooks.onWarning?.(message);
    };
    const worker = async () => {
      while (fatal === undefined && next < texts.length) {
        const start = next;
        const count = Math.min(this.batchSize, texts.length - start);
        next += count;
        try {
          const vectors = await this.embedBatch(texts.slice(start, start + count), start, hooks, warn);
          for (const [offset, vector] of vectors.entries()) results[start + offset] = vector;
        } catch (error) {
          fatal ??= error;
          return;
        }
        doneCount += count;
        hooks.onProgress?.(doneCount, texts.length);
      }
    };
    await Promise.all(
      Array.from({ length: Math.min(this.options.concurrency ?? 4, Math.ceil(texts.length / this.batchSize)) }, worker),
    );
    if (fatal !== undefined) throw this.toEmbedError(fatal);
    return results;
  }

  private toEmbedError(error: unknown): unknown {
    if (error instanceof RequestFailure && error.kind === "auth") return authError(this.clientUrl, error);
    if (error instanceof BreakerOpen) {
      return new EmbedError(
        "ENDPOINT_UNREACHABLE",
        `the embedding endpoint ${this.clientUrl} stopped answering (${error.message})`,
        {
          hint: "check that the server at EMBEDDINGS_URL is running; the next `recall index` embeds the rest",
        },
      );
    }
    return error;
  }

  private get clientUrl(): string {
    return (this.client as unknown as { config: RemoteEmbedConfig }).config.url;
  }

  /**
   * One request for the texts of the batch under the learned batch size; texts over it are embedded alone
   * (embedText: whole, split when refused). When the server finds the batch too large, the largest text in it is taken
   * as the suspect: the batch size drops below it (with the server's sizes, it is learned from as if refused alone)
   * and the batch is tried again (so one long text never sends its 31 neighbours one by one). Other failures: text by
   * text.
   */
  private async embedBatch(
    batch: string[],
    firstIndex: number,
    hooks: EmbedHooks,
    warn: (message: string) => void,
  ): Promise<(Float32Array | null)[]> {
    const prefixed = batch.map((text) => this.fingerprint.documentPrefix + text);
    const sizes = prefixed.map((text) => Buffer.byteLength(text, "utf8"));
    const fitting = prefixed.flatMap((_, offset) => (sizes[offset]! <= this.batchBytes ? [offset] : []));
    const vectors: (Float32Array | null)[] = new Array(batch.length).fill(null);
    let alone = prefixed.map((_, offset) => offset).filter((offset) => !fitting.includes(offset));
    if (fitting.length > 1) {
      try {
        const embedded = await this.client.requestWithRetry(
          fitting.map((offset) => prefixed[offset]!),
          warn,
        );
        for (const [i, offset] of fitting.entries()) vectors[offset] = embedded[i]!;
      } catch (error) {
        if (!(error instanceof RequestFailure) || error.kind === "auth") throw error;
        if (error.kind === "too-large") {
          const largest = Math.max(...fitting.map((offset) => sizes[offset]!));
          this.refusedTexts.add(prefixed[fitting.find((offset) => sizes[offset] === largest)!]!);
          // With the sizes the server said, the suspect is learned from as if refused alone (its bytes per token are
          // at least the offender's, so the split size errs toward trying texts whole); without, it goes alone.
          if (error.sizes) this.learnLimit(largest, error);
          else this.batchBytes = Math.max(minimumPartLength, Math.min(this.batchBytes, largest - 1));
          this.warnTooLarge(error, warn);
          return this.embedBatch(batch, firstIndex, hooks, warn);
        }
        if (error.message.startsWith("timed out")) this.shrinkBatch(warn);
        warn(`embedding batch of ${fitting.length} failed (${error.message}); embedding its texts one by one`);
        alone = prefixed.map((_, offset) => offset);
      }
    } else {
      alone = prefixed.map((_, offset) => offset);
    }
    for (const offset of alone) {
      const outcome = await this.embedText(prefixed[offset]!, warn);
      vectors[offset] = outcome.vector;
      if (outcome.vector && outcome.parts > 1) hooks.onTextSplit?.(firstIndex + offset, outcome.parts);
      if (outcome.vector) continue;
      if (outcome.rejected) hooks.onTextRejected?.(firstIndex + offset, outcome.reason);
      else hooks.onTextFailed?.(firstIndex + offset, new Error(outcome.reason));
    }
    return vectors;
  }

  private shrinkBatch(warn: (message: string) => void): void {
    if (this.options.batchSize !== undefined && this.options.timeoutMs !== undefined) return; // both fixed by the user
    if (this.batchSize === 1) return;
    this.batchSize = Math.max(1, Math.floor(this.batchSize / 2));
    warn(`the embedding endpoint is slow: ${this.batchSize} texts per request from now on`);
  }

  /** Embeds one (prefixed) text, splitting it while the server finds it too large; `parts`: pieces embedded. */
  private async embedText(
    text: string,
    warn: (message: string) => void,
  ): Promise<{ vector: Float32Array | null; rejected: boolean; reason: string; parts: number }> {
    const bytes = Buffer.byteLength(text, "utf8");
    const parts = text.length >= 2 * minimumPartLength ? splitForServer(text) : [text];
    // Split unsent only what cannot fit (learnLimit); a text that cannot be split (say 120 CJK characters, 360 bytes
    // but a few tokens) is always tried.
    if ((bytes <= this.splitBytes && !this.refusedTexts.has(text)) || parts.length < 2) {
      try {
        return {
          vector: (await this.client.requestWithRetry([text], warn))[0]!,
          rejected: false,
          reason: "",
          parts: 1,
        };
      } catch (error) {
        if (!(error instanceof RequestFailure) || error.kind === "auth") throw error;
        if (error.kind !== "too-large") return { vector: null, rejected: false, reason: error.message, parts: 0 };
        this.refusedTexts.add(text);
        this.learnLimit(bytes, error);
        this.warnTooLarge(error, warn);
      }
    }
    if (parts.length < 2)
      return { vector: null, rejected: true, reason: "too large for the endpoint even when split", parts: 0 };
    const embedded: { vector: Float32Array; length: number }[] = [];
    let pieces = 0;
    for (const part of parts) {
      const outcome = await this.embedText(part, warn);
      if (!outcome.vector) return outcome;
      embedded.push({ vector: outcome.vector, length: part.length });
      pieces += outcome.parts;
    }
    return { vector: meanOfParts(embedded), rejected: false, reason: "", parts: pieces };
  }

  /** Says once per embedder that the endpoint refuses texts as too large and that they are split. */
  private warnTooLarge(error: RequestFailure, warn: (message: string) => void): void {
    if (this.warnedTooLarge) return;
    this.warnedTooLarge = true;
    warn(`the embedding endpoint refused a text as too large (${error.message.slice(0, 120)}); splitting such texts`);
  }

  /**
   * Learns from the refusal of one `bytes`-byte text. Texts over its size go alone from now on. When the endpoint
   * said its sizes ("N tokens, limit L"), a text is split unsent only above L × {@link generousBytesPerToken} (or the
   * most bytes per token of any text it refused, when more): a text that long is over the window unless its tokens
   * average more bytes than prose does; anything shorter is tried whole and split only when refused. Bytes per token
   * vary threefold between texts (USE on real chunks: 1.2 at the 1st percentile, 2.8 at the median), and a wrongly
   * split text is embedded worse for good, while a refusal costs one quick request. The rule before (issue 27)
   * scaled the limit by the refused text's own bytes per token and split everything over it: 4,754 of the real
   * corpus's 11,530 chunks were split, of which 209 were over the window. Without sizes, texts at least as large as
   * the refused one are split unsent.
   */
  private learnLimit(bytes: number, failure: RequestFailure): void {
    this.batchBytes = Math.max(minimumPartLength, Math.min(this.batchBytes, bytes - 1));
    if (failure.sizes) {
      this.refusedBytesPerToken = Math.max(this.refusedBytesPerToken, bytes / failure.sizes.inputTokens);
      const bytesPerToken = Math.max(generousBytesPerToken, this.refusedBytesPerToken);
      this.splitBytes = Math.max(minimumPartLength, Math.floor(failure.sizes.limitTokens * bytesPerToken));
    } else this.splitBytes = Math.max(minimumPartLength, Math.min(this.splitBytes, bytes - 1));
  }

  /** A query over the window (a pasted log) is split like a document, so it still searches instead of failing. */
  async embedQuery(text: string): Promise<Float32Array> {
    try {
      const outcome = await this.embedText(this.fingerprint.queryPrefix + text, () => {});
      if (outcome.vector) return outcome.vector;
      throw new Error(outcome.reason);
    } catch (cause) {
      if (cause instanceof RequestFailure && cause.kind === "auth") throw authError(this.clientUrl, cause);
      throw new EmbedError("ENDPOINT_UNREACHABLE", `query embedding failed: ${(cause as Error).message}`, { cause });
    }
  }

  async dispose(): Promise<void> {}
}
