/**
 * `bun scripts/locomo.ts [--model use|glove|<preset|path.gguf>] [run.py options…]`: the LoCoMo retrieval benchmark
 * (../shared/bench/locomo, Python 3, its README) with a model recall can use. `--model use` serves the Universal
 * Sentence Encoder on loopback for the run (scripts/eval/use-server.ts, reached through EMBEDDINGS_URL; vectors are
 * cached, so a second run embeds nothing new) and stops it after; `glove` and a GGUF path go through RECALL_MODEL.
 * With a model and no `--mode`, the run is `--mode hybrid`; without a model it is run.py's default (keyword-only).
 * Every other option goes to run.py unchanged (`--sample 400`, `--json-out F`, `--misses F`, `--mode vector`, …).
 * After run.py's report, a second table gives the same measures without the conversation that calibrates the models
 * (eval/eval-model.ts `locomoCalibrationConversation`, conv-26): the numbers to quote for a calibrated
 * model, whose weights were fitted on that conversation.
 * Exit status: run.py's (1 when a search failed, 2 for usage errors), or 1 when the benchmark is missing.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { locomoCalibrationConversation, modelArgument, startEvalModel } from "./eval/eval-model.ts";

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
  const jsonAt = args.indexOf("--json-out");
  const scratch = jsonAt < 0 ? mkdtempSync(join(tmpdir(), "recall-locomo-")) : undefined;
  const jsonOut = scratch ? join(scratch, "locomo.json") : args[jsonAt + 1]!;
  if (scratch) args.push("--json-out", jsonOut);
  if (model && !args.includes("--mode")) args.push("--mode", "hybrid");
  process.stderr.write(
    `locomo: ${model ? `model ${model.name}${model.server ? ` at ${model.server.url}` : ""}` : "no model"}\n`,
  );
  const child = Bun.spawn(["python3", harness, "--recall-dir", resolve(import.meta.dir, ".."), ...args], {
    env,
    stdio: ["inherit", "inherit", "inherit"],
  });
  process.exitCode = await child.exited;
  if (existsSync(jsonOut)) process.stdout.write(heldOutTable(JSON.parse(readFileSync(jsonOut, "utf8")).rows));
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  if (model?.server) process.stderr.write(`locomo: USE server ${JSON.stringify(model.server.stats())}\n`);
} finally {
  await model?.stop();
}

/** One question's outcome in run.py's `--json-out` rows. */
interface Row {
  id: string;
  category_name?: string;
  category: number;
  session_rank: number | null;
  turn_rank?: number | null;
}

/**
 * hit@1, hit@5 and turn hit@5 per category and overall, without the calibration conversation (percentages, one
 * decimal, as run.py prints them).
 */
function heldOutTable(rows: Row[]): string {
  const names: Record<number, string> = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
  };
  const kept = rows.filter((row) => !row.id.startsWith(`${locomoCalibrationConversation}:`));
  const groups = new Map<string, Row[]>();
  for (const row of kept) {
    const name = names[row.category] ?? String(row.category);
    groups.set(name, [...(groups.get(name) ?? []), row]);
  }
  groups.set("ALL", kept);
  const share = (group: Row[], test: (row: Row) => boolean) =>
    `${((100 * group.filter(test).length) / Math.max(1, group.length)).toFixed(1)}%`.padStart(7);
  const lines = [
    "",
    `LoCoMo without ${locomoCalibrationConversation} (the calibration split): ${kept.length} questions`,
    "category          n   hit@1   hit@5 | t.hit@5",
  ];
  for (const [name, group] of groups)
    lines.push(
      `${name.padEnd(12)} ${String(group.length).padStart(6)} ${share(group, (row) => row.session_rank === 1)} ${share(group, (row) => row.session_rank !== null && row.session_rank <= 5)} | ${share(group, (row) => row.turn_rank != null && row.turn_rank <= 5)}`,
    );
  return `${lines.join("\n")}\n`;
}
