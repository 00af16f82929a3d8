/**
 * Builds a tiny llama-architecture chat model with deterministic pseudo-random weights and writes it as GGUF, for the
 * local summary backend's tests (issue 41; no trained chat model is obtainable here, runtime-notes §6). Keys and
 * tensors follow llama.cpp's LLM_ARCH_LLAMA loader: `llama.*` hyper-parameters, `token_embd`, per layer `attn_norm`,
 * `attn_{q,k,v,output}`, `ffn_norm`, `ffn_{gate,up,down}`, then `output_norm` and `output`. The tokenizer is
 * SentencePiece-style (`tokenizer.ggml.model = "llama"`): <unk>, <s>, </s>, the ChatML markers <|im_start|> and
 * <|im_end|> (control tokens), 256 byte tokens <0x00>…<0xFF> (so any text tokenizes), then "▁word" pieces and single
 * characters with scores. A ChatML `tokenizer.chat_template` makes node-llama-cpp format prompts as Qwen-style models
 * do; <|im_end|> is the end-of-turn token. The model has real shapes and speed but says noise.
 */
import { noise } from "./bert-model.ts";
import { writeGguf, type MetaValue, type TensorSpec, type TensorType } from "./gguf-writer.ts";

/** Shape of a generated chat model. */
export interface LlamaModelOptions {
  layers: number;
  /** hidden size */
  embd: number;
  heads: number;
  /** key/value heads (grouped-query attention when below `heads`) */
  kvHeads: number;
  /** feed-forward size */
  ff: number;
  /** training context in tokens */
  ctx: number;
  type: TensorType;
  /** PRNG seed; same seed + options = byte-identical file */
  seed: number;
  /** `general.name` */
  name: string;
}

/** The tiny shape: 2 layers, 64 dims, 4 heads (2 KV heads), 1,024-token context: ~0.5 MB in f32, written in ~10 ms. */
export const tinyLlamaShape = {
  layers: 2,
  embd: 64,
  heads: 4,
  kvHeads: 2,
  ff: 128,
  ctx: 1024,
  type: "f32",
} as const satisfies Omit<LlamaModelOptions, "seed" | "name">;

/** ChatML, as Qwen2/Qwen3 instruct models ship it (a Jinja template node-llama-cpp recognizes). */
export const chatMlTemplate =
  "{% for message in messages %}{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}" +
  "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}";

const wordStart = "\u2581";
const words = (
  "the a and or of to in on for with is was it this that fix fixed build test tests file files error run index " +
  "search model session turn tool code user agent asked done failed ended changed added removed updated"
).split(" ");

/** The SentencePiece vocab: tokens, scores (higher merges first) and token types (1 normal, 2 unknown, 3 control, 6 byte). */
export function buildChatVocab(): { tokens: string[]; scores: number[]; types: number[] } {
  const tokens = ["<unk>", "<s>", "</s>", "<|im_start|>", "<|im_end|>"];
  const types = [2, 3, 3, 3, 3];
  for (let byte = 0; byte < 256; byte++) {
    tokens.push(`<0x${byte.toString(16).toUpperCase().padStart(2, "0")}>`);
    types.push(6);
  }
  const chars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,:;!?-_/'\"()".split("");
  const pieces = [
    ...new Set([wordStart, ...words.map((word) => wordStart + word), ...chars.map((c) => wordStart + c), ...chars]),
  ];
  for (const piece of pieces) {
    tokens.push(piece);
    types.push(1);
  }
  // Longer pieces score higher so whole words win over their letters (SentencePiece merges by score).
  const scores = tokens.map((token, i) => (types[i] === 1 ? token.length - i / 10_000 : 0));
  return { tokens, scores, types };
}

