/**
 * How many threads llama.cpp may use (issue 12). ggml's worker threads spin at a barrier after every operation, so one
 * descheduled thread stalls all of them: with the coding agent busy on the same cores (load ≈ 8 on 2 cores), all-core
 * embedding fell to 4.7–5.6 docs/s where one thread gave 940–1,023 (generated tiny model; bge-small shape 1.4–5.2 vs
 * 20–21 docs/s; measured 2026-11-22, runtime-notes §1 for the idle case). So the count follows what is free now:
 * the cores left idle over a short sample of the CPU times (`os.cpus()`, which works on Linux, macOS and Windows),
 * rounded, at least 1 and at most the cores. `RECALL_THREADS` overrides it.
 */
import { availableParallelism, cpus } from "node:os";
import { UsageError } from "../errors.ts";

/** Sum of idle and of all CPU times over every core, in ms (os.cpus()). */
function cpuTimes(): { idle: number; total: number } {
  let idle = 0;
  let total = 0;
  for (const cpu of cpus()) {
    const { user, nice, sys, idle: idleMs, irq } = cpu.times;
    idle += idleMs;
    total += user + nice + sys + idleMs + irq;
  }
  return { idle, total };
}

/**
 * Returns the number of idle cores measured over `sampleMs` (a fraction, 0…cores).
 * @param sampleMs how long to sample; default 100 ms
 */
export async function measureIdleCores(sampleMs = 100): Promise<number> {
  const before = cpuTimes();
  await Bun.sleep(sampleMs);
  const after = cpuTimes();
  const total = after.total - before.total;
  if (total <= 0) return availableParallelism();
  return ((after.idle - before.idle) / total) * availableParallelism();
}

/**
 * The thread count for llama.cpp: `RECALL_THREADS` when set, else the idle cores now (`measureIdleCores`), rounded,
 * within 1…availableParallelism().
 * @throws UsageError when RECALL_THREADS is not a whole number from 1 to 256
 */
export async function chooseThreads(
  env: Record<string, string | undefined> = process.env,
  measure: () => Promise<number> = measureIdleCores,
): Promise<{ threads: number; reason: string }> {
  const raw = env.RECALL_THREADS;
  if (raw !== undefined && raw.trim() !== "") {
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 1 || value > 256)
      throw new UsageError(
        `RECALL_THREADS must be a whole number from 1 to 256, got ${raw}`,
        "fix or unset RECALL_THREADS",
      );
    return { threads: value, reason: "RECALL_THREADS" };
  }
  const cores = availableParallelism();
  const idle = await measure();
  const threads = Math.max(1, Math.min(cores, Math.round(idle)));
  return { threads, reason: `${idle.toFixed(1)} of ${cores} cores idle` };
}
