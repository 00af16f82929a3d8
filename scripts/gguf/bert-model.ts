/**
 * Builds a BERT-shaped embedding model with deterministic pseudo-random weights and writes it as GGUF.
 * Keys and tensor list follow llama.cpp's LLM_ARCH_BERT loader (runtime-notes §6): notably
 * `tokenizer.ggml.token_type_count = 2` (without it llama.cpp refuses the model). The tokenizer is either WordPiece
 * ("bert") or byte-level BPE ("gpt2" + merges): llama.cpp's BERT graph never looks at the vocab type. Weights are uniform noise
 * from a seeded PRNG, so the model has real shapes and speed but no meaning: good for tests and benchmarks only.
 */
import { writeGguf, type MetaValue, type TensorSpec, type TensorType } from "./gguf-writer.ts";
import {
  buildSyntheticVocab,
  loadBgeVocab,
  loadQwen2Vocab,
  type BpeVocab,
  type Vocab,
  type WordPieceVocab,
} from "./vocab.ts";

/** Shape and format of a generated model. */
export interface BertModelOptions {
  layers: number;
  /** hidden size = output vector dims */
  embd: number;
  heads: number;
  /** feed-forward size */
  ff: number;
  /** training context in tokens (also the position-embedding rows) */
  ctx: number;
  type: TensorType;
  pooling: "mean" | "cls";
  /** synthetic WordPiece (~260 tokens), real BGE WordPiece (30,522) or real Qwen2 byte-level BPE cut to 151,669 ids */
  vocab: "synthetic" | "bge" | "qwen2";
  /** PRNG seed; same seed + options = byte-identical file */
  seed: number;
  /** `general.name` */
  name: string;
}

/**
 * Named shapes: tiny (tests), bge-small (12L 384d) and qwen3-0.6b-like (28L 1024d 3072 ff with Qwen3-Embedding-0.6B's
 * 151,669-token Qwen2 BPE vocab: Qwen3's shape and vocabulary, BERT's architecture).
 */
export const modelShapes = {
  tiny: { layers: 2, embd: 64, heads: 4, ff: 128, ctx: 512, type: "f32", pooling: "mean", vocab: "synthetic" },
  "bge-small": { layers: 12, embd: 384, heads: 12, ff: 1536, ctx: 512, type: "q8_0", pooling: "cls", vocab: "bge" },
  "qwen3-0.6b-like": {
    layers: 28,
    embd: 1024,
    heads: 16,
    ff: 3072,
    ctx: 2048,
    type: "q8_0",
    pooling: "mean",
    vocab: "qwen2",
  },
} as const satisfies Record<string, Omit<BertModelOptions, "seed" | "name">>;

export type ModelShapeName = keyof typeof modelShapes;

/** mulberry32: a tiny seeded PRNG returning floats in [0, 1). */
function createRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hashName(name: string): number {
  let hash = 2166136261;
  for (let i = 0; i < name.length; i++) hash = Math.imul(hash ^ name.charCodeAt(i), 16777619);
  return hash >>> 0;
}

/** A filler with values center ± spread, seeded by (model seed, tensor name) so streaming order never matters (also llama-model.ts). */
export function noise(seed: number, name: string, center: number, spread: number): (out: Float32Array) => void {
  const random = createRandom(seed ^ hashName(name));
  return (out) => {
    for (let i = 0; i < out.length; i++) out[i] = center + (random() * 2 - 1) * spread;
  };
}

function buildMetadata(options: BertModelOptions, vocab: Vocab): [string, MetaValue][] {
  const u32 = (value: number): MetaValue => ({ type: "u32", value });
  return [
    ["general.architecture", { type: "string", value: "bert" }],
    ["general.name", { type: "string", value: options.name }],
    ["general.alignment", u32(32)],
    ["bert.context_length", u32(options.ctx)],
    ["bert.embedding_length", u32(options.embd)],
    ["bert.feed_forward_length", u32(options.ff)],
    ["bert.block_count", u32(options.layers)],
    ["bert.attention.head_count", u32(options.heads)],
    ["bert.attention.layer_norm_epsilon", { type: "f32", value: 1e-12 }],
    ["bert.attention.causal", { type: "bool", value: false }],
    ["bert.pooling_type", u32(options.pooling === "mean" ? 1 : 2)],
    ["tokenizer.ggml.model", { type: "string", value: vocab.model }],
    ["tokenizer.ggml.pre", { type: "string", value: vocab.pre }],
    // llama.cpp's BERT loader needs a token-type count whatever the tokenizer (src/models/bert.cpp).
    ["tokenizer.ggml.token_type_count", u32(2)],
    ["tokenizer.ggml.tokens", { type: "string[]", value: vocab.tokens }],
    ["tokenizer.ggml.token_type", { type: "i32[]", value: vocab.tokenTypes }],
    ...(vocab.model === "gpt2" ? bpeSpecialMetadata(vocab) : wordPieceSpecialMetadata(vocab)),
  ];
}

