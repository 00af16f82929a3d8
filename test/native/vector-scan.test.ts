import { describe, expect, test } from "bun:test";
import { createDotKernels, jsKernels, type UsearchAddon } from "../../src/native/index.ts";
import { requireSimsimd } from "../../src/native/simsimd.ts";
import { createBatchKernel, requireUsearch } from "../../src/native/usearch.ts";
import { buildSkipMask, preferBatch, TopK } from "../../src/native/vector-scan.ts";
import { Random } from "../../scripts/gen-corpus/random.ts";

describe("top-k heap", () => {
  test("keeps exactly the k best of 10,000 scores, best first, like a full sort would", () => {
    const random = new Random(99);
    const scores = Array.from({ length: 10_000 }, () => random.next());
    const heap = new TopK(10);
    for (const [row, score] of scores.entries()) heap.push(score, 0, row);
    const want = scores
      .map((score, row) => ({ score, row }))
      .sort((a, b) => b.score - a.score)
      .slice(0, 10);
    expect(heap.sorted().map((c) => c.row)).toEqual(want.map((c) => c.row));
  });

  test("holds fewer than k entries when fewer rows were offered, and nothing when k is 0", () => {
    const heap = new TopK(5);
    heap.push(0.5, 0, 1);
    heap.push(-0.2, 1, 0);
    expect(heap.sorted()).toEqual([
      { score: 0.5, seg: 0, row: 1 },
      { score: -0.2, seg: 1, row: 0 },
    ]);
    const empty = new TopK(0);
    empty.push(1, 0, 0);
    expect(empty.sorted()).toEqual([]);
  });
});

const failing = (message: string) => () => {
  throw new Error(`${message}\nstack...`);
};
const hasSimsimd = process.platform === "linux" && process.arch === "x64";

describe("kernel loading", () => {
  test("addons that fail to load give the TypeScript kernels and one one-line warning through the hook", () => {
    const warnings: string[] = [];
    const kernels = createDotKernels(
      { simsimd: failing("dlopen failed: simsimd.node"), usearch: failing("dlopen failed: usearch.node") },
      (m) => warnings.push(m),
    );
    expect(kernels.name).toBe("js");
    expect(kernels.batch).toBeUndefined();
    expect(warnings).toHaveLength(2);
    expect(warnings.join(" ")).toContain("usearch.node");
    expect(warnings.every((w) => !w.includes("\n"))).toBe(true);
  });

  test.skipIf(createBatchKernel(requireUsearch) === undefined)(
    "a missing simsimd is silent when usearch loaded (macOS has no simsimd prebuild); the re-score then uses TypeScript",
    () => {
      const warnings: string[] = [];
      const kernels = createDotKernels(
        { simsimd: failing("no simsimd prebuild for darwin-arm64"), usearch: requireUsearch },
        (m) => warnings.push(m),
      );
      expect(kernels.name).toBe("usearch");
      expect(kernels.dotF32).toBe(jsKernels.dotF32);
      expect(warnings).toEqual([]);
    },
  );

  test("addons whose self-tests return wrong answers are not used", () => {
    const warnings: string[] = [];
    const wrongOrder: UsearchAddon = {
      exactSearch: (_d, _q, _n, count) => [new BigUint64Array(count), new Float32Array(count), new BigUint64Array(1)],
    };
    const kernels = createDotKernels({ simsimd: () => ({ inner: () => 0 }), usearch: () => wrongOrder }, (m) =>
      warnings.push(m),
    );
    expect(kernels.name).toBe("js");
    expect(warnings.join(" ")).toContain("usearch self-test returned rows 0,0,0");
    expect(warnings.join(" ")).toContain("simsimd self-test returned 0");
  });

  test.skipIf(!hasSimsimd)(
    "on linux-x64 both addons load from their prebuilds (simsimd's linux-arm64 prebuild is an x86-64 file)",
    () => {
      const kernels = createDotKernels({ simsimd: requireSimsimd, usearch: requireUsearch });
      expect(kernels.name).toBe("simsimd+usearch");
      expect(kernels.dotF32(new Float32Array([1, 2, 3]), new Float32Array([4, 5, 6]))).toBe(32);
    },
  );

  test("the TypeScript dot product is exact, including a length not divisible by 4", () => {
    expect(jsKernels.dotF32(new Float32Array([1, 2, 3, 4, 5]), new Float32Array([5, 4, 3, 2, 1]))).toBe(35);
  });
});

describe("scan filters and loop choice", () => {
  test("the skip mask joins the shadow mask and the allow-list and counts the skipped rows", () => {
    const ids = Int32Array.from([10, 11, 12, 13]);
    const shadow = Uint8Array.from([1, 0, 0, 0]);
    const allow = new Uint8Array(13);
    allow[11] = allow[10] = 1; // 12 not allowed, 13 past the end
    const { skip, skipped } = buildSkipMask(ids, { allow, shadow });
    expect(Array.from(skip!)).toEqual([1, 0, 1, 1]);
    expect(skipped).toBe(3);
    expect(shadow[2]).toBe(0); // the store's shadow mask is not written to
    expect(buildSkipMask(ids, { allow: undefined, shadow: new Uint8Array(4) })).toEqual({
      skip: undefined,
      skipped: 0,
    });
    expect(buildSkipMask(ids, { allow: undefined, shadow })).toEqual({ skip: shadow, skipped: 1 });
  });

  test("the batch kernel is preferred for unfiltered scans from 32 dims, the TypeScript loop at 8 dims and for allow-lists keeping few rows", () => {
    expect(preferBatch("f32", 100_000, 100_000, 10, 1024, 2)).toBe(true);
    expect(preferBatch("f32", 100_000, 100_000, 10, 384, 1)).toBe(true);
    expect(preferBatch("f32", 100_000, 100_000, 10, 32, 1)).toBe(true);
    expect(preferBatch("i8", 100_000, 100_000, 40, 32, 1)).toBe(true);
    expect(preferBatch("f32", 100_000, 100_000, 10, 8, 1)).toBe(false);
    expect(preferBatch("f32", 100_000, 90_000, 10_010, 1024, 2)).toBe(true);
    expect(preferBatch("f32", 100_000, 5_000, 95_010, 1024, 2)).toBe(false);
    expect(preferBatch("i8", 100_000, 5_000, 95_040, 1024, 2)).toBe(false);
  });
});
