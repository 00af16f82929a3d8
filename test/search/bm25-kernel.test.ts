import { describe, expect, test } from "bun:test";
import { encodePostingList } from "../../src/index/postings/posting-list.ts";
import { bm25KernelBase64 } from "../../src/search/ranking/bm25-kernel-wasm.ts";
import {
  bestIndexes,
  bestScored,
  inverseDocumentFrequency,
  type PhraseDocuments,
  type ScoredDocuments,
  type SegmentPostings,
  scorePhrases,
} from "../../src/search/ranking/bm25-kernel.ts";
import { compileBm25Kernel } from "../../scripts/generate/compile-bm25-kernel.ts";
import { randomStream as random } from "../helpers/ranking-corpus.ts";

// The WebAssembly kernel of keyword ranking (bm25-kernel.ts, issue 42) against a plain JavaScript reference of the same
// formula, on random lists: bit-identical scores, stale documents skipped, damaged bytes refused without leaving
// anything behind for the next call. postings-ranking.test.ts checks the whole ranking against FTS5's own bm25().

interface ReferenceList {
  ids: number[];
  frequencies: number[];
  lengths: number[];
}

/** A word's postings over ids 0…`largest`, split into `segments` lists of distinct ids, some of them stale. */
function randomWord(next: () => number, largest: number, segments: number, staleShare: number) {
  const owner = new Map<number, number>();
  for (let id = 0; id <= largest; id++) if (next() < 0.3) owner.set(id, Math.floor(next() * segments));
  const lists: Array<ReferenceList & { stale: number[] }> = Array.from({ length: segments }, () => ({
    ids: [],
    frequencies: [],
    lengths: [],
    stale: [],
  }));
  for (const [id, segment] of owner) {
    const list = lists[segment]!;
    list.ids.push(id);
    list.frequencies.push(1 + Math.floor(next() * 5));
    list.lengths.push(1 + Math.floor(next() * 3000));
    if (next() < staleShare) list.stale.push(id);
  }
  const stored: SegmentPostings[] = lists.map((list) => ({
    count: list.ids.length,
    last: list.ids.at(-1) ?? 0,
    postings: encodePostingList(list.ids, list.frequencies, list.lengths),
    ...(list.stale.length > 0 ? { stale: Int32Array.from(list.stale) } : {}),
  }));
  const live: ReferenceList = { ids: [], frequencies: [], lengths: [] };
  for (const list of lists)
    list.ids.forEach((id, i) => {
      if (list.stale.includes(id)) return;
      live.ids.push(id);
      live.frequencies.push(list.frequencies[i]!);
      live.lengths.push(list.lengths[i]!);
    });
  return { stored, live };
}

/** The reference: fts5Bm25Function's sum in phrase order, in plain JavaScript (documents found, by id). */
function referenceScores(
  phrases: Array<{ live: ReferenceList } | { ids: Float64Array; ranks: Float64Array }>,
  documents: number,
  averageLength: number,
): Map<number, { score: number; phrases: number }> {
  const out = new Map<number, { score: number; phrases: number }>();
  const add = (id: number, part: number) => {
    const entry = out.get(id) ?? { score: 0, phrases: 0 };
    entry.score += part;
    entry.phrases++;
    out.set(id, entry);
  };
  for (const phrase of phrases) {
    if ("ranks" in phrase) {
      for (const [i, id] of phrase.ids.entries()) add(id, -phrase.ranks[i]!);
      continue;
    }
    const idf = inverseDocumentFrequency(documents, phrase.live.ids.length);
    phrase.live.ids.forEach((id, i) => {
      const f = phrase.live.frequencies[i]!;
      add(id, idf * ((f * (1.2 + 1.0)) / (f + 1.2 * (1 - 0.75 + (0.75 * phrase.live.lengths[i]!) / averageLength))));
    });
  }
  return out;
}

/** What `scored` holds, as the reference gives it: each document's score and the phrases it matches. */
function asMap(scored: ScoredDocuments): Map<number, { score: number; phrases: number }> {
  const out = new Map<number, { score: number; phrases: number }>();
  for (let wanted = 1; ; wanted++) {
    const found = bestScored(scored, wanted, -1)!;
    if (found.ids.length === 0) return out;
    found.ids.forEach((id, i) => {
      out.set(id, { score: found.scores[i]!, phrases: wanted });
    });
  }
}

