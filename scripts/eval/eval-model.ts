/**
 * The embedding model an evaluation script runs (`bun run eval`, `bun run bench`, `bun scripts/locomo.ts`,
 * `bun scripts/calibrate-confidence.ts`), named by `--model` or RECALL_MODEL:
 *   * `use`: the Universal Sentence Encoder lite, served for the run by scripts/eval/use-server.ts on loopback and
 *     reached through EMBEDDINGS_URL / EMBEDDINGS_MODEL, recall's OpenAI-compatible endpoint path (issue 27);
 *   * `glove`: ../shared/models/glove-wink-100d-f16.gguf, the word-vector GGUF model the machines have;
 *   * anything else: a preset name or a `.gguf` path, passed to recall as `--model`.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { startUseServer, useModelName, type UseServer } from "./use-server.ts";

/**
 * The LoCoMo conversation scripts/calibrate-confidence.ts fits calibrations on; scripts/locomo.ts reports the
 * benchmark without it too, so a calibrated model is not measured on what it was fitted to.
 */
export const locomoCalibrationConversation = "conv-26";

/** The shared GloVe model (`--model glove`). */
export const glovePath = resolve(import.meta.dir, "../../../shared/models/glove-wink-100d-f16.gguf");

/**
 * A model ready for a run: the environment and `--model` value that make recall use it (pass `env` to
 * `openEmbedder` or to a recall child process), a short name for headings, and `stop()`, which stops a server the
 * run started (a no-op otherwise).
 */
export interface EvalModel {
  /** `use`, `glove`, or the argument as given */
  name: string;
  env: Record<string, string | undefined>;
  /** the `--model` value for recall; undefined when the model is reached through EMBEDDINGS_URL */
  modelFlag: string | undefined;
  /** the USE server, when this run started one */
  server: UseServer | undefined;
  stop(): Promise<void>;
}

/** The model named by `--model <name>` or RECALL_MODEL, if any (the flag wins); undefined when neither is set. */
export function modelArgument(argv: string[] = process.argv): string | undefined {
  const at = argv.indexOf("--model");
  return at > 0 ? argv[at + 1] : process.env.RECALL_MODEL;
}

/**
 * Make `name` usable by recall for one run (see the module doc). With `use`, the USE server starts (its vector cache
 * makes a second run over the same texts fast) and RECALL_MODEL is removed from `env` so the endpoint is used.
 * @param options.oversized the USE server's answer to a text over its 128-token window (default `refuse`: recall
 *   splits it, so nothing is cut unseen)
 * @throws Error when `glove` is asked for and the shared model is missing, or when the USE packages are missing
 */
export async function startEvalModel(
  name: string,
  options: { oversized?: "refuse" | "truncate" } = {},
): Promise<EvalModel> {
  const base: Record<string, string | undefined> = { ...process.env };
  if (name === "use") {
    const server = await startUseServer({ oversized: options.oversized ?? "refuse" });
    delete base.RECALL_MODEL;
    return {
      name,
      env: { ...base, EMBEDDINGS_URL: server.url, EMBEDDINGS_MODEL: useModelName },
      modelFlag: undefined,
      server,
      stop: () => server.stop(),
    };
  }
  const modelFlag = name === "glove" ? glovePath : name;
  if (name === "glove" && !existsSync(glovePath)) throw new Error(`the GloVe model is missing: ${glovePath}`);
  return { name, env: base, modelFlag, server: undefined, stop: async () => {} };
}
