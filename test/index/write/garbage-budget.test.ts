/**
 * garbage-budget.ts: when a thread of an index run collects. The process's resident memory is given as numbers (the
 * floor is a decision on a reading); the collection itself is the real one, shown to free what nothing holds.
 */
import { expect, test } from "bun:test";
import { GarbageBudget, residentFloorBytes } from "../../../src/index/write/garbage-budget.ts";

const megabyte = 1024 * 1024;

/** A budget collecting every `every` bytes, with the resident memory read from `resident` and its collections counted. */
function budget(every: number, resident: { bytes: number }) {
  const collections: number[] = [];
  let handled = 0;
  const garbage = new GarbageBudget(
    every,
    () => resident.bytes,
    () => collections.push(handled),
  );
  return {
    note(bytes: number) {
      handled += bytes;
      garbage.noteHandled(bytes);
    },
    collections,
  };
}

test("above the floor, a thread collects once every `every` bytes it handled", () => {
  const resident = { bytes: residentFloorBytes + 50 * megabyte };
  const run = budget(32 * megabyte, resident);
  for (let i = 0; i < 100; i++) run.note(megabyte); // 100 MB in 1 MB results
  expect(run.collections).toEqual([32 * megabyte, 64 * megabyte, 96 * megabyte]);
});

test("under the floor a thread never collects, however much it handled", () => {
  const run = budget(32 * megabyte, { bytes: residentFloorBytes - 1 });
  for (let i = 0; i < 1000; i++) run.note(megabyte);
  expect(run.collections).toEqual([]);
});

test("the bytes handled under the floor count: the first note above it collects", () => {
  const resident = { bytes: 100 * megabyte };
  const run = budget(32 * megabyte, resident);
  run.note(40 * megabyte);
  expect(run.collections).toEqual([]);
  resident.bytes = residentFloorBytes;
  run.note(1);
  expect(run.collections).toEqual([40 * megabyte + 1]);
  run.note(31 * megabyte); // the count starts again after a collection
  expect(run.collections).toHaveLength(1);
  run.note(megabyte);
  expect(run.collections).toHaveLength(2);
});

test("one result larger than `every` collects after it", () => {
  const run = budget(32 * megabyte, { bytes: residentFloorBytes });
  run.note(200 * megabyte);
  expect(run.collections).toEqual([200 * megabyte]);
});

test("the default collection frees what nothing holds any more", () => {
  // A 16 MB buffer dropped before the collection: only a weak reference to it is left.
  let buffer: ArrayBuffer | undefined = new ArrayBuffer(16 * megabyte);
  const weak = new WeakRef(buffer);
  buffer = undefined;
  new GarbageBudget(1, () => residentFloorBytes).noteHandled(1);
  expect(weak.deref()).toBeUndefined();
});
