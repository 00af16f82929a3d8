/**
 * Bench: warm brute-force vector scan of 100,000 L2-normalized random rows, top-10, through src/native's store for
 * each scoring method, next to the physical reference: scripts/bench/c/scan.c compiled in this run with
 * `gcc -O3 -march=native` (one thread), scanning the same mapped file. At 1024 dims (409.6 MB f32): the usearch
 * batch kernel (one call per segment; raw 1-thread call and the store's auto choice, which uses 2 threads here),
 * with allow-lists, int8 + f32 re-score, the TypeScript loops and f16. At 384 and 32 dims: the batch kernel
 * (forced), the store's auto choice and the TypeScript loop, with their ratio to the TypeScript loop (issue 12).
 * Data is generated once (seeded) into ~/.cache/recall-bench/ (outside git). Prints one JSON line per method
 * {name, n, dims, p50_ms, p95_ms, ratio_to_c, ratio_to_js, recall_at_10, machine, commit} and a table; `--save`
 * appends the lines to scripts/bench/results/<date>-<machine>.jsonl.
 * Options: --rows N (100000), --dims D (1024), --runs R (15), --queries Q (20, for recall@10), --small-dims 384,32.
 */
import { existsSync, mkdirSync, appendFileSync, mkdtempSync } from "node:fs";
import { cpus, homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import {
  jsKernels,
  loadDotKernels,
  openVectorStore,
  type DotKernels,
  type ElementType,
  type VectorStore,
} from "../../src/native/index.ts";
import { computeLayout, mapSegment, writeSegmentFile } from "../../src/native/vector-file.ts";
import { Random } from "../gen-corpus/random.ts";

interface Row {
  name: string;
  n: number;
  dims: number;
  p50_ms: number;
  p95_ms: number;
  ratio_to_c: number | null;
  ratio_to_js: number | null;
  recall_at_10: number | null;
  machine: string;
  commit: string;
}

function argNumber(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
}

/** The corpus generator's seeded Random + Box–Muller: deterministic normal samples so the cached data is reproducible. */
function makeNormal(seed: number): () => number {
  const random = new Random(seed);
  const uniform = () => random.next() + 1e-12;
  return () => Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
}

function randomUnit(dims: number, normal: () => number): Float32Array {
  const v = new Float32Array(dims);
  let sum = 0;
  for (let j = 0; j < dims; j++) {
    v[j] = normal();
    sum += v[j]! ** 2;
  }
  const inv = 1 / Math.sqrt(sum);
  for (let j = 0; j < dims; j++) v[j]! *= inv;
  return v;
}

/** Writes the stores of `types` (f32 first: the others are derived from it) of the data set once; returns the cache root. */
function ensureData(rows: number, dims: number, types: ElementType[] = ["f32", "i8", "f16"]): string {
  const root = join(
    process.env.XDG_CACHE_HOME ?? join(homedir(), ".cache"),
    "recall-bench",
    `vectors-${rows}x${dims}-v1`,
  );
  const fingerprint = "bench-random";
  const ids = Int32Array.from({ length: rows }, (_, i) => i + 1);
  for (const type of types) {
    const dir = join(root, type);
    if (existsSync(join(dir, "turn-00000001.vec"))) continue;
    mkdirSync(dir, { recursive: true });
    const t0 = performance.now();
    const normal = makeNormal(42);
    const source = type === "f32" ? undefined : mapSegment(join(root, "f32", "turn-00000001.vec"), 1);
    const getRow = source
      ? (i: number) => source.f32.subarray(i * dims, (i + 1) * dims)
      : () => randomUnit(dims, normal);
    writeSegmentFile(dir, `turn-00000001.vec.tmp-${process.pid}-0`, "turn-00000001.vec", {
      elementType: type,
      dims,
      fingerprint,
      ids,
      getRow,
    });
    console.error(`generated ${type} data in ${dir} (${((performance.now() - t0) / 1000).toFixed(1)} s)`);
  }
  return root;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

/**
 * Times every method once per round, round-robin, so background load hits all methods alike; 2 warm-up rounds.
 * A function returning a number reports its own ms (the C process); otherwise the call is timed here.
 */
function timeInterleaved(runs: number, fns: (() => unknown)[]): { p50: number; p95: number }[] {
  const ms = fns.map(() => [] as number[]);
  for (let round = 0; round < runs + 2; round++) {
    fns.forEach((fn, i) => {
      const t0 = performance.now();
      const own = fn();
      if (round >= 2) ms[i]!.push(typeof own === "number" ? own : performance.now() - t0);
    });
  }
  return ms.map((m) => {
    m.sort((a, b) => a - b);
    return { p50: percentile(m, 0.5), p95: percentile(m, 0.95) };
  });
}

/** Returns the ms of the first search right after opening (view cache empty): what a one-shot CLI search pays. */
function timeFirstSearch(openStore: () => VectorStore, query: Float32Array): number {
  const store = openStore();
  const t0 = performance.now();
  store.search(query, 10);
  return performance.now() - t0;
}

function recallAt10(store: VectorStore, queries: Float32Array[], truth: number[][]): number {
  let hit = 0;
  queries.forEach((q, i) => {
    const got = new Set(store.search(q, 10).map((h) => h.id));
    hit += truth[i]!.filter((id) => got.has(id)).length;
  });
  return hit / (10 * queries.length);
}

/** Compiles scripts/bench/c/scan.c with gcc -O3 -march=native; returns a function running one warm timed scan. */
function buildC(root: string, rows: number, dims: number): () => { ms: number; top: number[] } {
  const bin = join(mkdtempSync(join(tmpdir(), "recall-scan-c-")), "scan");
  const src = resolve(import.meta.dir, "c/scan.c");
  const cc = Bun.spawnSync(["gcc", "-O3", "-march=native", "-o", bin, src]);
  if (cc.exitCode !== 0) throw new Error(`gcc failed: ${cc.stderr.toString()}`);
  const off = computeLayout("f32", dims, rows).f32Offset;
  const args = [bin, join(root, "f32", "turn-00000001.vec"), String(off), String(rows), String(dims), "5", "3"];
  return () => {
    // 3 scans per process, keep the last: the first pays the page-table setup of the fresh mapping.
    const parsed = JSON.parse(Bun.spawnSync(args).stdout.toString()) as { runs_ms: number[]; top: number[] };
    return { ms: parsed.runs_ms.at(-1)!, top: parsed.top.map((r) => r + 1) };
  };
}

/** Opens the store of one element type of the data set at `root` with `kernels` (default: the native ones). */
function openStore(
  root: string,
  dims: number,
  type: ElementType,
  kernels?: DotKernels,
  rescoreFactor = 4,
): VectorStore {
  return openVectorStore({
    dir: join(root, type),
    level: "turn",
    dims,
    fingerprint: "bench-random",
    elementType: type,
    rescoreFactor,
    kernels,
  });
}

const toRow = (
  name: string,
  rows: number,
  dims: number,
  t: { p50: number; p95: number },
  c: number,
  js: number | null,
  recall: number | null,
  machine: string,
  commit: string,
): Row => ({
  name,
  n: rows,
  dims,
  p50_ms: +t.p50.toFixed(2),
  p95_ms: +t.p95.toFixed(2),
  ratio_to_c: +(t.p50 / c).toFixed(2),
  ratio_to_js: js === null ? null : +(t.p50 / js).toFixed(2),
  recall_at_10: recall,
  machine,
  commit,
});

/**
 * The small-dims rows: at `dims`, the batch kernel (forced), the store's automatic choice and the TypeScript loop
 * on the same f32 data, interleaved, each with its ratio to the C reference and to the TypeScript loop.
 */
function benchSmallDims(rows: number, dims: number, runs: number, stamp: { machine: string; commit: string }): Row[] {
  const root = ensureData(rows, dims, ["f32"]);
  const native = loadDotKernels();
  const runC = buildC(root, rows, dims);
  const query = mapSegment(join(root, "f32", "turn-00000001.vec"), 1).f32.slice(5 * dims, 6 * dims);
  const methods: [string, VectorStore][] = [
    [`usearch-batch-f32-${dims}d`, openStore(root, dims, "f32", { ...native, loop: "batch" })],
    [`auto-f32-${dims}d`, openStore(root, dims, "f32")],
    [`js-f32-${dims}d`, openStore(root, dims, "f32", jsKernels)],
  ];
  const [c, ...times] = timeInterleaved(runs, [
    () => runC().ms,
    ...methods.map(
      ([, store]) =>
        () =>
          store.search(query, 10),
    ),
  ]);
  const js = times.at(-1)!.p50;
  return [
    toRow(`c-f32-gcc-O3-native-${dims}d`, rows, dims, c!, c!.p50, js, null, stamp.machine, stamp.commit),
    ...methods.map(([name], i) => toRow(name, rows, dims, times[i]!, c!.p50, js, null, stamp.machine, stamp.commit)),
  ];
}

async function main(): Promise<void> {
  const rows = argNumber("rows", 100_000),
    dims = argNumber("dims", 1024),
    runs = argNumber("runs", 15);
  const smallIndex = process.argv.indexOf("--small-dims");
  const smallDims = (smallIndex > 0 ? process.argv[smallIndex + 1]! : "384,32").split(",").filter(Boolean).map(Number);
  const root = ensureData(rows, dims);
  const machine = `${cpus()[0]?.model ?? "cpu"} ${cpus().length}c`;
  const commit = Bun.spawnSync(["git", "rev-parse", "--short", "HEAD"], { cwd: import.meta.dir })
    .stdout.toString()
    .trim();
  const normal = makeNormal(7);
  const queries = Array.from({ length: argNumber("queries", 20) }, () => randomUnit(dims, normal));
  const native = loadDotKernels();
  if (native.batch === undefined)
    console.error("warning: the usearch addon did not load; the batch rows measure the TypeScript loop");
  const open = (type: ElementType, kernels?: DotKernels, rescoreFactor = 4) =>
    openStore(root, dims, type, kernels, rescoreFactor);
  const exact = open("f32");
  const truth = queries.map((q) => exact.search(q, 10).map((h) => h.id));
  const seg = mapSegment(join(root, "f32", "turn-00000001.vec"), 1);
  const rowQuery = seg.f32.slice(5 * dims, 6 * dims);

  const runC = buildC(root, rows, dims);
  const ours = exact.search(rowQuery, 10).map((h) => h.id);
  const cTop = runC().top;
  if (ours.join() !== cTop.join()) console.error(`warning: C top-10 ${cTop} differs from ours ${ours}`);
  const results: Row[] = [];
  let cP50 = NaN;
  const add = (name: string, t: { p50: number; p95: number }, recall: number | null) =>
    results.push(toRow(name, rows, dims, t, cP50, null, recall, machine, commit));
  const allowAll = new Uint8Array(rows + 1).fill(1);
  const allow90 = allowAll.map((_, id) => (id % 10 === 0 ? 0 : 1));
  const allow3 = allowAll.map((_, id) => (id % 33 === 0 ? 1 : 0));
  const methods: [string, VectorStore, Uint8Array | undefined][] = [
    ["usearch-f32(auto:batch,threads)", exact, undefined],
    ["usearch-f32+allow-all-bitmap", exact, allowAll],
    ["auto-f32+allow-90%(batch)", exact, allow90],
    ["auto-f32+allow-3%(js-loop)", exact, allow3],
    ["usearch-i8+f32-rescore-x4", open("i8"), undefined],
    ["usearch-i8+f32-rescore-x2", open("i8", undefined, 2), undefined],
    ["usearch-i8-no-rescore", open("i8", undefined, 1), undefined],
    ["js-f32-unrolled8", open("f32", jsKernels), undefined],
    ["js-on-i8-store(scans-f32-block)", open("i8", jsKernels), undefined],
    ["js-f16+f32-rescore-x4", open("f16", jsKernels), undefined],
  ];
  // The raw kernel call on one thread, to compare like for like with the one-thread C loop.
  const raw: () => unknown = native.batch
    ? () => native.batch!.topDotF32(seg.f32, rowQuery, 10, 1)
    : () => exact.search(rowQuery, 10);
  // The JS loops run one by one after the rest: the f16 loop allocates and its GC pauses land on whatever runs next.
  const fast = methods.filter(([n]) => !n.startsWith("js-"));
  const [cTimes, rawTimes, ...fastTimes] = timeInterleaved(runs, [
    () => runC().ms,
    raw,
    ...fast.map(
      ([, store, allow]) =>
        () =>
          store.search(rowQuery, 10, allow),
    ),
  ]);
  cP50 = cTimes!.p50;
  add("c-f32-gcc-O3-native", cTimes!, 1);
  add("usearch-exactSearch-f32-1thread(raw)", rawTimes!, null);
  for (const [i, [name, store, allow]] of fast.entries()) {
    add(name, fastTimes[i]!, allow === undefined || allow === allowAll ? recallAt10(store, queries, truth) : null);
  }
  for (const [name, store, allow] of methods.filter(([n]) => n.startsWith("js-"))) {
    add(
      name,
      timeInterleaved(Math.min(runs, 10), [() => store.search(rowQuery, 10, allow)])[0]!,
      recallAt10(store, queries, truth),
    );
  }
  for (const type of ["f32", "i8"] as ElementType[]) {
    const first = Array.from({ length: 5 }, () => timeFirstSearch(() => open(type), rowQuery)).sort((a, b) => a - b);
    add(`usearch-${type}-first-search-after-open`, { p50: first[2]!, p95: first[4]! }, null);
  }
  for (const small of smallDims) results.push(...benchSmallDims(rows, small, runs, { machine, commit }));

  for (const r of results) console.log(JSON.stringify(r));
  const cell = (v: number | null, w: number) => String(v).padStart(w);
  console.log(
    `\n${"method".padEnd(40)} ${"dims".padStart(5)} ${"p50 ms".padStart(8)} ${"p95 ms".padStart(8)} ${"x C".padStart(6)} ${"x JS".padStart(6)} ${"recall@10".padStart(9)}`,
  );
  for (const r of results)
    console.log(
      `${r.name.padEnd(40)} ${cell(r.dims, 5)} ${r.p50_ms.toFixed(1).padStart(8)} ${r.p95_ms.toFixed(1).padStart(8)} ${cell(r.ratio_to_c, 6)} ${cell(r.ratio_to_js, 6)} ${cell(r.recall_at_10, 9)}`,
    );
  if (process.argv.includes("--save")) {
    const dir = resolve(import.meta.dir, "results");
    mkdirSync(dir, { recursive: true });
    appendFileSync(
      join(dir, `${new Date().toISOString().slice(0, 10)}-${machine.replace(/\W+/g, "-")}.jsonl`),
      results.map((r) => `${JSON.stringify(r)}\n`).join(""),
    );
  }
}

await main();
