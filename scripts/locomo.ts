/**
 * `bun scripts/locomo.ts [--model use|glove|<preset|path.gguf>] [run.py options…]`: the LoCoMo retrieval benchmark
 * (../shared/bench/locomo, Python 3, its README) with a model recall can use. `--model use` serves the Universal
 * Sentence Encoder on loopback for the run (scripts/eval/use-server.ts, reached through EMBEDDINGS_URL; vectors are
 * cached, so a second run embeds nothing new) and stops it after; `glove` and a GGUF path go through RECALL_MODEL.
 * With a model and no `--mode`, the run is `--mode hybrid`; without a model it is run.py's default (keyword-only).
 * Every other option goes to run.py unchanged (`--sample 400`, `--json-out F`, `--misses F`, `--mode vector`, …).
 * Exit status: run.py's (1 when a search failed, 2 for usage errors), or 1 when the benchmark is missing.
 */
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { modelArgument, startEvalModel } from "./eval/eval-model.ts";

const harness = resolve(import.meta.dir, "../../shared/bench/locomo/run.py");
if (!existsSync(harness)) {
  process.stderr.write(`locomo: ${harness} is missing (the benchmark ships in ../shared/bench/locomo)\n`);
  process.exit(1);
}
const argv = process.argv.slice(2);
const modelAt = argv.indexOf("--model");
const passed = modelAt >= 0 ? [...argv.slice(0, modelAt), ...argv.slice(modelAt + 2)] : argv;
const name = modelArgument();
const model = name ? await startEvalModel(name) : undefined;
try {
  const env = { ...(model?.env ?? process.env) };
  if (model?.modelFlag) env.RECALL_MODEL = model.modelFlag;
  const args = [...passed];
  if (model && !args.includes("--mode")) args.push("--mode", "hybrid");
  process.stderr.write(
    `locomo: ${model ? `model ${model.name}${model.server ? ` at ${model.server.url}` : ""}` : "no model"}\n`,
  );
  const child = Bun.spawn(["python3", harness, "--recall-dir", resolve(import.meta.dir, ".."), ...args], {
    env,
    stdio: ["inherit", "inherit", "inherit"],
  });
  process.exitCode = await child.exited;
  if (model?.server) process.stderr.write(`locomo: USE server ${JSON.stringify(model.server.stats())}\n`);
} finally {
  await model?.stop();
}
