/**
 * Which of several recall binaries runs a command faster, measured so that neither the order of the runs nor the age
 * of a binary's file decides it: `bun scripts/compare-binaries.ts [--runs N] label=path label=path … -- <recall args>`.
 * Each binary is first copied to a fresh file (on this 2-core VM, a fresh copy of a binary ran a cold search ~3 ms
 * faster than the same bytes written ~40 minutes earlier, 2026-11-30), then every round runs each binary once, in an
 * order that rotates and turns around from round to round (a binary run second right after another ran ~0.3–1 ms
 * faster than the same binary run first). Prints the p50 and p95 of each, in ms, and its p50's difference to the first.
 *   --runs N          rounds (default 30), after one unmeasured run of each
 *   --queries 'a|b'   replace the argument `@q` by these in turn (one query per round, the same for every binary)
 * The command runs with the environment as given (set RECALL_HOME to an indexed home; NO_COLOR and RECALL_OFFLINE are
 * set); a run that exits non-zero stops the comparison.
 */
import { copyFileSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { percentile } from "./bench/lib.ts";

const usage = "usage: bun scripts/compare-binaries.ts [--runs N] [--queries 'a|b'] a=PATH b=PATH … -- ARGS\n";
const separator = process.argv.indexOf("--");
const command = separator < 0 ? [] : process.argv.slice(separator + 1);
let runs = 30;
let queries: string[] = [];
const binaries: Array<[string, string]> = [];
const own = separator < 0 ? process.argv.slice(2) : process.argv.slice(2, separator);
for (let i = 0; i < own.length; i++) {
  const arg = own[i]!;
  if (arg === "--runs") runs = Number(own[++i]);
  else if (arg === "--queries") queries = (own[++i] ?? "").split("|").filter(Boolean);
  else if (/^[\w.-]+=./.test(arg)) binaries.push(arg.split(/=(.*)/s) as [string, string]);
  else {
    process.stderr.write(`compare-binaries: what is ${arg}?\n${usage}`);
    process.exit(2);
  }
}
if (binaries.length < 2 || command.length === 0 || !(Number.isInteger(runs) && runs > 0)) {
  process.stderr.write(usage);
  process.exit(2);
}

const missing = binaries.find(([, path]) => !existsSync(path));
if (missing) {
  process.stderr.write(`compare-binaries: no binary at ${missing[1]} (${missing[0]})\n`);
  process.exit(2);
}
const work = mkdtempSync(join(tmpdir(), "recall-compare-"));
process.on("exit", () => rmSync(work, { recursive: true, force: true }));
const copies = binaries.map(([label, path]) => {
  const copy = join(work, label);
  copyFileSync(path, copy);
  return copy;
});
const env = { ...process.env, NO_COLOR: "1", RECALL_OFFLINE: "1" };

/** One run of `binary`, wall ms. */
function timed(binary: string, query: string): number {
  const args = command.map((arg) => (arg === "@q" ? query : arg));
  const started = Bun.nanoseconds();
  const child = Bun.spawnSync([binary, ...args], { env, stdout: "ignore", stderr: "pipe" });
  const ms = (Bun.nanoseconds() - started) / 1e6;
  if (child.exitCode !== 0) {
    process.stderr.write(`compare-binaries: ${binary} exited ${child.exitCode}: ${child.stderr.toString().trim()}\n`);
    process.exit(1);
  }
  return ms;
}

const samples = copies.map(() => [] as number[]);
for (const copy of copies) timed(copy, queries[0] ?? "");
for (let round = 0; round < runs; round++) {
  const query = queries.length > 0 ? queries[round % queries.length]! : "";
  const order = copies.map((_, i) => (i + round) % copies.length);
  if (round % 2 === 1) order.reverse();
  for (const i of order) samples[i]!.push(timed(copies[i]!, query));
}
const first = percentile(samples[0]!, 50);
for (const [i, [label]] of binaries.entries()) {
  const p50 = percentile(samples[i]!, 50);
  const difference = i === 0 ? "" : `  ${p50 - first >= 0 ? "+" : ""}${(p50 - first).toFixed(2)}`;
  console.log(
    `${label.padEnd(16)} p50 ${p50.toFixed(2).padStart(8)}  p95 ${percentile(samples[i]!, 95).toFixed(2).padStart(8)}${difference}`,
  );
}
