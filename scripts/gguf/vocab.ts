/**
 * Vocabularies for generated test models: a small synthetic WordPiece vocab (~300 tokens), the real 30,522-token
 * BGE WordPiece vocab, or the real Qwen2 byte-level BPE vocab, the last two taken from the vocab-only GGUFs in the
 * llama.cpp git bundle shipped inside node-llama-cpp (runtime-notes §6). llama.cpp's WPM convention: word-initial
 * pieces start with "▁" (U+2581), continuation pieces carry no "##", and a duplicate token string aborts the process,
 * so every WordPiece vocab is de-duplicated.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readGgufHeader, type GgufValue } from "../../src/embed/gguf-header.ts";

/** Token strings, their llama token types (1 normal, 3 control, 4 user-defined) and the `tokenizer.ggml.pre` value. */
interface VocabBase {
  tokens: string[];
  tokenTypes: number[];
  /** `tokenizer.ggml.pre` value */
  pre: string;
}

/** A WordPiece vocab (`tokenizer.ggml.model = "bert"`, llama.cpp's LLAMA_VOCAB_TYPE_WPM) and its special ids. */
export interface WordPieceVocab extends VocabBase {
  model: "bert";
  unkId: number;
  sepId: number;
  padId: number;
  clsId: number;
  maskId: number;
}

/**
 * A byte-level BPE vocab (`tokenizer.ggml.model = "gpt2"`, llama.cpp's LLAMA_VOCAB_TYPE_BPE). llama.cpp refuses a
 * gpt2 vocab without `tokenizer.ggml.merges` ("cannot find tokenizer merges in model file", src/llama-vocab.cpp).
 */
export interface BpeVocab extends VocabBase {
  model: "gpt2";
  /** `tokenizer.ggml.merges`: "left right" pairs, highest priority first */
  merges: string[];
  /**
   * Every `tokenizer.ggml.*_token_id` key the source file declares, in file order, with its token id (Qwen2:
   * bos, eos and padding, all 151643 `<|endoftext|>`). Undeclared ones fall back to llama.cpp's BPE defaults
   * (bos/eos 11, others none), which llama.cpp disables when out of range.
   */
  specialIds: [key: string, id: number][];
  /**
   * `tokenizer.ggml.add_bos_token` / `add_eos_token` / `add_sep_token` when the source file declares them; llama.cpp's
   * default for a BPE vocab is false for all three (so node-llama-cpp adds no bos/eos around an embedding input).
   */
  addFlags: [key: string, value: boolean][];
}

/** A vocab for the model writer: WordPiece (synthetic, BGE) or byte-level BPE (Qwen2). */
export type Vocab = WordPieceVocab | BpeVocab;

const wordStart = "\u2581";
const commonWords = (
  "the a an and or of to in on at for with from by is are was were be been it this that these those i you we they " +
  "he she my your our their not no yes can could should would will do does did have has had make made use used " +
  "file files code test tests error errors fix fixed bug bugs build run running index search query model models " +
  "vector vectors embedding embeddings sqlite database table schema migration function class type types import " +
  "export string number array object json parse parser session sessions turn turns tool tools read write edit " +
  "git commit branch merge diff patch server client http request response cache memory disk time date user"
).split(" ");

/**
 * Builds the synthetic vocab: 5 specials, then "▁"+word for common words, then each of a-z, 0-9 and ASCII
 * punctuation both word-initial ("▁a") and as a continuation ("a"), so any ASCII word tokenizes without UNK.
 * @returns a de-duplicated vocab (~330 tokens); ids: pad 0, unk 1, cls 2, sep 3, mask 4
 */
export function buildSyntheticVocab(): WordPieceVocab {
  const specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];
  const chars = "abcdefghijklmnopqrstuvwxyz0123456789!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~".split("");
  const pieces = [...commonWords.map((w) => wordStart + w), ...chars.map((c) => wordStart + c), ...chars];
  const tokens = [...new Set([...specials, ...pieces])];
  const tokenTypes = tokens.map((_, i) => (i < specials.length ? 3 : 1));
  return { model: "bert", tokens, tokenTypes, padId: 0, unkId: 1, clsId: 2, sepId: 3, maskId: 4, pre: "default" };
}

/** Default cache folder for the extracted vocab files: $XDG_CACHE_HOME or ~/.cache, under recall-dev/. */
export function defaultVocabCacheDir(): string {
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "recall-dev");
}

/**
 * Returns the path of the vocab-only GGUF `models/<fileName>` of llama.cpp (e.g. `ggml-vocab-bert-bge.gguf`, 627 KB, or
 * `ggml-vocab-qwen2.gguf`, 5.9 MB), extracting it from node-llama-cpp's `llama/gitRelease.bundle` with git on first use
 * (~1.7 s, runtime-notes §6) and caching it as `cacheDir/<fileName>` (written atomically).
 * @throws Error when git is missing, the bundle is not in node_modules, or the bundle has no `models/<fileName>`
 */