/** Merges, then the special ids and add_* flags exactly as the source vocab file declares them. */
function bpeSpecialMetadata(vocab: BpeVocab): [string, MetaValue][] {
  return [
    ["tokenizer.ggml.merges", { type: "string[]", value: vocab.merges }],
    ...vocab.specialIds.map(([key, id]): [string, MetaValue] => [key, { type: "u32", value: id }]),
    ...vocab.addFlags.map(([key, value]): [string, MetaValue] => [key, { type: "bool", value }]),
  ];
}

/** The five WordPiece special ids, then bos = [CLS] and eos = [SEP] (key order fixed: tests hash these files). */
function wordPieceSpecialMetadata(vocab: WordPieceVocab): [string, MetaValue][] {
  const u32 = (value: number): MetaValue => ({ type: "u32", value });
  return [
    ["tokenizer.ggml.unknown_token_id", u32(vocab.unkId)],
    ["tokenizer.ggml.seperator_token_id", u32(vocab.sepId)],
    ["tokenizer.ggml.padding_token_id", u32(vocab.padId)],
    ["tokenizer.ggml.cls_token_id", u32(vocab.clsId)],
    ["tokenizer.ggml.mask_token_id", u32(vocab.maskId)],
    // llama.cpp's WPM defaults bos to 101 (BGE's [CLS]); node-llama-cpp prepends bos and appends sep, so point
    // bos at this vocab's [CLS] or the synthetic vocab would start every input with an ordinary token.
    ["tokenizer.ggml.bos_token_id", u32(vocab.clsId)],
    ["tokenizer.ggml.eos_token_id", u32(vocab.sepId)],
  ];
}

function buildTensors(options: BertModelOptions, vocabSize: number): TensorSpec[] {
  const { embd, ff, seed } = options;
  // 2-D matrices may be quantized; norms, biases and the tiny token-type table stay f32 (llama.cpp expects that).
  const matrix = (name: string, dims: number[], spread = 0.05): TensorSpec => ({
    name,
    dims,
    type: options.type,
    fill: noise(seed, name, 0, spread),
  });
  const vector = (name: string, length: number, center: number, spread: number): TensorSpec => ({
    name,
    dims: [length],
    type: "f32",
    fill: noise(seed, name, center, spread),
  });
  const norm = (prefix: string): TensorSpec[] => [
    vector(`${prefix}.weight`, embd, 1, 0.05),
    vector(`${prefix}.bias`, embd, 0, 0.01),
  ];
  const tensors: TensorSpec[] = [
    matrix("token_embd.weight", [embd, vocabSize], 0.5),
    { name: "token_types.weight", dims: [embd, 2], type: "f32", fill: noise(seed, "token_types", 0, 0.05) },
    matrix("position_embd.weight", [embd, options.ctx], 0.1),
    ...norm("token_embd_norm"),
  ];
  for (let layer = 0; layer < options.layers; layer++) {
    const blk = `blk.${layer}`;
    for (const part of ["attn_q", "attn_k", "attn_v", "attn_output"]) {
      tensors.push(matrix(`${blk}.${part}.weight`, [embd, embd]), vector(`${blk}.${part}.bias`, embd, 0, 0.01));
    }
    tensors.push(...norm(`${blk}.attn_output_norm`));
    tensors.push(matrix(`${blk}.ffn_up.weight`, [embd, ff]), vector(`${blk}.ffn_up.bias`, ff, 0, 0.01));
    tensors.push(matrix(`${blk}.ffn_down.weight`, [ff, embd]), vector(`${blk}.ffn_down.bias`, embd, 0, 0.01));
    tensors.push(...norm(`${blk}.layer_output_norm`));
  }
  return tensors;
}

/**
 * Generates the model and writes it to `path` (atomically).
 * @returns file size in bytes, tensor count and vocab size
 * @throws Error when embd is not divisible by heads, or (q8_0) embd/ff are not multiples of 32
 */
export function writeBertModel(
  path: string,
  options: BertModelOptions,
): { sizeBytes: number; tensorCount: number; vocabSize: number } {
  if (options.embd % options.heads !== 0)
    throw new Error(`embd ${options.embd} is not divisible by heads ${options.heads}`);
  const vocab =
    options.vocab === "qwen2" ? loadQwen2Vocab() : options.vocab === "bge" ? loadBgeVocab() : buildSyntheticVocab();
  const tensors = buildTensors(options, vocab.tokens.length);
  const sizeBytes = writeGguf(path, buildMetadata(options, vocab), tensors);
  return { sizeBytes, tensorCount: tensors.length, vocabSize: vocab.tokens.length };
}
