/**
 * Bench (issue 4): cold hybrid query, process start to results with the model load included, on a
 * generated model of the bge-small shape (12 layers, 384 dims, real BGE vocabulary; random weights,
 * so speed not quality). The example history is indexed with that model once; then `recall search`
 * (hybrid, --no-reindex) runs as a fresh process 10 times, from source (`bun src/cli.ts`) and, when
 * it was built, the compiled binary (dist/recall). Reference: a Bun hello-world in the same run.
 * Target: cold hybrid query under 400 ms on this machine.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { benchCacheDir, report, sample, timeCommand } from "./lib.ts";

const repo = resolve(import.meta.dir, "../..");
mkdirSync(benchCacheDir, { recursive: true });
const model = join(benchCacheDir, "bge-small-shape.gguf");
if (!existsSync(model)) {
  const made = Bun.spawnSync(
    ["bun", join(repo, "scripts/gguf/make-model.ts"), model, "--shape", "bge-small", "--vocab", "bge"],
    { stdout: "inherit", stderr: "inherit" },
  );
  if (made.exitCode !== 0) throw new Error("could not generate the bge-small-shape model");
}

const home = mkdtempSync(join(tmpdir(), "recall-bench-hybrid-"));
// In-process model load on every search (the warm helper is measured by hybrid-shared-model.ts).
const env = { ...process.env, RECALL_HOME: home, RECALL_OFFLINE: "1", NO_COLOR: "1", RECALL_EMBED_HELPER: "off" };
const sources = ["--claude-dir", join(repo, "examples/claude-code"), "--opencode-dir", join(repo, "examples/opencode")];
try {
  const indexMs = timeCommand(["bun", join(repo, "src/cli.ts"), "index", ...sources, "--model", model], {
    env,
    cwd: repo,
  });
  report("hybrid.index_examples.bge_small_shape", [indexMs]);
  const hello = join(tmpdir(), "recall-bench-hello.ts");
  writeFileSync(hello, 'console.log("hello");\n');
  report(
    "hello_world.bun",
    sample(10, () => timeCommand(["bun", hello])),
  );
  const query = [
    "search",
    "containers cannot reach the database on the host",
    "--no-reindex",
    "--model",
    model,
    ...sources,
  ];
  report(
    "search.cold.hybrid.source.bge_small_shape",
    sample(10, () => timeCommand(["bun", join(repo, "src/cli.ts"), ...query], { env, cwd: repo })),
    { target_ms: 400 },
  );
  const binary = join(repo, "dist/recall");
  if (existsSync(binary)) {
    report(
      "search.cold.hybrid.binary.bge_small_shape",
      sample(10, () => timeCommand([binary, ...query], { env, cwd: tmpdir() })),
      { target_ms: 400 },
    );
    report(
      "search.cold.keyword.binary.examples",
      sample(10, () => timeCommand([binary, ...query, "--keyword-only"], { env, cwd: tmpdir() })),
    );
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
