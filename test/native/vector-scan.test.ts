import { describe, expect, test } from "bun:test";
import { createDotKernels, jsKernels } from "../../src/native/index.ts";
import { TopK } from "../../src/native/vector-scan.ts";

describe("top-k heap", () => {
  test("keeps exactly the k best of 10,000 scores, best first, like a full sort would", () => {
    let s = 99;
    const next = () => ((s ^= s << 13), (s ^= s >>> 17), (s ^= s << 5), (s >>> 0) / 4294967296);
    const scores = Array.from({ length: 10_000 }, next);
    const heap = new TopK(10);
    scores.forEach((score, row) => heap.push(score, 0, row));
    const want = scores.map((score, row) => ({ score, row })).sort((a, b) => b.score - a.score).slice(0, 10);
    expect(heap.sorted().map((c) => c.row)).toEqual(want.map((c) => c.row));
  });

  test("holds fewer than k entries when fewer rows were offered, and nothing when k is 0", () => {
    const heap = new TopK(5);
    heap.push(0.5, 0, 1);
    heap.push(-0.2, 1, 0);
    expect(heap.sorted()).toEqual([{ score: 0.5, seg: 0, row: 1 }, { score: -0.2, seg: 1, row: 0 }]);
    const empty = new TopK(0);
    empty.push(1, 0, 0);
    expect(empty.sorted()).toEqual([]);
  });
});

describe("dot kernels", () => {
  test("an addon that fails to load gives the TypeScript kernels and one one-line warning through the hook", () => {
    const warnings: string[] = [];
    const kernels = createDotKernels(() => {
      throw new Error("dlopen failed: simsimd.node: cannot open shared object file\nstack...");
    }, (m) => warnings.push(m));
    expect(kernels).toBe(jsKernels);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain("dlopen failed");
    expect(warnings[0]).not.toContain("\n");
  });

  test("an addon whose self-test returns a wrong dot product is not used", () => {
    const warnings: string[] = [];
    const kernels = createDotKernels(() => ({ inner: () => 0 }), (m) => warnings.push(m));
    expect(kernels.name).toBe("js");
    expect(warnings[0]).toContain("self-test");
  });

  test("the TypeScript kernels compute exact dot products, including a length not divisible by 4", () => {
    expect(jsKernels.dotF32(new Float32Array([1, 2, 3, 4, 5]), new Float32Array([5, 4, 3, 2, 1]))).toBe(35);
    expect(jsKernels.dotI8(new Int8Array([-128, 127, 3]), new Int8Array([-128, 127, -1]))).toBe(16384 + 16129 - 3);
  });
});