export function ensureLlamaVocabFile(fileName: string, cacheDir: string = defaultVocabCacheDir()): string {
  const target = join(cacheDir, fileName);
  if (existsSync(target)) return target;
  const bundle = resolve(import.meta.dir, "../../node_modules/node-llama-cpp/llama/gitRelease.bundle");
  if (!existsSync(bundle)) throw new Error(`llama.cpp git bundle not found: ${bundle}`);
  mkdirSync(cacheDir, { recursive: true });
  const repo = mkdtempSync(join(tmpdir(), "recall-llama-src-"));
  try {
    execFileSync("git", ["init", "-q"], { cwd: repo });
    execFileSync("git", ["fetch", "-q", bundle], { cwd: repo, stdio: "ignore" });
    const bytes = execFileSync("git", ["show", `FETCH_HEAD:models/${fileName}`], { cwd: repo, maxBuffer: 1 << 26 });
    const tmpTarget = `${target}.tmp-${process.pid}`;
    writeFileSync(tmpTarget, bytes);
    renameSync(tmpTarget, target);
    return target;
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

/** Reads a vocab-only GGUF's metadata (arrays included) and returns typed getters that throw on missing keys. */
function readVocabFile(path: string): {
  metadata: Map<string, GgufValue>;
  number: (key: string) => number;
  strings: (key: string) => string[];
} {
  const { metadata } = readGgufHeader(path, { skipArrays: false });
  const number = (key: string): number => {
    const value = metadata.get(key);
    if (typeof value !== "number") throw new Error(`${path}: missing ${key}`);
    return value;
  };
  const strings = (key: string): string[] => {
    const value = metadata.get(key);
    if (!Array.isArray(value) || value.length === 0) throw new Error(`${path}: missing ${key}`);
    return value as string[];
  };
  return { metadata, number, strings };
}

/** Loads the real BGE WordPiece vocab (30,522 tokens; pad 0, unk 100, cls 101, sep 102, mask 103). */
export function loadBgeVocab(cacheDir?: string): WordPieceVocab {
  const { metadata, number, strings } = readVocabFile(ensureLlamaVocabFile("ggml-vocab-bert-bge.gguf", cacheDir));
  return {
    model: "bert",
    tokens: strings("tokenizer.ggml.tokens"),
    tokenTypes: metadata.get("tokenizer.ggml.token_type") as number[],
    unkId: number("tokenizer.ggml.unknown_token_id"),
    sepId: number("tokenizer.ggml.seperator_token_id"),
    padId: number("tokenizer.ggml.padding_token_id"),
    clsId: number("tokenizer.ggml.cls_token_id"),
    maskId: number("tokenizer.ggml.mask_token_id"),
    pre: String(metadata.get("tokenizer.ggml.pre") ?? "bert-bge"),
  };
}

/**
 * Qwen3-Embedding-0.6B's vocabulary size (its config.json `vocab_size`, the rows of its token-embedding matrix):
 * Qwen2's 151,643 BPE tokens and 3 control tokens, then 23 added tokens (ids 151646–151668).
 */
export const qwen3EmbeddingVocabSize = 151_669;

/** llama.cpp token type of a user-defined token (`LLAMA_TOKEN_TYPE_USER_DEFINED`, include/llama.h). */
const userDefinedTokenType = 4;

/**
 * Loads the real Qwen2 byte-level BPE vocab from llama.cpp's `models/ggml-vocab-qwen2.gguf`: `tokenizer.ggml.model`
 * "gpt2", `pre` "qwen2", 151,387 merges, and bos = eos = padding = 151643 (`<|endoftext|>`); the file declares no
 * add_bos/add_eos flags. The file holds 151,646 real tokens (151,643 normal, 3 control) padded to 151,936 ids with
 * user-defined "[PAD<id>]" placeholders; the list is cut to `tokenCount` ids, so the default gives Qwen3-Embedding-0.6B's
 * 151,669 rows (ids 151646–151668 stay placeholders where Qwen3 has its added tokens such as `<think>`).
 * @param tokenCount ids to keep, between 151,646 and 151,936
 * @throws Error when the file cannot be extracted, a key is missing, or the cut would drop a real token or a special id
 */
export function loadQwen2Vocab(tokenCount: number = qwen3EmbeddingVocabSize, cacheDir?: string): BpeVocab {
  const path = ensureLlamaVocabFile("ggml-vocab-qwen2.gguf", cacheDir);
  const { metadata, strings } = readVocabFile(path);
  if (metadata.get("tokenizer.ggml.model") !== "gpt2") throw new Error(`${path}: tokenizer.ggml.model is not "gpt2"`);
  const tokens = strings("tokenizer.ggml.tokens");
  const tokenTypes = metadata.get("tokenizer.ggml.token_type") as number[];
  if (tokenCount > tokens.length) throw new Error(`${path}: has ${tokens.length} tokens, fewer than ${tokenCount}`);
  for (let id = tokenCount; id < tokens.length; id++) {
    if (tokenTypes[id] !== userDefinedTokenType || tokens[id] !== `[PAD${id}]`) {
      throw new Error(`${path}: cutting to ${tokenCount} tokens would drop token ${id} ${JSON.stringify(tokens[id])}`);
    }
  }
  const specialIds: [string, number][] = [];
  const addFlags: [string, boolean][] = [];
  for (const [key, value] of metadata) {
    if (/^tokenizer\.ggml\.\w+_token_id$/.test(key) && typeof value === "number") {
      if (value >= tokenCount) throw new Error(`${path}: ${key} = ${value} is outside the first ${tokenCount} tokens`);
      specialIds.push([key, value]);
    } else if (/^tokenizer\.ggml\.add_\w+_token$/.test(key) && typeof value === "boolean") {
      addFlags.push([key, value]);
    }
  }
  return {
    model: "gpt2",
    tokens: tokens.slice(0, tokenCount),
    tokenTypes: tokenTypes.slice(0, tokenCount),
    merges: strings("tokenizer.ggml.merges"),
    pre: String(metadata.get("tokenizer.ggml.pre") ?? "qwen2"),
    specialIds,
    addFlags,
  };
}
