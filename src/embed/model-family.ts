/**
 * Embedding model families (issue 12): the query/document prefixes, pooling and input limit each family was trained
 * with, recognised from any way a user names the model: a preset name, a Hugging Face id (`Qwen/Qwen3-Embedding-0.6B`,
 * `nomic-ai/nomic-embed-text-v1.5`), an Ollama name (`nomic-embed-text`, `nomic-embed-text:v1.5`), a local file
 * (`…/nomic-embed-text-v1.5.Q4_K_M.gguf`), or a GGUF's `general.name`. Facts from each model card:
 * Qwen3-Embedding (an instruction then "Query:" on queries only, last-token pooling), nomic-embed-text
 * ("search_query: " / "search_document: ", mean), EmbeddingGemma ("task: search result | query: " /
 * "title: none | text: ", mean), BGE v1.5 English (an instruction on queries, CLS), all-MiniLM (none, mean, 256 word
 * pieces), E5 ("query: " / "passage: ", mean), mxbai-embed-large (an instruction on queries, CLS), snowflake-arctic-embed
 * (an instruction on queries, CLS), the Universal Sentence Encoder lite (no prefixes; reads the first 128 SentencePiece
 * pieces of a text and ignores the rest, measured 2026-11-27 with scripts/eval/use-server.ts; 3.2 UTF-8 bytes per piece on
 * the median corpus text, 2.1 at the 5th percentile, 1.7 at the 1st: code, paths, CJK).
 */
import { modelPresets } from "./presets.ts";
import type { Pooling } from "./types.ts";

/** What a family needs of recall. */
export interface ModelFamily {
  /** short family id, e.g. "qwen3-embedding" */
  id: string;
  queryPrefix: string;
  documentPrefix: string;
  pooling: Pooling;
  /** the model's configured maximum input in tokens, when it is below what its GGUF context says (remote: its window) */
  maxInputTokens?: number;
  /**
   * UTF-8 bytes per token a chunk can be sized by, for a remote model whose tokenizer recall does not run: a low
   * percentile of what the model's tokenizer gives on real session text, so nearly every chunk fits its window (the
   * remote embedder splits the few that do not when the server says so). Absent: 3 (remote-embedder.ts).
   */
  bytesPerToken?: number;
}

const preset = (name: string) => modelPresets[name]!;
const families: Array<{ pattern: RegExp; family: ModelFamily }> = [
  {
    pattern: /qwen3[-_ ]?embedding/,
    family: {
      id: "qwen3-embedding",
      queryPrefix: preset("qwen3-embedding-0.6b").queryPrefix,
      documentPrefix: "",
      pooling: "last",
    },
  },
  {
    pattern: /nomic[-_ ]?embed[-_ ]?text/,
    family: {
      id: "nomic-embed-text",
      queryPrefix: "search_query: ",
      documentPrefix: "search_document: ",
      pooling: "mean",
    },
  },
  {
    pattern: /embedding[-_ ]?gemma/,
    family: {
      id: "embeddinggemma",
      queryPrefix: preset("embeddinggemma-300m").queryPrefix,
      documentPrefix: preset("embeddinggemma-300m").documentPrefix,
      pooling: "mean",
    },
  },
  {
    pattern: /bge[-_ ](small|base|large)[-_ ]en/,
    family: {
      id: "bge-en-v1.5",
      queryPrefix: preset("bge-small-en-v1.5").queryPrefix,
      documentPrefix: "",
      pooling: "cls",
    },
  },
  {
    pattern: /all[-_ ]?minilm[-_ ]?l(6|12)/,
    family: { id: "all-minilm", queryPrefix: "", documentPrefix: "", pooling: "mean", maxInputTokens: 256 },
  },
  {
    pattern: /(^|[^a-z])(multilingual[-_ ])?e5[-_ ](small|base|large)/,
    family: { id: "e5", queryPrefix: "query: ", documentPrefix: "passage: ", pooling: "mean" },
  },
  {
    pattern: /mxbai[-_ ]?embed[-_ ]?large/,
    family: {
      id: "mxbai-embed-large",
      queryPrefix: "Represent this sentence for searching relevant passages: ",
      documentPrefix: "",
      pooling: "cls",
    },
  },
  {
    pattern: /universal[-_ ]?sentence[-_ ]?encoder|(^|[^a-z])use[-_ ]?lite/,
    family: {
      id: "universal-sentence-encoder",
      queryPrefix: "",
      documentPrefix: "",
      pooling: "mean",
      maxInputTokens: 128,
      bytesPerToken: 2.2,
    },
  },
  {
    pattern: /snowflake[-_ ]?arctic[-_ ]?embed/,
    family: {
      id: "snowflake-arctic-embed",
      queryPrefix: "Represent this sentence for searching relevant passages: ",
      documentPrefix: "",
      pooling: "cls",
    },
  },
];

/**
 * Returns the family of a model named `id` (any of the forms in the module doc; case-insensitive, folders and the
 * `.gguf` suffix ignored), or undefined when none matches.
 */
export function recognizeModelFamily(id: string | undefined): ModelFamily | undefined {
  if (!id) return undefined;
  const name = id.toLowerCase().replace(/\.gguf$/, "");
  return families.find(({ pattern }) => pattern.test(name))?.family;
}

/**
 * The prefixes to use: `EMBEDDINGS_QUERY_PREFIX` / `EMBEDDINGS_DOCUMENT_PREFIX` when set (even to ""), else the
 * family's, else none.
 */
export function resolvePrefixes(
  env: Record<string, string | undefined>,
  family: Pick<ModelFamily, "queryPrefix" | "documentPrefix"> | undefined,
): { queryPrefix: string; documentPrefix: string } {
  return {
    queryPrefix: env.EMBEDDINGS_QUERY_PREFIX ?? family?.queryPrefix ?? "",
    documentPrefix: env.EMBEDDINGS_DOCUMENT_PREFIX ?? family?.documentPrefix ?? "",
  };
}