function buildMetadata(options: LlamaModelOptions, vocab: ReturnType<typeof buildChatVocab>): [string, MetaValue][] {
  const u32 = (value: number): MetaValue => ({ type: "u32", value });
  return [
    ["general.architecture", { type: "string", value: "llama" }],
    ["general.name", { type: "string", value: options.name }],
    ["general.alignment", u32(32)],
    ["llama.context_length", u32(options.ctx)],
    ["llama.embedding_length", u32(options.embd)],
    ["llama.feed_forward_length", u32(options.ff)],
    ["llama.block_count", u32(options.layers)],
    ["llama.attention.head_count", u32(options.heads)],
    ["llama.attention.head_count_kv", u32(options.kvHeads)],
    ["llama.attention.layer_norm_rms_epsilon", { type: "f32", value: 1e-5 }],
    ["llama.rope.dimension_count", u32(options.embd / options.heads)],
    ["llama.rope.freq_base", { type: "f32", value: 10_000 }],
    ["llama.vocab_size", u32(vocab.tokens.length)],
    ["tokenizer.ggml.model", { type: "string", value: "llama" }],
    ["tokenizer.ggml.tokens", { type: "string[]", value: vocab.tokens }],
    ["tokenizer.ggml.scores", { type: "f32[]", value: vocab.scores }],
    ["tokenizer.ggml.token_type", { type: "i32[]", value: vocab.types }],
    ["tokenizer.ggml.unknown_token_id", u32(0)],
    ["tokenizer.ggml.bos_token_id", u32(1)],
    // <|im_end|> ends a turn, as in Qwen's GGUFs: generation stops there.
    ["tokenizer.ggml.eos_token_id", u32(4)],
    ["tokenizer.ggml.add_bos_token", { type: "bool", value: false }],
    ["tokenizer.ggml.add_eos_token", { type: "bool", value: false }],
    ["tokenizer.chat_template", { type: "string", value: chatMlTemplate }],
  ];
}

function buildTensors(options: LlamaModelOptions, vocabSize: number): TensorSpec[] {
  const { embd, ff, seed } = options;
  const kvDims = (embd / options.heads) * options.kvHeads;
  const matrix = (name: string, dims: number[], spread = 0.08): TensorSpec => ({
    name,
    dims,
    type: options.type,
    fill: noise(seed, name, 0, spread),
  });
  const norm = (name: string): TensorSpec => ({ name, dims: [embd], type: "f32", fill: noise(seed, name, 1, 0.05) });
  const tensors: TensorSpec[] = [matrix("token_embd.weight", [embd, vocabSize], 0.5)];
  for (let layer = 0; layer < options.layers; layer++) {
    const blk = `blk.${layer}`;
    tensors.push(
      norm(`${blk}.attn_norm.weight`),
      matrix(`${blk}.attn_q.weight`, [embd, embd]),
      matrix(`${blk}.attn_k.weight`, [embd, kvDims]),
      matrix(`${blk}.attn_v.weight`, [embd, kvDims]),
      matrix(`${blk}.attn_output.weight`, [embd, embd]),
      norm(`${blk}.ffn_norm.weight`),
      matrix(`${blk}.ffn_gate.weight`, [embd, ff]),
      matrix(`${blk}.ffn_up.weight`, [embd, ff]),
      matrix(`${blk}.ffn_down.weight`, [ff, embd]),
    );
  }
  tensors.push(norm("output_norm.weight"), matrix("output.weight", [embd, vocabSize], 0.5));
  return tensors;
}

/**
 * Generates the model and writes it to `path` (atomically).
 * @returns file size in bytes, tensor count and vocab size
 * @throws Error when embd is not divisible by heads, or heads by kvHeads
 */
export function writeLlamaChatModel(
  path: string,
  options: LlamaModelOptions,
): { sizeBytes: number; tensorCount: number; vocabSize: number } {
  if (options.embd % options.heads !== 0 || options.heads % options.kvHeads !== 0)
    throw new Error(`embd ${options.embd}, heads ${options.heads} and kvHeads ${options.kvHeads} do not divide`);
  const vocab = buildChatVocab();
  const tensors = buildTensors(options, vocab.tokens.length);
  const sizeBytes = writeGguf(path, buildMetadata(options, vocab), tensors);
  return { sizeBytes, tensorCount: tensors.length, vocabSize: vocab.tokens.length };
}
