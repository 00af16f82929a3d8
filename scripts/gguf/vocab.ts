/**
 * Vocabularies for generated BERT test models: a small synthetic WordPiece vocab (~300 tokens) or the real
 * 30,522-token BGE vocab taken from the llama.cpp git bundle shipped inside node-llama-cpp
 * (runtime-notes §6). llama.cpp's WPM convention: word-initial pieces start with "▁" (U+2581), continuation
 * pieces carry no "##", and a duplicate token string aborts the process, so every vocab is de-duplicated.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { readGgufHeader } from "../../src/embed/gguf-header.ts";

/** Token strings, their llama token types (1 normal, 3 control) and the special ids. */
export interface Vocab {
  tokens: string[];
  tokenTypes: number[];
  unkId: number;
  sepId: number;
  padId: number;
  clsId: number;
  maskId: number;
  /** `tokenizer.ggml.pre` value */
  pre: string;
}

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
export function buildSyntheticVocab(): Vocab {
  const specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];
  const chars = "abcdefghijklmnopqrstuvwxyz0123456789!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~".split("");
  const pieces = [...commonWords.map((w) => wordStart + w), ...chars.map((c) => wordStart + c), ...chars];
  const tokens = [...new Set([...specials, ...pieces])];
  const tokenTypes = tokens.map((_, i) => (i < specials.length ? 3 : 1));
  return { tokens, tokenTypes, padId: 0, unkId: 1, clsId: 2, sepId: 3, maskId: 4, pre: "default" };
}

/** Default cache folder for the extracted BGE vocab: $XDG_CACHE_HOME or ~/.cache, under recall-dev/. */
export function defaultVocabCacheDir(): string {
  return join(process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"), "recall-dev");
}

/**
 * Returns the path of `ggml-vocab-bert-bge.gguf`, extracting it from node-llama-cpp's `llama/gitRelease.bundle`
 * with git on first use (~1.7 s, runtime-notes §6) and caching it in `cacheDir`.
 * @throws Error when git is missing or the bundle is not in node_modules
 */
export function ensureBgeVocabFile(cacheDir: string = defaultVocabCacheDir()): string {
  const target = join(cacheDir, "ggml-vocab-bert-bge.gguf");
  if (existsSync(target)) return target;
  const bundle = resolve(import.meta.dir, "../../node_modules/node-llama-cpp/llama/gitRelease.bundle");
  if (!existsSync(bundle)) throw new Error(`llama.cpp git bundle not found: ${bundle}`);
  mkdirSync(cacheDir, { recursive: true });
  const repo = mkdtempSync(join(tmpdir(), "recall-llama-src-"));
  try {
    execFileSync("git", ["init", "-q"], { cwd: repo });
    execFileSync("git", ["fetch", "-q", bundle], { cwd: repo, stdio: "ignore" });
    const bytes = execFileSync("git", ["show", "FETCH_HEAD:models/ggml-vocab-bert-bge.gguf"], { cwd: repo, maxBuffer: 1 << 26 });
    const tmpTarget = `${target}.tmp-${process.pid}`;
    writeFileSync(tmpTarget, bytes);
    renameSync(tmpTarget, target);
    return target;
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

/** Loads the real BGE WordPiece vocab (30,522 tokens; pad 0, unk 100, cls 101, sep 102, mask 103). */
export function loadBgeVocab(cacheDir?: string): Vocab {
  const { metadata } = readGgufHeader(ensureBgeVocabFile(cacheDir), { skipArrays: false });
  const number = (key: string): number => {
    const value = metadata.get(key);
    if (typeof value !== "number") throw new Error(`bge vocab: missing ${key}`);
    return value;
  };
  return {
    tokens: metadata.get("tokenizer.ggml.tokens") as string[],
    tokenTypes: metadata.get("tokenizer.ggml.token_type") as number[],
    unkId: number("tokenizer.ggml.unknown_token_id"),
    sepId: number("tokenizer.ggml.seperator_token_id"),
    padId: number("tokenizer.ggml.padding_token_id"),
    clsId: number("tokenizer.ggml.cls_token_id"),
    maskId: number("tokenizer.ggml.mask_token_id"),
    pre: String(metadata.get("tokenizer.ggml.pre") ?? "bert-bge"),
  };
}
