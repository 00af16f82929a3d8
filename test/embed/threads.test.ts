/**
 * threads.ts (issue 12): the llama.cpp thread count follows the idle cores, and RECALL_THREADS overrides it. The idle
 * measurement is checked against a real busy loop in a child process.
 */
import { describe, expect, test } from "bun:test";
import { availableParallelism } from "node:os";
import { chooseThreads, measureIdleCores } from "../../src/embed/threads.ts";

describe("llama.cpp threads (issue 12)", () => {
  test("RECALL_THREADS wins; a bad value is a usage error", async () => {
    expect(await chooseThreads({ RECALL_THREADS: "3" })).toEqual({ threads: 3, reason: "RECALL_THREADS" });
    await expect(chooseThreads({ RECALL_THREADS: "0" })).rejects.toThrow(/RECALL_THREADS must be a whole number/);
    await expect(chooseThreads({ RECALL_THREADS: "two" })).rejects.toThrow(/RECALL_THREADS/);
  });

  test("the idle cores are rounded into 1…cores", async () => {
    const cores = availableParallelism();
    expect((await chooseThreads({}, async () => 0.2)).threads).toBe(1);
    expect((await chooseThreads({}, async () => cores)).threads).toBe(cores);
    expect((await chooseThreads({}, async () => cores - 0.4)).threads).toBe(cores);
  });

  test("a busy core is not counted idle", async () => {
    const busy = Bun.spawn([process.execPath, "-e", "const end = Date.now() + 3000; while (Date.now() < end) {}"], {
      stdout: "ignore",
      stderr: "ignore",
    });
    try {
      await Bun.sleep(200);
      expect(await measureIdleCores(300)).toBeLessThan(availableParallelism() - 0.5);
    } finally {
      busy.kill();
    }
  });
});
