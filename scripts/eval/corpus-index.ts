/**
 * Build the index of the real corpus (../shared/corpus: Claude Code, OpenCode, Codex CLI, Gemini CLI, Cursor and
 * Aider, with the roots of test/helpers/corpus.ts `allCorpusRoots`) in a private temporary RECALL_HOME, for
 * `bun run eval` and `bun scripts/calibrate-confidence.ts`. Progress goes to stderr.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database } from "bun:sqlite";
import { openEmbedder, type Embedder } from "../../src/embed/index.ts";
import { databasePath, openIndex, runIndex } from "../../src/index/index.ts";
import { createVectorLeg, type VectorLeg } from "../../src/search/index.ts";
import { allCorpusRoots, hasCorpus } from "../../test/helpers/corpus.ts";
import { startEvalModel, type EvalModel } from "./eval-model.ts";

/**
 * An indexed corpus: the read-only database, the vector leg when a model was given (`model` is then its name,
 * e.g. `glove-wink-100d-f16`), and `close()`, which closes both and deletes the temporary RECALL_HOME.
 */
export interface CorpusIndex {
  db: Database;
  vectorLeg: VectorLeg | undefined;
  model: string | undefined;
  close(): Promise<void>;
}

export { modelArgument } from "./eval-model.ts";

/**
 * Index the corpus (with embeddings when `model` is given).
 * @param tool the calling script's name, for messages and the temp folder name (`recall-<tool>-…`)
 * @param model `use`, `glove`, a model preset or `.gguf` path (eval-model.ts), or undefined for the keyword leg only
 * Exits the process with status 1 and a one-line message when ../shared/corpus is missing.
 * @throws whatever indexing or opening the embedder throws (the temporary RECALL_HOME is removed first)
 */
export async function indexCorpus(tool: string, model: string | undefined): Promise<CorpusIndex> {
  if (!hasCorpus) {
    process.stderr.write(`${tool}: ../shared/corpus is missing; nothing to evaluate\n`);
    process.exit(1);
  }
  const home = mkdtempSync(join(tmpdir(), `recall-${tool}-`));
  let embedder: Embedder | undefined;
  let evalModel: EvalModel | undefined;
  try {
    evalModel = model ? await startEvalModel(model) : undefined;
    embedder = evalModel ? await openEmbedder({ env: evalModel.env, home, modelFlag: evalModel.modelFlag }) : undefined;
    const started = performance.now();
    const summary = await runIndex({
      recallHome: home,
      roots: allCorpusRoots(),
      openEmbedder: embedder ? async () => embedder! : undefined,
      hooks: {
        onEmbedProgress: ({ done, total }) => process.stderr.write(`\r${tool}: embedding ${done}/${total} chunks`),
      },
    });
    if (summary.failedUnits > 0 || summary.skippedLines > 0)
      process.stderr.write(
        `\n${tool}: warning: ${summary.failedUnits} sessions failed to parse, ${summary.skippedLines} lines skipped`,
      );
    process.stderr.write(
      `\n${tool}: indexed ${summary.added} sessions in ${((performance.now() - started) / 1000).toFixed(1)} s${model ? ` with ${model}` : " (no model: keyword leg only)"}\n`,
    );
  } catch (error) {
    await evalModel?.stop();
    rmSync(home, { recursive: true, force: true });
    throw error;
  }
  const db = openIndex(databasePath(home), { readonly: true });
  return {
    db,
    vectorLeg: embedder ? createVectorLeg(db, home, embedder) : undefined,
    model: embedder?.fingerprint.name,
    async close() {
      db.close();
      await embedder?.dispose();
      await evalModel?.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}
