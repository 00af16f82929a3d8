/**
 * In-process embedding through node-llama-cpp (llama.cpp) with a GGUF model. Texts go one by one through a
 * single embedding context: node-llama-cpp 3.21 has no batch API (`getEmbeddingFor` takes one input), and
 * one text already uses every thread it is given (runtime-notes §1, §6); how many is threads.ts (the cores idle when
 * the model loads, or RECALL_THREADS), so a busy machine does not make embedding collapse. node-llama-cpp returns
 * unnormalized vectors (norms 6–20 seen), so every vector is L2-normalized here. Model download is model-files.ts.
 */
import type { LlamaEmbeddingContext, LlamaModel, Token } from "node-llama-cpp";
import { EmbedError } from "../errors.ts";
import type { LocalEmbedConfig } from "./config.ts";
import { readGgufModelInfo, type GgufModelInfo } from "./gguf-header.ts";
import { getSharedLlama } from "./load-runtime.ts";
import { hashModelFile } from "./model-hash.ts";
import { recognizeModelFamily, resolvePrefixes } from "./model-family.ts";
import { chooseThreads } from "./threads.ts";
import { fingerprintString, normalizeVector, type Embedder, type EmbedHooks, type ModelFingerprint } from "./types.ts";

/** Options of `createLocalEmbedder`. */
export interface LocalEmbedderOptions {
  /** cap on the context size in tokens (memory grows with it); default 2048, never above the model's training context */
  maxContextTokens?: number;
  /** llama.cpp threads; default `chooseThreads()` (threads.ts: RECALL_THREADS, else the cores idle now) */
  threads?: number;
}

/**
 * Loads the model and one embedding context (bge-small shape: ~220 ms load, runtime-notes §6).
 * @returns an Embedder whose contextTokens = min(train context, maxContextTokens, preset maxInputTokens + 1) - 1 (node-llama-cpp requires
 *   input length < context size; BOS/EOS included in the count)
 * @throws EmbedError(MODEL_MISSING) when the file is missing or not GGUF; EmbedError(EMBED_FAILED) when
 *   llama.cpp cannot load it
 */
export async function createLocalEmbedder(
  config: LocalEmbedConfig,
  options: LocalEmbedderOptions = {},
): Promise<Embedder> {
  const info = readGgufModelInfo(config.modelPath);
  checkPooling(config, info);
  const fileHash = await hashModelFile(config.modelPath, config.modelsFolder);
  const llama = await getSharedLlama();
  let model: LlamaModel;
  try {
    model = await llama.loadModel({ modelPath: config.modelPath });
  } catch (cause) {
    throw new EmbedError("EMBED_FAILED", `cannot load model ${config.modelPath}: ${String(cause)}`, { cause });
  }
  // The family's configured maximum input (all-MiniLM-L6-v2: 256) caps the context, so chunks are cut to fit it.
  const family = recognizeModelFamily(config.preset?.name ?? config.name) ?? recognizeModelFamily(info.name);
  const maxInput = config.preset?.maxInputTokens ?? family?.maxInputTokens;
  const inputCap = maxInput !== undefined ? maxInput + 1 : Infinity;
  const contextSize = Math.max(8, Math.min(model.trainContextSize, options.maxContextTokens ?? 2048, inputCap));
  let context: LlamaEmbeddingContext;
  try {
    const threads = options.threads ?? (await chooseThreads()).threads;
    context = await model.createEmbeddingContext({ contextSize, batchSize: contextSize, threads });
  } catch (cause) {
    await model.dispose();
    throw new EmbedError(
      "EMBED_FAILED",
      `cannot create an embedding context for ${config.modelPath}: ${String(cause)}`,
      { cause },
    );
  }
  const fingerprint: ModelFingerprint = {
    name: config.name,
    fileHash,
    dims: model.embeddingVectorSize,
    pooling: info.pooling,
    // A preset's own prefixes, else its family's (a file or GGUF name such as nomic-embed-text-v1.5.Q4_K_M).
    ...resolvePrefixes(
      { EMBEDDINGS_QUERY_PREFIX: config.queryPrefix, EMBEDDINGS_DOCUMENT_PREFIX: config.documentPrefix },
      config.preset ?? family,
    ),
  };
  return new LocalEmbedder(model, context, fingerprint, contextSize - 1);
}

