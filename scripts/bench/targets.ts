/**
 * Issue 42's table: each measure beside its target, from the rows of one `bun run bench` run (run.ts prints it
 * after its own table), or, as a command, from a results file: `bun scripts/bench/targets.ts [results.jsonl]`
 * (default: the newest file in scripts/bench/results/; the last row of each name wins). The compiled hello-world of
 * the same run (`hello_world.binary`, index-search.ts) is the floor the cold-start target is a ratio of. A measure
 * whose rows are missing (its script was not run, or the corpus was absent) says so.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** One bench row: the JSON line a script printed (lib.ts `report`). */
type Row = Record<string, unknown> & { name?: string; p50_ms?: number };

/**
 * One measure of the issue's table: the rows it reads and its target. Most are "every row's p50 ≤ `limitMs`", shown as
 * the rows' p50s joined by " / "; the others say how they read their rows (`value`, `met`).
 */
interface Measure {
  measure: string;
  rows: string[];
  target: string;
  limitMs?: number;
  /** The measured value as text (all rows are present when it is called). */
  value?(rows: Map<string, Row>): string;
  met?(rows: Map<string, Row>): boolean;
}

const p50 = (rows: Map<string, Row>, name: string): number => rows.get(name)!.p50_ms as number;
const ms = (value: number) => `${value.toFixed(1)} ms`;

const hello = "hello_world.binary";
const coldReal = "search.cold.keyword.with_check.binary.real";

const measures: Measure[] = [
  {
    measure: "cold keyword search with the freshness check, real corpus (binary)",
    rows: [coldReal, hello],
    target: "≤ 3 × hello-world + 10 ms",
    value: (rows) =>
      `${ms(p50(rows, coldReal))} (${(p50(rows, coldReal) / p50(rows, hello)).toFixed(1)} × hello-world ${ms(p50(rows, hello))})`,
    met: (rows) => p50(rows, coldReal) <= 3 * p50(rows, hello) + 10,
  },
  {
    measure: "the same at 20,000 generated sessions",
    rows: ["search.cold.keyword.with_check.binary.scaled-20000"],
    target: "≤ 40 ms",
    limitMs: 40,
  },
  {
    measure: "local keyword search at 100,000 sessions (sessions / turns)",
    rows: ["archive.local_search.session.scaled-100000", "archive.local_search.turn.scaled-100000"],
    target: "≤ 80 ms",
    limitMs: 80,
  },
  {
    measure: "first full index, 20,000 sessions (wall, peak memory)",
    rows: ["first-index"],
    target: "≤ 15 s, ≤ 300 MB",
    value: (rows) =>
      `${(p50(rows, "first-index") / 1000).toFixed(1)} s, ${Math.round(Number(rows.get("first-index")!.peak_rss_bytes) / 1e6)} MB`,
    met: (rows) => p50(rows, "first-index") <= 15_000 && Number(rows.get("first-index")!.peak_rss_bytes) <= 300e6,
  },
  {
    measure: "a new session file at 20k, searchable by the next search (binary)",
    rows: ["freshness.new_session_file.binary.scaled-20000"],
    target: "≤ 200 ms",
    limitMs: 200,
  },
  {
    measure: "web view / picker / MCP warm search at 20k, p50",
    rows: ["ui.search.scaled-20000", "pick.key_results.scaled-20000", "mcp.search.warm.depth1.scaled-20000"],
    target: "≤ 20 ms",
    limitMs: 20,
  },
];

/**
 * The issue-42 table as text lines: measure, value, target, and `met`, `NOT met`, or which rows are missing.
 * @param rows bench rows; for a name given more than once, the last one counts
 */
export function targetLines(rows: readonly Row[]): string[] {
  const byName = new Map(rows.filter((row) => typeof row.name === "string").map((row) => [row.name!, row]));
  const cells = measures.map((entry) => {
    const missing = entry.rows.filter((name) => typeof byName.get(name)?.p50_ms !== "number");
    if (missing.length > 0) return [entry.measure, "—", entry.target, `not measured (${missing.join(", ")})`];
    const value = entry.value?.(byName) ?? entry.rows.map((name) => ms(p50(byName, name))).join(" / ");
    const met = entry.met?.(byName) ?? entry.rows.every((name) => p50(byName, name) <= entry.limitMs!);
    return [entry.measure, value, entry.target, met ? "met" : "NOT met"];
  });
  const header = ["issue 42", "now", "target", ""];
  const widths = header.map((title, i) => Math.max(title.length, ...cells.map((row) => row[i]!.length)));
  const line = (values: string[]) =>
    values
      .map((value, i) => value.padEnd(widths[i]!))
      .join("  ")
      .trimEnd();
  return [line(header), line(widths.map((width) => "-".repeat(width))), ...cells.map(line)];
}

if (import.meta.main) {
  const resultsDir = join(import.meta.dir, "results");
  const file =
    process.argv[2] ??
    join(
      resultsDir,
      readdirSync(resultsDir)
        .filter((name) => name.endsWith(".jsonl"))
        .sort()
        .at(-1) ?? "",
    );
  const rows = readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line.startsWith("{"))
    .map((line) => JSON.parse(line) as Row);
  console.log(`from ${file}`);
  for (const line of targetLines(rows)) console.log(line);
}
