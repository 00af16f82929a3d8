/**
 * The batched scan (one usearch call per segment) against the exact TypeScript scan, through the real store:
 * f32 and i8 segments, 8 to 1024 dims, shadowed rows, and allow-lists that keep few rows, drop the true top hits,
 * or keep fewer rows than k. The batch loop is forced (`loop: "batch"`) so the cost model cannot hide it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  buildIdFilter,
  jsKernels,
  loadDotKernels,
  openVectorStore,
  type DotKernels,
  type ElementType,
  type VectorStore,
} from "../../src/native/index.ts";
import type { BatchKernel } from "../../src/native/usearch.ts";
import { Random } from "../../scripts/gen-corpus/random.ts";

const work = mkdtempSync(join(tmpdir(), "recall-batch-scan-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const native = loadDotKernels();

/** Deterministic pseudo-random vectors (xorshift32), so failures reproduce. */
function makeVectors(count: number, seed: number, dims: number): Float32Array[] {
  const random = new Random(seed);
  return Array.from({ length: count }, () => Float32Array.from({ length: dims }, () => random.next() - 0.5));
}

/** The batch kernel with a call counter, so a test can tell that the batch path really ran. */
function countingBatch(batch: BatchKernel): { kernel: BatchKernel; calls: () => number } {
  let calls = 0;
  return {
    kernel: {
      name: "usearch",
      topDotF32: (m, q, count, threads) => {
        calls++;
        return batch.topDotF32(m, q, count, threads);
      },
      topCosI8: (m, q, count, threads) => {
        calls++;
        return batch.topCosI8(m, q, count, threads);
      },
    },
    calls: () => calls,
  };
}

/** Rows per store by dims: enough rows for the filters to matter, little enough to stay fast. */
const rowsFor = (dims: number) => (dims >= 1024 ? 1200 : dims >= 384 ? 2000 : 4000);

interface Fixture {
  batchStore: VectorStore;
  jsStore: VectorStore;
  calls: () => number;
  rows: number;
  queries: Float32Array[];
}

/**
 * Two segments in one store: ids 1…rows, then a second append that re-writes ids 1…rows/10 with new vectors, so a
 * tenth of the first segment is shadowed. The same files are opened with the forced batch loop and with jsKernels.
 */
function makeFixture(type: ElementType, dims: number): Fixture {
  const dir = join(work, `${type}-${dims}`);
  const rows = rowsFor(dims);
  const options = { dir, level: "turn" as const, dims, fingerprint: `m:${dims}`, elementType: type };
  const writer = openVectorStore({ ...options, kernels: jsKernels });
  writer.append(
    Array.from({ length: rows }, (_, i) => i + 1),
    makeVectors(rows, dims, dims),
  );
  const shadowing = rows / 10;
  writer.append(
    Array.from({ length: shadowing }, (_, i) => i + 1),
    makeVectors(shadowing, dims + 1, dims),
  );
  const counter = countingBatch(native.batch!);
  const kernels: DotKernels = { ...native, batch: counter.kernel, loop: "batch" };
  return {
    batchStore: openVectorStore({ ...options, kernels }),
    jsStore: openVectorStore({ ...options, kernels: jsKernels }),
    calls: counter.calls,
    rows,
    // Queries near stored rows (old, shadowed and new) plus random ones.
    queries: [...makeVectors(3, 7, dims), makeVectors(rows, dims, dims)[5]!, makeVectors(rows, dims, dims)[rows - 1]!],
  };
}

function expectSameHits(fixture: Fixture, q: Float32Array, k: number, allow?: Uint8Array): void {
  const got = fixture.batchStore.search(q, k, allow);
  const want = fixture.jsStore.search(q, k, allow);
  expect(got.map((h) => h.id)).toEqual(want.map((h) => h.id));
  for (const [i, h] of got.entries()) expect(Math.abs(h.score - want[i]!.score)).toBeLessThan(1e-6);
}

const cases: [ElementType, number][] = (["f32", "i8"] as ElementType[]).flatMap((type) =>
  [8, 32, 384, 1024].map((dims) => [type, dims] as [ElementType, number]),
);

describe.skipIf(native.batch === undefined)(
  "the batch scan returns the exact filtered top-k of the TypeScript scan (needs the usearch prebuild of this platform)",
  () => {
    test.each(cases)(
      "%s rows, %i dims: no filter, with a tenth of the first segment shadowed by a newer copy",
      (type, dims) => {
        const fixture = makeFixture(type, dims);
        for (const q of fixture.queries) expectSameHits(fixture, q, 10);
        expect(fixture.calls()).toBe(2 * fixture.queries.length); // one call per segment per search
        const ids = fixture.batchStore.search(fixture.queries[3]!, 50).map((h) => h.id);
        expect(new Set(ids).size).toBe(ids.length); // a shadowed copy never comes back beside its newer one
      },
    );

    test.each(cases)("%s rows, %i dims: an allow-list that keeps 3%% of the rows still fills k", (type, dims) => {
      const fixture = makeFixture(type, dims);
      const kept = Array.from({ length: Math.floor(fixture.rows * 0.03) }, (_, i) => 1 + i * 33);
      const allow = buildIdFilter(kept);
      for (const q of fixture.queries) {
        expectSameHits(fixture, q, 10, allow);
        expect(fixture.batchStore.search(q, 10, allow)).toHaveLength(10);
      }
    });

    test.each(cases)(
      "%s rows, %i dims: an allow-list without the unfiltered top 20 returns the next best, not fewer",
      (type, dims) => {
        const fixture = makeFixture(type, dims);
        for (const q of fixture.queries) {
          const top = new Set(fixture.jsStore.search(q, 20).map((h) => h.id));
          const allow = buildIdFilter(
            Array.from({ length: fixture.rows }, (_, i) => i + 1).filter((id) => !top.has(id)),
          );
          const hits = fixture.batchStore.search(q, 10, allow);
          expect(hits).toHaveLength(10);
          expect(hits.some((h) => top.has(h.id))).toBe(false);
          expectSameHits(fixture, q, 10, allow);
        }
      },
    );

    test.each(cases)("%s rows, %i dims: k larger than the allowed rows returns every allowed row", (type, dims) => {
      const fixture = makeFixture(type, dims);
      // 3 and 5 are shadowed (their newer copy in segment 2 is the one allowed), 50000 is not stored.
      const allow = buildIdFilter([3, 5, fixture.rows - 1, fixture.rows, 50_000]);
      for (const q of fixture.queries) {
        const hits = fixture.batchStore.search(q, 10, allow);
        expect(hits.map((h) => h.id).sort((a, b) => a - b)).toEqual([3, 5, fixture.rows - 1, fixture.rows]);
        expectSameHits(fixture, q, 10, allow);
      }
    });
  },
);
