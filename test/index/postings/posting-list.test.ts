import { expect, test } from "bun:test";
import { ArchiveError } from "../../../src/errors.ts";
import { decodePostingList, encodePostingList } from "../../../src/index/postings/posting-list.ts";
import { decodePostingList as decodeArchiveList } from "../../../src/team-archive/posting-lists.ts";

// Posting lists are varint bytes (the local index's, keyword-postings.ts, and the team archive's, issue 30): what goes
// in comes out, small numbers take one byte, and bytes that do not hold the stated documents are refused.

test("a posting list comes back as it was written, numbers of every size included", () => {
  const positions = [0, 1, 127, 128, 16_384, 2_000_000];
  const frequencies = [1, 2, 300, 0, 65_536, 2 ** 31 - 1];
  const lengths = [5, 127, 128, 70_000, 1, 3];
  const list = decodePostingList(encodePostingList(positions, frequencies, lengths), positions.length)!;
  expect([...list.positions]).toEqual(positions);
  expect([...list.frequencies]).toEqual(frequencies);
  expect([...list.lengths]).toEqual(lengths);
});

test("a typical posting (a small gap, frequency and length under 128) takes three bytes", () => {
  expect(encodePostingList([3, 4, 9], [1, 2, 1], [40, 90, 12]).length).toBe(9);
  expect(encodePostingList([], [], []).length).toBe(0);
});

test("positions must ascend and numbers must be integers in range, else the writer's bug is named", () => {
  expect(() => encodePostingList([2, 2], [1, 1], [1, 1])).toThrow("ascend");
  expect(() => encodePostingList([1], [1.5], [1])).toThrow("integers");
  expect(() => encodePostingList([1], [1], [-1])).toThrow("integers");
});

test("bytes that do not hold the stated documents are refused: no list, and the archive's ArchiveError", () => {
  const bytes = encodePostingList([1, 5], [1, 1], [10, 10]);
  for (const [damaged, count] of [
    [bytes, 3], // too few
    [bytes, 1], // bytes left over
    [bytes.subarray(0, 4), 2], // cut
    [Buffer.from([0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 1, 1]), 1], // a varint longer than 31 bits
  ] as const) {
    expect(decodePostingList(damaged, count)).toBeUndefined();
    expect(() => decodeArchiveList(damaged, count)).toThrow(ArchiveError);
    expect(() => decodeArchiveList(damaged, count)).toThrow("does not hold");
  }
});
