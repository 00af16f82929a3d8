import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  buildIdFilter,
  jsKernels,
  openVectorStore,
  type ElementType,
  type VectorStoreOptions,
} from "../../src/native/index.ts";
import { IndexError } from "../../src/errors.ts";
import { computeLayout } from "../../src/native/vector-file.ts";
import { Random } from "../../scripts/gen-corpus/random.ts";

const DIMS = 64;
let dir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "recall-vectors-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Deterministic pseudo-random unit-ish vectors (xorshift32), so failures reproduce. */
function makeVectors(count: number, seed: number, dims = DIMS): Float32Array[] {
  const random = new Random(seed);
  return Array.from({ length: count }, () => Float32Array.from({ length: dims }, () => random.next() - 0.5));
}

function open(extra: Partial<VectorStoreOptions> = {}) {
  return openVectorStore({ dir, level: "turn", dims: DIMS, fingerprint: "model-a:64", ...extra });
}

const range = (n: number, from = 1) => Array.from({ length: n }, (_, i) => i + from);

describe("vector store search", () => {
  test("a query equal to a stored row finds that row first with a score of about 1", () => {
    const store = open();
    const vectors = makeVectors(500, 1);
    store.append(range(500), vectors);
    const hits = store.search(vectors[41]!, 5);
    expect(hits[0]!.id).toBe(42);
    expect(hits[0]!.score).toBeCloseTo(1, 5);
    expect(hits).toHaveLength(5);
    for (let i = 1; i < hits.length; i++) expect(hits[i]!.score).toBeLessThanOrEqual(hits[i - 1]!.score);
  });

  test("an allow-list of 3 ids out of 1000 with k=10 returns exactly those 3", () => {
    const store = open();
    store.append(range(1000), makeVectors(1000, 2));
    const hits = store.search(makeVectors(1, 99)[0]!, 10, buildIdFilter([7, 500, 999]));
    expect(hits.map((h) => h.id).sort((a, b) => a - b)).toEqual([7, 500, 999]);
  });

  test("an empty store with no files searches to an empty list", () => {
    const store = open({ dir: join(dir, "does-not-exist") });
    expect(store.count).toBe(0);
    expect(store.search(makeVectors(1, 3)[0]!, 10)).toEqual([]);
    expect(store.ids()).toEqual(new Int32Array(0));
  });

  test.each(["f32", "i8"] as ElementType[])(
    "the TypeScript fallback returns the same ids and scores as the native kernels on %s rows",
    (elementType) => {
      const vectors = makeVectors(800, 4);
      const native = open({ elementType });
      expect(native.kernelName).toBe(process.platform === "linux" ? "simsimd+usearch" : "usearch");
      native.append(range(800), vectors);
      const fallback = open({ elementType, kernels: jsKernels });
      for (const q of makeVectors(5, 5)) {
        const a = native.search(q, 10);
        const b = fallback.search(q, 10);
        expect(b.map((h) => h.id)).toEqual(a.map((h) => h.id));
        for (const [i, h] of b.entries()) expect(h.score).toBeCloseTo(a[i]!.score, 5);
      }
    },
  );

  test.each(["i8", "f16"] as ElementType[])(
    "%s rows with the f32 re-score give the same top-10 as exact f32",
    (type) => {
      const vectors = makeVectors(2000, 6);
      const exact = openVectorStore({
        dir: join(dir, "f32"),
        level: "turn",
        dims: DIMS,
        fingerprint: "m",
        elementType: "f32",
      });
      const quantized = openVectorStore({
        dir: join(dir, type),
        level: "turn",
        dims: DIMS,
        fingerprint: "m",
        elementType: type,
      });
      exact.append(range(2000), vectors);
      quantized.append(range(2000), vectors);
      let same = 0;
      const queries = makeVectors(20, 7);
      for (const q of queries) {
        const want = new Set(exact.search(q, 10).map((h) => h.id));
        same += quantized.search(q, 10).filter((h) => want.has(h.id)).length;
      }
      expect(same / (10 * queries.length)).toBeGreaterThanOrEqual(0.99);
    },
  );

  test("a query of the wrong width is rejected with a RangeError", () => {
    const store = open();
    store.append([1], makeVectors(1, 8));
    expect(() => store.search(new Float32Array(DIMS + 1), 3)).toThrow(RangeError);
  });
});

