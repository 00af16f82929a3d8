/**
 * Facts about usearch 2.26.2's addon that src/native relies on (usearch.ts module doc): which array it reads,
 * what its scores are, that threads do not change results, and that mapped segment blocks suit it.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openVectorStore } from "../../src/native/index.ts";
import { createBatchKernel, pickThreads, requireUsearch, type BatchKernel } from "../../src/native/usearch.ts";
import { mapSegment } from "../../src/native/vector-file.ts";
import { Random } from "../../scripts/gen-corpus/random.ts";

const kernel: BatchKernel | undefined = createBatchKernel(requireUsearch);
const work = mkdtempSync(join(tmpdir(), "recall-usearch-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

function randomMatrix(rows: number, dims: number, seed: number): Float32Array {
  const random = new Random(seed);
  return Float32Array.from({ length: rows * dims }, () => random.next() - 0.5);
}

describe.skipIf(kernel === undefined)("the usearch addon (needs its prebuild for this platform)", () => {
  test("it reads from the start of the ArrayBuffer whatever the byteOffset, so the kernel refuses offset views", () => {
    const addon = requireUsearch();
    const buffer = new Float32Array([9, 9, 1, 0, 0, 1]); // a junk "header" row, then rows [1,0] and [0,1]
    const view = buffer.subarray(2);
    const [keys, distances] = addon.exactSearch(view, new Float32Array([1, 0]), 2, 2, "ip", 1);
    // Row 0 was scored as [9, 9] (distance 1 − 9): the upstream binding passes ArrayBuffer.Data(), not the view.
    expect(Array.from(keys).map(Number)).toEqual([0, 1]);
    expect(distances[0]).toBe(-8);
    expect(() => kernel!.topDotF32(view, new Float32Array([1, 0]), 1, 1)).toThrow(RangeError);
    expect(() => kernel!.topDotF32(buffer, new Float32Array([1, 0]), 4, 1)).toThrow(RangeError); // count > rows
  });

  test("f32 scores are dot products and i8 scores cosines, best first", () => {
    const f32 = kernel!.topDotF32(new Float32Array([0.5, 0, 0, 2, 1, 1]), new Float32Array([1, 2]), 3, 1);
    expect(Array.from(f32.rows)).toEqual([1, 2, 0]);
    expect(Array.from(f32.scores)).toEqual([4, 3, 0.5]);
    const i8 = kernel!.topCosI8(new Int8Array([100, 0, 3, 4]), new Int8Array([3, 4]), 2, 1);
    expect(Array.from(i8.rows)).toEqual([1, 0]);
    expect(i8.scores[0]).toBeCloseTo(1, 5);
    expect(i8.scores[1]).toBeCloseTo(0.6, 5);
  });

  test("the result is the same with 1 and 2 threads, rows and scores", () => {
    const dims = 64;
    const matrix = randomMatrix(20_000, dims, 5);
    const q = randomMatrix(1, dims, 11);
    const one = kernel!.topDotF32(matrix, q, 500, 1);
    const two = kernel!.topDotF32(matrix, q, 500, 2);
    expect(Array.from(two.rows)).toEqual(Array.from(one.rows));
    expect(Array.from(two.scores)).toEqual(Array.from(one.scores));
  });

  test("mapped segments give the f32 and i8 blocks byteOffset 0, so the kernel reads the right rows", () => {
    const dir = join(work, "segment");
    const store = openVectorStore({ dir, level: "turn", dims: 4, fingerprint: "m", elementType: "i8" });
    store.append(
      [7, 8, 9],
      [new Float32Array([1, 0, 0, 0]), new Float32Array([0, 1, 0, 0]), new Float32Array([0, 0, 1, 0])],
    );
    const seg = mapSegment(join(dir, "turn-00000001.vec"), 1);
    expect(seg.f32.byteOffset).toBe(0);
    expect(seg.i8!.byteOffset).toBe(0);
    expect(Array.from(seg.f32.subarray(4, 8))).toEqual([0, 1, 0, 0]);
    expect(kernel!.topDotF32(seg.f32, new Float32Array([0, 1, 0, 0]), 1, 1).rows[0]).toBe(1);
    expect(kernel!.topCosI8(seg.i8!, new Int8Array([0, 0, 127, 0]), 1, 1).rows[0]).toBe(2);
  });
});

describe("thread count", () => {
  test("one thread below 64 MiB, one per started 64 MiB above, never more than the cores or 4", () => {
    expect(pickThreads(38e6)).toBe(1);
    expect(pickThreads(0)).toBe(1);
    expect(pickThreads(410e6)).toBeLessThanOrEqual(4);
    expect(pickThreads(410e6)).toBeGreaterThanOrEqual(1);
  });
});