/**
 * The GGUF's pooling must be the one its family was trained with: llama.cpp pools by the file's `pooling_type`, and a
 * file without it gives unpooled or last-token vectors that look valid and rank badly (issue 12).
 * @throws EmbedError(EMBED_FAILED) naming both poolings and what to do
 */
function checkPooling(config: LocalEmbedConfig, info: GgufModelInfo): void {
  const family = recognizeModelFamily(config.preset?.name ?? config.name) ?? recognizeModelFamily(info.name);
  const expected = config.preset?.pooling ?? family?.pooling;
  if (expected === undefined || expected === info.pooling) return;
  throw new EmbedError(
    "EMBED_FAILED",
    `${config.modelPath} has ${info.pooling} pooling in its GGUF metadata, but ${family?.id ?? config.name} models need ${expected} pooling`,
    {
      hint: `use a GGUF converted with pooling_type ${expected} (llama.cpp convert_hf_to_gguf.py sets it), e.g. \`recall model pull ${config.preset?.name ?? "<preset>"}\``,
    },
  );
}

class LocalEmbedder implements Embedder {
  readonly fingerprintKey: string;
  readonly dims: number;
  private disposed = false;

  constructor(
    private readonly model: LlamaModel,
    private readonly context: LlamaEmbeddingContext,
    readonly fingerprint: ModelFingerprint,
    readonly contextTokens: number,
  ) {
    this.fingerprintKey = fingerprintString(fingerprint);
    this.dims = fingerprint.dims;
  }

  countTokens(text: string): number {
    return this.context.calculateInputLength(this.fingerprint.documentPrefix + text);
  }

  /**
   * Tokenizes and truncates to the context (BOS/EOS are added by node-llama-cpp: keep 2 spare). With last-token
   * pooling (Qwen3-Embedding) the input must end with the end-of-text token, whose state is the embedding (the model
   * card appends it); it is appended when the tokenizer did not.
   */
  private tokenizeTruncated(text: string): Token[] {
    const tokens = this.model.tokenize(text);
    const budget = this.contextTokens - 2;
    const kept = tokens.length > budget ? tokens.slice(0, budget) : tokens;
    const eos = this.fingerprint.pooling === "last" ? this.model.tokens.eos : null;
    return eos !== null && kept.at(-1) !== eos ? [...kept, eos] : kept;
  }

  private async embedOne(text: string): Promise<Float32Array | null> {
    if (this.disposed) throw new EmbedError("EMBED_FAILED", "embedder was disposed");
    const embedding = await this.context.getEmbeddingFor(this.tokenizeTruncated(text));
    return normalizeVector(embedding.vector);
  }

  async embedDocuments(texts: string[], hooks: EmbedHooks = {}): Promise<(Float32Array | null)[]> {
    const vectors: (Float32Array | null)[] = [];
    for (let i = 0; i < texts.length; i++) {
      let vector: Float32Array | null = null;
      try {
        vector = await this.embedOne(this.fingerprint.documentPrefix + texts[i]!);
        if (vector === null) hooks.onTextFailed?.(i, new Error("model returned an empty or non-finite vector"));
      } catch (error) {
        if (this.disposed) throw error;
        hooks.onTextFailed?.(i, error);
      }
      vectors.push(vector);
      hooks.onProgress?.(i + 1, texts.length);
    }
    return vectors;
  }

  async embedQuery(text: string): Promise<Float32Array> {
    let vector: Float32Array | null;
    try {
      vector = await this.embedOne(this.fingerprint.queryPrefix + text);
    } catch (cause) {
      throw cause instanceof EmbedError
        ? cause
        : new EmbedError("EMBED_FAILED", `query embedding failed: ${String(cause)}`, { cause });
    }
    if (!vector) throw new EmbedError("EMBED_FAILED", "query embedding failed: the model returned an empty vector");
    return vector;
  }

  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    await this.context.dispose();
    await this.model.dispose();
  }
}