describe("vector store files", () => {
  test.each(["f32", "i8"] as ElementType[])(
    "append of %s rows writes one new segment and leaves the old one byte-identical, same inode and mtime",
    (elementType) => {
      const store = open({ elementType });
      store.append(range(300), makeVectors(300, 9));
      const [first] = readdirSync(dir);
      const before = statSync(join(dir, first!));
      const bytesBefore = readFileSync(join(dir, first!));
      const written = store.append([301, 302], makeVectors(2, 10));
      const files = readdirSync(dir).sort();
      expect(files).toHaveLength(2);
      const after = statSync(join(dir, first!));
      expect(after.ino).toBe(before.ino);
      expect(after.mtimeMs).toBe(before.mtimeMs);
      expect(readFileSync(join(dir, first!)).equals(bytesBefore)).toBe(true);
      const second = statSync(join(dir, files[1]!));
      expect(second.size).toBe(written);
      // O(new rows), not O(store): for f32, 64-byte header + 2 ids padded to 64 + 2 rows × 64 dims × 4 bytes.
      expect(written).toBe(computeLayout(elementType, DIMS, 2).totalBytes);
      if (elementType === "f32") expect(written).toBe(64 + 64 + 2 * DIMS * 4);
      expect(store.count).toBe(302);
    },
  );

  test("compaction drops dead rows and searches exactly like a fresh store of the live rows", () => {
    const vectors = makeVectors(600, 11);
    const store = open();
    store.append(range(300), vectors.slice(0, 300));
    store.append(range(300, 301), vectors.slice(300));
    const liveIds = range(600).filter((id) => id % 3 !== 0);
    const live = buildIdFilter(liveIds);
    expect(store.deadFraction(live)).toBeCloseTo(200 / 600, 5);
    expect(store.compactIfNeeded(live)).toBe(true);
    expect(readdirSync(dir)).toHaveLength(1);
    expect(Array.from(store.ids())).toEqual(liveIds);
    const fresh = open({ dir: join(dir, "fresh") });
    fresh.append(
      liveIds,
      liveIds.map((id) => vectors[id - 1]!),
    );
    for (const q of makeVectors(5, 12)) expect(store.search(q, 10)).toEqual(fresh.search(q, 10));
    expect(store.compactIfNeeded(live)).toBe(false);
  });

  test("a half-written temp file left by a crash is ignored when reading and removed by the next write", () => {
    const store = open();
    store.append(range(10), makeVectors(10, 13));
    const temp = "turn-00000002.vec.tmp-999999999-1";
    writeFileSync(join(dir, temp), new Uint8Array(100));
    const reopened = open();
    expect(reopened.count).toBe(10);
    expect(reopened.search(makeVectors(1, 14)[0]!, 3)).toHaveLength(3);
    const warnings: string[] = [];
    const writer = open({ onWarning: (m) => warnings.push(m) });
    writer.append([11], makeVectors(1, 15));
    expect(readdirSync(dir)).not.toContain(temp);
    expect(warnings.some((w) => w.includes("temp"))).toBe(true);
  });

  test("an empty or truncated segment file is skipped with a warning, the rest stays searchable", () => {
    open().append(range(10), makeVectors(10, 16));
    writeFileSync(join(dir, "turn-00000002.vec"), new Uint8Array(0));
    writeFileSync(join(dir, "turn-00000003.vec"), readFileSync(join(dir, "turn-00000001.vec")).subarray(0, 200));
    const warnings: string[] = [];
    const store = open({ onWarning: (m) => warnings.push(m) });
    expect(store.count).toBe(10);
    expect(warnings).toHaveLength(2);
  });

  test("an id present in two segments is returned once, with the newest vector", () => {
    const [oldVec, newVec] = makeVectors(2, 17);
    const store = open();
    store.append([1, 2, 3], [oldVec!, ...makeVectors(2, 18)]);
    store.append([1], [newVec!]);
    const hits = store.search(newVec!, 10);
    expect(hits.filter((h) => h.id === 1)).toHaveLength(1);
    expect(hits[0]).toMatchObject({ id: 1 });
    expect(hits[0]!.score).toBeCloseTo(1, 5);
    expect(store.count).toBe(3);
    expect(Array.from(store.ids()).sort()).toEqual([1, 2, 3]);
    expect(store.stats()).toEqual({ segments: 2, physicalRows: 4, uniqueRows: 3 });
  });

  test("a crash after compaction's rename but before the old segments are deleted still returns each id once", () => {
    const vectors = makeVectors(4, 25);
    const store = open();
    store.append([1, 2, 3], vectors.slice(0, 3));
    store.append([2], [vectors[3]!]);
    const saved = readdirSync(dir).map((name) => [name, readFileSync(join(dir, name))] as const);
    store.compact();
    for (const [name, bytes] of saved) writeFileSync(join(dir, name), bytes);
    const reopened = open();
    expect(reopened.stats()).toEqual({ segments: 3, physicalRows: 7, uniqueRows: 3 });
    const hits = reopened.search(vectors[3]!, 10);
    expect(hits.map((h) => h.id).sort()).toEqual([1, 2, 3]);
    expect(hits[0]!.id).toBe(2);
    expect(hits[0]!.score).toBeCloseTo(1, 5);
  });

  test("a store written by another model reports the mismatch, refuses to search, and works after reset", () => {
    open().append(range(5), makeVectors(5, 19));
    const other = open({ fingerprint: "model-b:64" });
    expect(other.mismatch).toEqual({ storedFingerprint: "model-a:64", storedDims: DIMS });
    expect(() => other.search(makeVectors(1, 20)[0]!, 3)).toThrow(IndexError);
    other.reset();
    expect(other.mismatch).toBeUndefined();
    expect(readdirSync(dir)).toEqual([]);
    other.append([1], makeVectors(1, 21));
    expect(open({ fingerprint: "model-b:64" }).mismatch).toBeUndefined();
  });

  test("the session and turn levels in one directory do not see each other's rows", () => {
    open({ level: "session" }).append([1, 2], makeVectors(2, 22));
    open({ level: "turn" }).append([1, 2, 3], makeVectors(3, 23));
    expect(open({ level: "session" }).count).toBe(2);
    expect(open({ level: "turn" }).count).toBe(3);
  });

  test("bad ids are rejected before anything is written", () => {
    const store = open();
    expect(() => store.append([-1], makeVectors(1, 24))).toThrow(RangeError);
    expect(() => store.append([1.5], makeVectors(1, 24))).toThrow(RangeError);
    expect(() => store.append([1, 2], makeVectors(1, 24))).toThrow(RangeError);
    expect(readdirSync(dir)).toEqual([]);
  });
});

