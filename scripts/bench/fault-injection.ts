/**
 * Bench (issue 9): the fault-injection suite in its long mode. Runs test/index/write/crash-recovery.test.ts with
 * RECALL_FAULT_ITERATIONS (default 100) SIGKILLs per phase (first index, incremental update, embedding with the
 * tiny generated model), each followed by a recovery run compared with a clean index. About 10 min on the 2-vCPU
 * box. Prints one JSON line: the suite's wall time, the kills made and how many landed mid-run, the seed
 * (RECALL_FAULT_SEED replays it) and whether every comparison passed.
 */
import { resolve } from "node:path";
import { report } from "./lib.ts";

const repo = resolve(import.meta.dir, "../..");
const iterations = process.env.RECALL_FAULT_ITERATIONS ?? "100";
const started = performance.now();
const run = Bun.spawnSync(["bun", "test", "--timeout", "0", "test/index/write/crash-recovery.test.ts"], {
  cwd: repo,
  env: { ...process.env, RECALL_FAULT_ITERATIONS: iterations },
  stdout: "pipe",
  stderr: "pipe",
});
const output = `${run.stdout.toString()}\n${run.stderr.toString()}`;
const landed = /(\d+) of (\d+) kills landed mid-run/.exec(output);
const seed = /seed (\d+)/.exec(output)?.[1];
report("fault-injection", [performance.now() - started], {
  kills: Number(landed?.[2] ?? 0),
  landed_mid_run: Number(landed?.[1] ?? 0),
  seed: seed === undefined ? null : Number(seed),
  passed: run.exitCode === 0,
});
if (run.exitCode !== 0)
  process.stderr.write(
    `${output
      .split("\n")
      .filter((line) => line.includes("(fail)") || line.includes("error"))
      .join("\n")}\n`,
  );
process.exit(run.exitCode ?? 1);
