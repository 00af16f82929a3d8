/**
 * Embedding through an OpenAI-compatible `POST /v1/embeddings` endpoint (llama-server, Ollama, vLLM, OpenAI…):
 * batches of texts, several requests in flight, retries with exponential backoff + jitter on 408/429/5xx,
 * network errors and timeouts (Retry-After honoured), then one-by-one fallback for a batch that still fails;
 * a text that still fails yields null. Uses the built-in fetch. Config resolution is config.ts.
 */
import { EmbedError } from "../errors.ts";
import type { RemoteEmbedConfig } from "./config.ts";
import { hashText } from "./model-hash.ts";
import { fingerprintString, normalizeVector, type Embedder, type EmbedHooks, type ModelFingerprint } from "./types.ts";

/** Tuning knobs; the defaults suit a hosted API. Tests shrink the delays. */
export interface RemoteEmbedderOptions {
  /** texts per request; default 32 */
  batchSize?: number;
  /** requests in flight; default 4 */
  concurrency?: number;
  /** per-request timeout in ms; default 60000 */
  timeoutMs?: number;
  /** retries after the first attempt; default 4 */
  maxRetries?: number;
  /** first backoff in ms (doubles per retry, ×0.5–1.5 jitter); default 500 */
  baseDelayMs?: number;
  /** cap on any single wait, including Retry-After, in ms; default 30000 */
  maxDelayMs?: number;
}

class RequestFailure extends Error {
  constructor(message: string, readonly isRetryable: boolean, readonly retryAfterMs: number | undefined) {
    super(message);
  }
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
 * Creates a remote embedder. Sends one probe request ("recall") to learn the dims (from the first response).
 * @throws EmbedError(ENDPOINT_UNREACHABLE) when the probe fails after retries
 */
export async function createRemoteEmbedder(config: RemoteEmbedConfig, options: RemoteEmbedderOptions = {}): Promise<Embedder> {
  const client = new EmbeddingsClient(config, options);
  let probe: Float32Array[];
  try {
    probe = await client.requestWithRetry(["recall"], () => {});
  } catch (cause) {
    throw new EmbedError("ENDPOINT_UNREACHABLE", `embedding endpoint failed: ${config.url}: ${(cause as Error).message}`, {
      cause, hint: "check EMBEDDINGS_URL and EMBEDDINGS_API_KEY",
    });
  }
  const fingerprint: ModelFingerprint = {
    name: config.model,
    fileHash: hashText(`remote:${config.url}#${config.model}`),
    dims: probe[0]!.length,
    pooling: "unknown",
    queryPrefix: config.queryPrefix,
    documentPrefix: config.documentPrefix,
  };
  return new RemoteEmbedder(client, fingerprint, config.maxTokens, options);
}

/** Raw HTTP: one request per call, retries per the options. Vectors returned are already normalized. */
class EmbeddingsClient {
  constructor(private readonly config: RemoteEmbedConfig, private readonly options: RemoteEmbedderOptions) {}

  private async requestOnce(texts: string[]): Promise<Float32Array[]> {
    const headers: Record<string, string> = { "content-type": "application/json" };
    if (this.config.apiKey) headers.authorization = `Bearer ${this.config.apiKey}`;
    let response: Response;
    try {
      response = await fetch(this.config.url, {
        method: "POST", headers, body: JSON.stringify({ model: this.config.model, input: texts }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 60_000),
      });
    } catch (error) {
      const isTimeout = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
      throw new RequestFailure(isTimeout ? `timed out after ${this.options.timeoutMs ?? 60_000} ms` : `network error: ${String(error)}`, true, undefined);
    }
    if (!response.ok) {
      const body = (await response.text().catch(() => "")).slice(0, 200);
      const isRetryable = response.status === 408 || response.status === 429 || response.status >= 500;
      throw new RequestFailure(`http ${response.status}${body ? `: ${body}` : ""}`, isRetryable, parseRetryAfterMs(response.headers.get("retry-after")));
    }
    return parseEmbeddingsResponse(await response.json().catch(() => null), texts.length);
  }