describe("unusable segments and digests (issue 9)", () => {
  test("damaged and foreign segments are listed with a reason, and discardUnusable deletes exactly those", () => {
    const store = open();
    store.append(range(4), makeVectors(4, 30));
    store.append(range(2, 10), makeVectors(2, 31));
    writeFileSync(join(dir, "turn-00000003.vec"), readFileSync(join(dir, "turn-00000001.vec")).subarray(0, 100));
    openVectorStore({ dir: join(dir, "b"), level: "turn", dims: DIMS, fingerprint: "model-b:64" }).append(
      [30],
      makeVectors(1, 33),
    );
    writeFileSync(join(dir, "turn-00000004.vec"), readFileSync(join(dir, "b", "turn-00000001.vec")));
    const reopened = open();
    expect(reopened.damaged).toEqual([
      { path: join(dir, "turn-00000003.vec"), reason: expect.stringMatching(/^is 100 bytes, its header says \d+$/) },
    ]);
    expect(reopened.foreign).toEqual([
      { path: join(dir, "turn-00000004.vec"), reason: "was written by another model (model-b:64, 64 dims)" },
    ]);
    expect(reopened.mismatch).toBeDefined();
    const discarded = reopened.discardUnusable();
    expect(discarded.map((d) => d.path)).toEqual([join(dir, "turn-00000003.vec"), join(dir, "turn-00000004.vec")]);
    expect(reopened.mismatch).toBeUndefined();
    expect(reopened.damaged).toEqual([]);
    expect(
      readdirSync(dir)
        .filter((name) => name.endsWith(".vec"))
        .sort(),
    ).toEqual(["turn-00000001.vec", "turn-00000002.vec"]);
    expect(Array.from(reopened.ids()).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 10, 11]);
    expect(reopened.search(makeVectors(1, 34)[0]!, 3)).toHaveLength(3);
  });

  test("segment digests change when a file's ids are overwritten in place, and not otherwise", () => {
    const store = open();
    store.append(range(5), makeVectors(5, 35));
    const before = open().segmentDigests();
    expect(before).toEqual([
      {
        name: "turn-00000001.vec",
        sizeBytes: statSync(join(dir, "turn-00000001.vec")).size,
        idsHash: expect.stringMatching(/^[0-9a-f]+$/),
      },
    ]);
    expect(open().segmentDigests()).toEqual(before);
    const bytes = readFileSync(join(dir, "turn-00000001.vec"));
    bytes.writeInt32LE(99, 64);
    writeFileSync(join(dir, "turn-00000001.vec"), bytes);
    const after = open().segmentDigests();
    expect(after[0]!.sizeBytes).toBe(before[0]!.sizeBytes);
    expect(after[0]!.idsHash).not.toBe(before[0]!.idsHash);
  });
});

describe("vector store rows read back (the team archive pushes them, issue 30)", () => {
  for (const elementType of ["f32", "i8"] as ElementType[]) {
    test(`${elementType}: vectorsOf gives the newest normalized row of each wanted id, and nothing for absent ids`, () => {
      const store = open({ elementType });
      const first = makeVectors(5, 11);
      const second = makeVectors(2, 12);
      store.append(range(5), first);
      store.append([2, 4], second); // ids 2 and 4 shadowed by newer rows
      const rows = store.vectorsOf([1, 2, 4, 99]);
      expect([...rows.keys()].sort()).toEqual([1, 2, 4]);
      const normalized = (v: Float32Array) => {
        const norm = Math.hypot(...v);
        return [...v].map((x) => x / norm);
      };
      const close = (a: Float32Array, b: number[]) => a.every((x, i) => Math.abs(x - b[i]!) < 1e-5);
      expect(close(rows.get(1)!, normalized(first[0]!))).toBe(true);
      expect(close(rows.get(2)!, normalized(second[0]!))).toBe(true);
      expect(close(rows.get(4)!, normalized(second[1]!))).toBe(true);
      store.close();
    });
  }
});
