/**
 * Known embedding models: download location, dims, pooling and the prompt prefixes each was trained with.
 * Prefixes come from each model card (Qwen3-Embedding: "Instruct: …\nQuery: " on queries only; nomic:
 * "search_query: " / "search_document: "; EmbeddingGemma: "task: search result | query: " / "title: none | text: ";
 * BGE v1.5: an instruction on short queries only; MiniLM: none). Default: qwen3-embedding-0.6b (DESIGN.md).
 * File names are the Q8_0 GGUFs of the named Hugging Face repos; `RECALL_MODEL_BASE_URL` replaces the host.
 */
import type { Pooling } from "./types.ts";

/** One downloadable model. */
export interface ModelPreset {
  name: string;
  /** Hugging Face repo holding the GGUF */
  repo: string;
  /** file name inside the repo and inside RECALL_HOME/models/ */
  fileName: string;
  dims: number;
  pooling: Pooling;
  /** prepended to queries */
  queryPrefix: string;
  /** prepended to documents */
  documentPrefix: string;
  /** approximate download size in bytes (for the progress line before the first byte) */
  approxSizeBytes: number;
}

/** The default model name (`--model` / `RECALL_MODEL` override it). */
export const defaultPresetName = "qwen3-embedding-0.6b";

/** All presets by name. */
export const modelPresets: Record<string, ModelPreset> = {
  "qwen3-embedding-0.6b": {
    name: "qwen3-embedding-0.6b",
    repo: "Qwen/Qwen3-Embedding-0.6B-GGUF",
    fileName: "Qwen3-Embedding-0.6B-Q8_0.gguf",
    dims: 1024,
    pooling: "last",
    queryPrefix: "Instruct: Given a search query, retrieve relevant conversation excerpts that answer the query\nQuery: ",
    documentPrefix: "",
    approxSizeBytes: 639_000_000,
  },
  "embeddinggemma-300m": {
    name: "embeddinggemma-300m",
    repo: "ggml-org/embeddinggemma-300M-GGUF",
    fileName: "embeddinggemma-300M-Q8_0.gguf",
    dims: 768,
    pooling: "mean",
    queryPrefix: "task: search result | query: ",
    documentPrefix: "title: none | text: ",
    approxSizeBytes: 329_000_000,
  },
  "nomic-embed-text-v1.5": {
    name: "nomic-embed-text-v1.5",
    repo: "nomic-ai/nomic-embed-text-v1.5-GGUF",
    fileName: "nomic-embed-text-v1.5.Q8_0.gguf",
    dims: 768,
    pooling: "mean",
    queryPrefix: "search_query: ",
    documentPrefix: "search_document: ",
    approxSizeBytes: 146_000_000,
  },
  "bge-small-en-v1.5": {
    name: "bge-small-en-v1.5",
    repo: "CompendiumLabs/bge-small-en-v1.5-gguf",
    fileName: "bge-small-en-v1.5-q8_0.gguf",
    dims: 384,
    pooling: "cls",
    queryPrefix: "Represent this sentence for searching relevant passages: ",
    documentPrefix: "",
    approxSizeBytes: 36_800_000,
  },
  "all-minilm-l6-v2": {
    name: "all-minilm-l6-v2",
    repo: "second-state/All-MiniLM-L6-v2-Embedding-GGUF",
    fileName: "all-MiniLM-L6-v2-Q8_0.gguf",
    dims: 384,
    pooling: "mean",
    queryPrefix: "",
    documentPrefix: "",
    approxSizeBytes: 24_900_000,
  },
};

/**
 * Finds a preset by name, case-insensitively ("all-MiniLM-L6-v2" and "all-minilm-l6-v2" both work).
 * @returns the preset, or undefined when the name is not a preset (it may then be a file path)
 */
export function findPreset(name: string): ModelPreset | undefined {
  return modelPresets[name.toLowerCase()];
}

/**
 * Download URL of a preset: `<base>/<repo>/resolve/main/<fileName>` with base `https://huggingface.co`,
 * or `RECALL_MODEL_BASE_URL` (trailing slashes ignored), e.g.
 * `http://127.0.0.1:8080/Qwen/Qwen3-Embedding-0.6B-GGUF/resolve/main/Qwen3-Embedding-0.6B-Q8_0.gguf`.
 */
export function presetDownloadUrl(preset: ModelPreset, baseUrl: string | undefined): string {
  const base = (baseUrl ?? "https://huggingface.co").replace(/\/+$/, "");
  return `${base}/${preset.repo}/resolve/main/${preset.fileName}`;
}
