/**
 * The embedder contract shared by the local (node-llama-cpp) and remote (OpenAI-compatible) backends,
 * plus the model fingerprint the index stores to detect "built with another model" (IndexError).
 * Vectors are L2-normalized Float32Arrays of `dims` floats (DESIGN.md "Embedding").
 */

/** Pooling of token states into one vector (llama.cpp `pooling_type` names). */
export type Pooling = "none" | "mean" | "cls" | "last" | "rank" | "unknown";

/** Identity of the model that produced a set of vectors; two indexes are compatible iff their stable strings match. */
export interface ModelFingerprint {
  /** preset name, file base name, or the remote model name */
  name: string;
  /** hex sha256 of the model file; remote: sha256 of "remote:<url>#<model>" */
  fileHash: string;
  dims: number;
  pooling: Pooling;
  queryPrefix: string;
  documentPrefix: string;
}

/** Progress and failure hooks for `embedDocuments`; called synchronously, must not throw. */
export interface EmbedHooks {
  /** after each finished text (local) or batch (remote): counts in texts */
  onProgress?: (doneCount: number, totalCount: number) => void;
  /** one text got no vector; `index` is its position in the input array */
  onTextFailed?: (index: number, error: unknown) => void;
  /**
   * `texts[index]` can never be embedded by this model or endpoint (e.g. the server rejects it as too large even
   * after splitting, or it holds nothing to embed): its result is null and the caller must not send it again
   * until the model changes. Called instead of `onTextFailed`, never both.
   */
  onTextRejected?: (index: number, reason: string) => void;
  /**
   * `texts[index]` was longer than the endpoint's window: it was split and embedded as the length-weighted mean of
   * `parts` pieces (remote; issue 27). Called before the text's result is returned, only for parts ≥ 2.
   */
  onTextSplit?: (index: number, parts: number) => void;
  /** a retry or fallback happened (remote) */
  onWarning?: (message: string) => void;
}

/** A loaded embedding model. Not thread-safe: one `embedDocuments` call at a time. */
export interface Embedder {
  readonly fingerprint: ModelFingerprint;
  /** `fingerprintString(fingerprint)`, stored in the index */
  readonly fingerprintKey: string;
  /** vector length */
  readonly dims: number;
  /** the context (tokens) one text may use; longer texts are truncated to it (local) */
  readonly contextTokens: number;
  /**
   * Texts one `embedDocuments` call can keep busy at once (remote: texts per request × requests in flight); absent for
   * a backend that embeds one text after another (local). The index checkpoints every max(32, this) texts.
   */
  readonly parallelTexts?: number;
  /** tokens in `text` by the model's tokenizer (remote: an estimate, see remote-embedder.ts) */
  countTokens(text: string): number;
  /**
   * Embeds texts with the document prefix. Result i belongs to texts[i]: an L2-normalized vector, or null when
   * that text failed (never a zero vector); the caller records nulls and retries them on the next run, except the
   * ones reported through `hooks.onTextRejected` (permanent).
   * @throws EmbedError(ENDPOINT_UNREACHABLE) when the endpoint stopped answering (remote circuit breaker: several
   *   consecutive connection failures or timeouts); the texts of this call are then neither failed nor rejected
   * @throws EmbedError(ENDPOINT_AUTH) when the endpoint refuses the credentials (401/403)
   */
  embedDocuments(texts: string[], hooks?: EmbedHooks): Promise<(Float32Array | null)[]>;
  /** Embeds one query with the query prefix; throws EmbedError(EMBED_FAILED) on failure. */
  embedQuery(text: string): Promise<Float32Array>;
  /** Frees the model and context; idempotent. */
  dispose(): Promise<void>;
}

/** What a search needs of a model: its identity and query embeddings (an Embedder, or the embedding helper's client). */
export type QueryEmbedder = Pick<Embedder, "fingerprint" | "fingerprintKey" | "dims" | "embedQuery">;

/**
 * Stable one-line form of a fingerprint (JSON with fixed key order), e.g.
 * `{"name":"bge-small-en-v1.5","fileHash":"ab12…","dims":384,"pooling":"cls","queryPrefix":"…","documentPrefix":""}`.
 */
export function fingerprintString(fingerprint: ModelFingerprint): string {
  const { name, fileHash, dims, pooling, queryPrefix, documentPrefix } = fingerprint;
  return JSON.stringify({ name, fileHash, dims, pooling, queryPrefix, documentPrefix });
}

/**
 * Returns `values` scaled to unit L2 norm as a new Float32Array.
 * @returns null when the vector is empty, all zeros, or contains NaN/Infinity (a failed embedding, not a vector)
 */
export function normalizeVector(values: ArrayLike<number>): Float32Array | null {
  let sumSquares = 0;
  for (let i = 0; i < values.length; i++) sumSquares += values[i]! * values[i]!;
  if (values.length === 0 || !Number.isFinite(sumSquares) || sumSquares === 0) return null;
  const scale = 1 / Math.sqrt(sumSquares);
  const out = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = values[i]! * scale;
  return out;
}