describe("the bm25 kernel in WebAssembly (bm25-kernel.ts)", () => {
  test("the checked-in module is bm25-kernel.wat compiled (run scripts/generate/bm25-kernel.ts after an edit)", async () => {
    expect(Buffer.from(await compileBm25Kernel()).toString("base64")).toBe(bm25KernelBase64);
  });

  test("random words and ranked phrases, growing and shrinking searches: FTS5's formula bit for bit", () => {
    const next = random(42);
    // Sizes up and down, so the accumulators grow over earlier scratch space and smaller searches reuse bigger ones.
    for (const largest of [50, 4000, 300, 20000, 7, 12000]) {
      const words = [0, 1, 2].map(() => randomWord(next, largest, 1 + Math.floor(next() * 3), next() < 0.5 ? 0 : 0.2));
      const rankedIds = Float64Array.from(
        Array.from({ length: largest + 1 }, (_, id) => id).filter(() => next() < 0.1),
      );
      const ranked = { ids: rankedIds, ranks: rankedIds.map(() => -next() * 10) };
      const documents = largest + 1;
      const averageLength = 17.25 + next() * 1000;
      const phrases: PhraseDocuments[] = [
        { segments: words[0]!.stored },
        ranked,
        ...words.slice(1).map((word) => ({ segments: word.stored })),
      ];
      const scored = scorePhrases(phrases, documents, averageLength);
      expect(scored).toBeDefined();
      const expected = referenceScores(
        [{ live: words[0]!.live }, ranked, ...words.slice(1).map((word) => ({ live: word.live }))],
        documents,
        averageLength,
      );
      expect(asMap(scored!)).toEqual(expected);
      // the window's best, ties included, as a sort of the reference picks them
      const byScore = [...expected].sort((x, y) => y[1].score - x[1].score);
      for (const window of [1, 10, 100])
        if (byScore.length > window) {
          const threshold = byScore[window - 1]![1].score;
          expect(Array.from(bestScored(scored!, 1, window)!.ids)).toEqual(
            [...expected.keys()].filter((id) => expected.get(id)!.score >= threshold).sort((x, y) => x - y),
          );
        }
    }
  });

  test("a mask of allowed documents: only those take part, whatever the mask's length and alignment", () => {
    const next = random(7);
    for (const largest of [13, 4001, 20000]) {
      const word = randomWord(next, largest, 2, 0.1);
      const scored = scorePhrases([{ segments: word.stored }], largest + 1, 30)!;
      const expected = referenceScores([{ live: word.live }], largest + 1, 30);
      // shorter than the documents (ids past it are not allowed), as long, longer; lengths off a multiple of 8; a view
      // that starts 3 bytes into its buffer
      for (const [length, offset] of [
        [Math.floor(largest / 2) + 3, 0],
        [largest + 1, 0],
        [largest + 9, 3],
        [7, 3],
      ] as const) {
        const allowed = new Uint8Array(length + offset).subarray(offset);
        for (let id = 0; id < length; id++) if (next() < 0.4) allowed[id] = 255;
        const kept = [...expected.keys()].filter((id) => id < length && allowed[id] === 255).sort((x, y) => x - y);
        expect(Array.from(bestScored(scored, 1, -1, allowed)!.ids)).toEqual(kept);
        const byScore = kept.map((id) => expected.get(id)!.score).sort((x, y) => y - x);
        if (byScore.length > 5)
          expect(Array.from(bestScored(scored, 1, 5, allowed)!.ids)).toEqual(
            kept.filter((id) => expected.get(id)!.score >= byScore[4]!),
          );
      }
      expect(asMap(scored)).toEqual(expected); // the mask left the counts it read as they were
    }
  });

  test("scores asked for after another search scored are scored again: the same answer", () => {
    const next = random(5);
    const first = randomWord(next, 3000, 2, 0.1);
    const second = randomWord(next, 9000, 1, 0);
    const scoredFirst = scorePhrases([{ segments: first.stored }], 9001, 40)!;
    const expected = referenceScores([{ live: first.live }], 9001, 40);
    const scoredSecond = scorePhrases([{ segments: second.stored }], 9001, 40)!; // grows the accumulators, too
    expect(asMap(scoredFirst)).toEqual(expected);
    expect(asMap(scoredSecond)).toEqual(referenceScores([{ live: second.live }], 9001, 40));
    // the archive's selection in between leaves the last scores in place
    bestIndexes(Float64Array.of(3, 1, 2), Uint8Array.of(1, 1, 1), 1, 2);
    expect(asMap(scoredSecond)).toEqual(referenceScores([{ live: second.live }], 9001, 40));
  });

  test("damaged bytes are refused, and the next search starts from zero", () => {
    const good = { segments: [{ count: 3, last: 9, postings: encodePostingList([2, 5, 9], [1, 2, 3], [10, 20, 30]) }] };
    const expected = asMap(scorePhrases([good], 100, 20)!);
    const damaged: SegmentPostings[] = [
      { count: 4, last: 9, postings: encodePostingList([2, 5, 9], [1, 2, 3], [10, 20, 30]) }, // one document short
      { count: 2, last: 9, postings: encodePostingList([2, 5, 9], [1, 2, 3], [10, 20, 30]) }, // bytes left over
      { count: 3, last: 8, postings: encodePostingList([2, 5, 9], [1, 2, 3], [10, 20, 30]) }, // an id above `last`
      { count: 1, last: 9, postings: Uint8Array.of(0x85, 0x80) }, // a varint cut short
      { count: 1, last: 9, postings: Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0x7f, 1, 1) }, // a varint over 31 bits
      { count: 2, last: 9, postings: Uint8Array.of(3, 1, 1, 0, 1, 1) }, // a zero gap after the first document
      { count: 1, last: 2 ** 31 - 1, postings: Uint8Array.of(3, 1, 1) }, // a `last` no memory holds
    ];
    for (const segment of damaged) {
      // the good list first, so the damage comes after documents were found and scored
      expect(scorePhrases([good, { segments: [segment] }], 100, 20)).toBeUndefined();
      expect(asMap(scorePhrases([good], 100, 20)!)).toEqual(expected);
    }
    // the same bytes with stale documents go through `live` first, which refuses them too
    const stale = Int32Array.of(5);
    expect(scorePhrases([{ segments: [{ ...damaged[0]!, stale }] }], 100, 20)).toBeUndefined();
    expect(asMap(scorePhrases([good], 100, 20)!)).toEqual(expected);
  });

  test("bestIndexes: the window's best entries with every tie, in input order, as a sort would pick them", () => {
    const next = random(7);
    // few distinct scores, so that ties at the window's edge are common; and the orders a heap of the window's best
    // handles worst (every score a new best, or none), every score equal, and negative scores (ranked phrases' parts)
    const orders: Array<(i: number, n: number) => number> = [
      () => Math.floor(next() * 20) / 4,
      (i) => i / 8,
      (i, n) => (n - i) / 8,
      () => 1.5,
      () => -Math.floor(next() * 20) / 4,
    ];
    for (const [n, score] of [0, 1, 5, 100, 3000].flatMap((n) => orders.map((order) => [n, order] as const))) {
      const scores = Float64Array.from({ length: n }, (_, i) => score(i, n));
      const matched = Uint8Array.from({ length: n }, () => Math.floor(next() * 4));
      for (const wanted of [1, 2, 3])
        for (const window of [-1, 0, 1, 3, 10, n, n + 5]) {
          const accepted = [...scores.keys()].filter((i) => matched[i]! >= wanted);
          const sorted = accepted.map((i) => scores[i]!).sort((x, y) => y - x);
          const threshold = window < 0 || sorted.length <= window ? -Infinity : sorted[window - 1]!;
          const expected = window === 0 ? [] : accepted.filter((i) => scores[i]! >= threshold);
          expect(Array.from(bestIndexes(scores, matched, wanted, window))).toEqual(expected);
        }
    }
  });
});
