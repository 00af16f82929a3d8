/**
 * Known embedding models: download location, dims, pooling and the prompt prefixes each was trained with.
 * Prefixes come from each model card (Qwen3-Embedding: "Instruct: …\nQuery:" on queries only; nomic:
 * "search_query: " / "search_document: "; EmbeddingGemma: "task: search result | query: " / "title: none | text: ";
 * BGE v1.5: an instruction on short queries only; MiniLM: none). Default: qwen3-embedding-0.6b with a GPU, bge-small-en-v1.5
 * without (`defaultPresetFor`, hardware.ts).
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
  /** the Hugging Face commit the file is downloaded from; undefined = not pinned (`main`) */
  revision?: string;
  /** hex sha256 of the file at that revision, verified after download; undefined = not pinned */
  sha256?: string;
  /** the most tokens the model takes in one input (its configured maximum), when below its GGUF context */
  maxInputTokens?: number;
}

/** The default model with a GPU (`--model` / `RECALL_MODEL` override it; DESIGN.md "Embedding"). */
export const gpuDefaultPresetName = "qwen3-embedding-0.6b";

/**
 * The default model on a CPU-only machine: bge-small-en-v1.5 (384 dims, 37 MB). On the BEIR retrieval average of the
 * MTEB leaderboard it scores 51.7 against all-MiniLM-L6-v2's 41.9, at about twice MiniLM's cost per text and a fifth
 * of Qwen3-Embedding-0.6B's on this CPU (runtime-notes §6 shapes; `bun run bench embed`).
 */
export const cpuDefaultPresetName = "bge-small-en-v1.5";

/** The default preset for a machine with or without a usable GPU (hardware.ts), and the reason in one phrase. */
export function defaultPresetFor(hasGpu: boolean): { name: string; reason: string } {
  return hasGpu
    ? { name: gpuDefaultPresetName, reason: "a GPU is available" }
    : {
        name: cpuDefaultPresetName,
        reason: `no usable GPU; ${gpuDefaultPresetName} needs one to embed a history in reasonable time`,
      };
}

/** All presets by name. */
export const modelPresets: Record<string, ModelPreset> = {
  "qwen3-embedding-0.6b": {
    name: "qwen3-embedding-0.6b",
    repo: "Qwen/Qwen3-Embedding-0.6B-GGUF",
    fileName: "Qwen3-Embedding-0.6B-Q8_0.gguf",
    dims: 1024,
    pooling: "last",
    // The model's sentence-transformers prompt ends in "Query:" followed directly by the query (its config_sentence_transformers.json).
    queryPrefix:
      "Instruct: Given a search query, retrieve relevant conversation excerpts that answer the query\nQuery:",
    documentPrefix: "",
    approxSizeBytes: 639_150_592,
    // Pinned from public manifests that fetch this file by revision and check it (2026-11; several agree).
    revision: "370f27d7550e0def9b39c1f16d3fbaa13aa67728",
    sha256: "06507c7b42688469c4e7298b0a1e16deff06caf291cf0a5b278c308249c3e439",
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
    approxSizeBytes: 36_806_944,
    revision: "d32f8c040ea3b516330eeb75b72bcc2d3a780ab7",
    sha256: "ec38e8da142596baa913124ae50550de284b6916bf59577ef2f0cb9660c2f514",
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
    // sentence-transformers/all-MiniLM-L6-v2 truncates at 256 word pieces (its max_seq_length).
    maxInputTokens: 256,
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
 * Download URL of a preset: `<base>/<repo>/resolve/<revision or main>/<fileName>` with base `https://huggingface.co`,
 * or `RECALL_MODEL_BASE_URL` (trailing slashes ignored), e.g.
 * `http://127.0.0.1:8080/Qwen/Qwen3-Embedding-0.6B-GGUF/resolve/370f27d7550e0def9b39c1f16d3fbaa13aa67728/Qwen3-Embedding-0.6B-Q8_0.gguf`.
 */
export function presetDownloadUrl(preset: ModelPreset, baseUrl: string | undefined): string {
  const base = (baseUrl ?? "https://huggingface.co").replace(/\/+$/, "");
  return `${base}/${preset.repo}/resolve/${preset.revision ?? "main"}/${preset.fileName}`;
}