  /** Tries up to 1 + maxRetries times; throws the last RequestFailure. */
  async requestWithRetry(texts: string[], onWarning: (message: string) => void): Promise<Float32Array[]> {
    const maxRetries = this.options.maxRetries ?? 4;
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.requestOnce(texts);
      } catch (error) {
        const failure = error instanceof RequestFailure ? error : new RequestFailure(String(error), false, undefined);
        if (!failure.isRetryable || attempt >= maxRetries) throw failure;
        const waitMs = this.backoffMs(attempt, failure.retryAfterMs);
        onWarning(`embedding request failed (${failure.message}); retry ${attempt + 1}/${maxRetries} in ${Math.round(waitMs)} ms`);
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
 * @throws RequestFailure (not retryable) when the shape is wrong or a vector is empty/non-finite
 */
function parseEmbeddingsResponse(json: unknown, expectedCount: number): Float32Array[] {
  const data = (json as { data?: unknown } | null)?.data;
  if (!Array.isArray(data) || data.length !== expectedCount) {
    throw new RequestFailure(`bad response: expected ${expectedCount} embeddings`, false, undefined);
  }
  const ordered = [...data].sort((a, b) => ((a as { index?: number }).index ?? 0) - ((b as { index?: number }).index ?? 0));
  return ordered.map((item) => {
    const vector = normalizeVector(((item as { embedding?: number[] }).embedding) ?? []);
    if (!vector) throw new RequestFailure("bad response: empty or non-finite embedding", false, undefined);
    return vector;
  });
}

class RemoteEmbedder implements Embedder {
  readonly fingerprintKey: string;
  readonly dims: number;

  constructor(
    private readonly client: EmbeddingsClient,
    readonly fingerprint: ModelFingerprint,
    readonly contextTokens: number,
    private readonly options: RemoteEmbedderOptions,
  ) {
    this.fingerprintKey = fingerprintString(fingerprint);
    this.dims = fingerprint.dims;
  }

  /**
   * Estimate without the server's tokenizer: ceil(UTF-8 bytes / 3) + 2. Deliberately high: BPE tokenizers
   * average ~4 characters per English token and ~3 for code/JSON, so chunks sized by this stay within limits.
   */
  countTokens(text: string): number {
    return Math.ceil(Buffer.byteLength(this.fingerprint.documentPrefix + text, "utf8") / 3) + 2;
  }

  async embedDocuments(texts: string[], hooks: EmbedHooks = {}): Promise<(Float32Array | null)[]> {
    const results: (Float32Array | null)[] = new Array(texts.length).fill(null);
    const batchSize = this.options.batchSize ?? 32;
    const starts: number[] = [];
    for (let start = 0; start < texts.length; start += batchSize) starts.push(start);
    let doneCount = 0;
    const runBatch = async (start: number): Promise<void> => {
      const batch = texts.slice(start, start + batchSize).map((text) => this.fingerprint.documentPrefix + text);
      const vectors = await this.embedBatchOrSingly(batch, start, hooks);
      vectors.forEach((vector, offset) => (results[start + offset] = vector));
      doneCount += batch.length;
      hooks.onProgress?.(doneCount, texts.length);
    };
    const workers = Array.from({ length: Math.min(this.options.concurrency ?? 4, starts.length) }, async () => {
      for (let next = starts.shift(); next !== undefined; next = starts.shift()) await runBatch(next);
    });
    await Promise.all(workers);
    return results;
  }

  /** One request for the batch; if it still fails after retries, one request per text; failures → null. */
  private async embedBatchOrSingly(batch: string[], firstIndex: number, hooks: EmbedHooks): Promise<(Float32Array | null)[]> {
    const warn = (message: string) => hooks.onWarning?.(message);
    try {
      return await this.client.requestWithRetry(batch, warn);
    } catch (error) {
      if (batch.length === 1) {
        hooks.onTextFailed?.(firstIndex, error);
        return [null];
      }
      warn(`embedding batch of ${batch.length} failed (${(error as Error).message}); embedding its texts one by one`);
    }
    const vectors: (Float32Array | null)[] = [];
    for (let offset = 0; offset < batch.length; offset++) {
      try {
        vectors.push((await this.client.requestWithRetry([batch[offset]!], warn))[0]!);
      } catch (error) {
        hooks.onTextFailed?.(firstIndex + offset, error);
        vectors.push(null);
      }
    }
    return vectors;
  }

  async embedQuery(text: string): Promise<Float32Array> {
    try {
      return (await this.client.requestWithRetry([this.fingerprint.queryPrefix + text], () => {}))[0]!;
    } catch (cause) {
      throw new EmbedError("ENDPOINT_UNREACHABLE", `query embedding failed: ${(cause as Error).message}`, { cause });
    }
  }

  async dispose(): Promise<void> {}
}
