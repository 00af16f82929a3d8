/**
 * `bun run bench [name ...] [--model use|glove|<preset|path>]`: runs every benchmark script in scripts/bench/ (or
 * those whose file name starts with a given name) in its own process, collects the JSON lines they print, prints one
 * table, then issue 42's measures beside their targets (targets.ts), and appends the lines to
 * scripts/bench/results/<date>-<machine>.jsonl so runs stay comparable over time.
 * `--model` is passed on to every script (hybrid-endpoint.ts measures the USE endpoint with it; scripts that use
 * their own generated models ignore it).
 */
import { appendFileSync, mkdirSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { machine } from "./lib.ts";
import { targetLines } from "./targets.ts";

const benchDir = import.meta.dir;
const modelAt = process.argv.indexOf("--model");
const modelArgs = modelAt > 0 ? process.argv.slice(modelAt, modelAt + 2) : [];
const wanted = process.argv.slice(2).filter((arg) => !modelArgs.includes(arg));
const scripts = readdirSync(benchDir)
  .filter((file) => file.endsWith(".ts") && !["run.ts", "lib.ts"].includes(file))
  .filter((file) => wanted.length === 0 || wanted.some((name) => file.startsWith(name)))
  .sort();

const rows: Array<Record<string, unknown>> = [];
for (const script of scripts) {
  process.stderr.write(`bench: ${script}\n`);
  const child = Bun.spawnSync(["bun", join(benchDir, script), ...modelArgs], {
    stdout: "pipe",
    stderr: "inherit",
    env: process.env,
  });
  for (const line of child.stdout.toString().split("\n")) {
    if (!line.startsWith("{")) continue;
    try {
      rows.push({ script, ...(JSON.parse(line) as Record<string, unknown>) });
    } catch {
      // a non-JSON line that starts with "{": ignore
    }
  }
  if (child.exitCode !== 0) process.stderr.write(`bench: ${script} exited ${child.exitCode}\n`);
}

const columns = ["name", "n", "p50_ms", "p95_ms"];
const extraKeys = [...new Set(rows.flatMap((row) => Object.keys(row)))].filter(
  (key) => ![...columns, "machine", "commit", "script"].includes(key),
);
const header = [...columns, ...extraKeys];
const cell = (value: unknown) =>
  value === undefined ? "" : typeof value === "object" ? JSON.stringify(value) : String(value);
const widths = header.map((key) => Math.max(key.length, ...rows.map((row) => cell(row[key]).length)));
const line = (values: string[]) => values.map((value, i) => value.padEnd(widths[i]!)).join("  ");
console.log(line(header));
console.log(line(widths.map((width) => "-".repeat(width))));
for (const row of rows) console.log(line(header.map((key) => cell(row[key]))));
// issue 42's table, each measure beside its target, from this run's rows (targets.ts)
console.log("");
for (const target of targetLines(rows)) console.log(target);

const resultsDir = join(benchDir, "results");
mkdirSync(resultsDir, { recursive: true });
const file = join(resultsDir, `${new Date().toISOString().slice(0, 10)}-${machine.replace(/[^\w.-]+/g, "_")}.jsonl`);
for (const row of rows) appendFileSync(file, `${JSON.stringify(row)}\n`);
process.stderr.write(`bench: ${rows.length} results appended to ${file}\n`);
