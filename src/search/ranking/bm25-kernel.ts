/**
 * bm25 over a keyword search's phrase lists, and the selection of the best scores, in WebAssembly (bm25-kernel.wat):
 * the posting lists' bytes are decoded and scored term at a time with the same doubles as FTS5's bm25()
 * (postings-ranking.ts says how). Why WebAssembly: a one-shot search runs these loops once, before JavaScriptCore's JIT
 * has warmed up, where JavaScript cost ~100 ns a posting; the module (1.4 KB) is compiled to machine code when it is
 * instantiated. One instance per process, used by one synchronous call at a time. Its memory holds the accumulators
 * (8 bytes a document id) and phrase counts (1 byte) from offset 0, zero between calls, then scratch space for the
 * call (the lists' bytes, the found ids, the scores); it grows to the largest search and is reused.
 */
import { bm25KernelBase64 } from "./bm25-kernel-wasm.ts";

/** bm25's k1 and b, as FTS5 fixes them (sqlite ext/fts5/fts5_aux.c). */
const k1 = 1.2;
const b = 0.75;

/** One segment's posting list of a word: its bytes (index/postings/posting-list.ts) and what the segment row says. */
export interface SegmentPostings {
  count: number;
  /** Its largest document id. */
  last: number;
  postings: Uint8Array;
  /** Ids of documents no longer live in this segment, ascending (keyword-postings.ts `staleDocuments`). */
  stale?: Int32Array;
}

/**
 * One phrase's documents for {@link scorePhrases}: a one-word phrase's posting lists (one per segment; their documents
 * are distinct), or the documents FTS5 ranked for a phrase it matched, with their ranks (a part is the negated rank).
 */
export type PhraseDocuments = { segments: readonly SegmentPostings[] } | { ids: Float64Array; ranks: Float64Array };

/** Every document matching at least one phrase, with its score and the number of phrases it matches (parallel arrays). */
export interface ScoredDocuments {
  ids: Int32Array;
  scores: Float64Array;
  phrases: Uint8Array;
}

/** The kernel's exports; pointers are byte offsets into `memory` (bm25-kernel.wat documents each function). */
interface KernelExports {
  memory: WebAssembly.Memory;
  live(source: number, end: number, count: number, stale: number, staleEnd: number, limit: number): number;
  score(
    source: number,
    end: number,
    count: number,
    stale: number,
    staleEnd: number,
    limit: number,
    idf: number,
    k1PlusOne: number,
    k1: number,
    oneMinusB: number,
    b: number,
    averageLength: number,
    accumulators: number,
    counts: number,
    found: number,
    foundCount: number,
  ): number;
  add(
    ids: number,
    ranks: number,
    n: number,
    factor: number,
    accumulators: number,
    counts: number,
    found: number,
    foundCount: number,
  ): number;
  gather(found: number, n: number, accumulators: number, counts: number, scores: number, phrases: number): void;
  best(
    scores: number,
    matched: number,
    n: number,
    wanted: number,
    window: number,
    scratch: number,
    out: number,
  ): number;
}

/** The instance, how many document ids its accumulators and counts hold (they sit at offset 0), and how far the
 * scratch space has ever reached (memory beyond it is still zero, as WebAssembly memory starts). */
interface Kernel {
  exports: KernelExports;
  capacity: number;
  written: number;
}

let kernel: Kernel | undefined;

function instance(): Kernel {
  kernel ??= {
    exports: new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(bm25KernelBase64, "base64")), {})
      .exports as unknown as KernelExports,
    capacity: 0,
    written: 0,
  };
  return kernel;
}

/** The kernel's memory grown to at least `bytes` bytes (a grow detaches the views made before it). */
function reserve(exports: KernelExports, bytes: number): ArrayBuffer {
  const { memory } = exports;
  const page = 65536;
  if (memory.buffer.byteLength < bytes) memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / page));
  return memory.buffer;
}

const align8 = (offset: number) => Math.ceil(offset / 8) * 8;

/**
 * Where the scratch space starts once the accumulators and counts hold ids 0…`largest`, and the scratch space up to
 * `end` (bytes from that start) reserved. Growing them zeroes the earlier scratch space they now cover (fresh memory is
 * zero already: the pages a one-shot search never wrote are never touched, at ~2.5 µs a page here).
 */
function reserveScratch(largest: number, end: (start: number) => number): { start: number; buffer: ArrayBuffer } {
  const state = instance();
  if (largest >= state.capacity) {
    const old = align8(state.capacity * 9);
    const capacity = Math.ceil((largest + 1) * 1.25);
    const start = align8(capacity * 9);
    const buffer = reserve(state.exports, start); // throws RangeError beyond 4 GiB: the capacity stays as it was
    if (state.written > old) new Uint8Array(buffer, old, Math.min(state.written, start) - old).fill(0);
    state.capacity = capacity;
  }
  const start = align8(state.capacity * 9);
  const until = end(start);
  state.written = Math.max(state.written, until);
  return { start, buffer: reserve(state.exports, until) };
}

/** FTS5's idf for a phrase matching `matches` of `documents` documents (fts5_aux.c: 1e-6 when not above 0). */
export function inverseDocumentFrequency(documents: number, matches: number): number {
  const idf = Math.log((documents - matches + 0.5) / (matches + 0.5));
  return idf <= 0 ? 1e-6 : idf;
}

/**
 * Every document matching a phrase, scored by bm25 over `phrases` in phrase order: a one-word phrase adds
 * idf · norm (its idf from its live documents among `documents`), a ranked phrase its negated rank.
 * @param documents bm25's N, FTS5's live document count
 * @param averageLength bm25's avgdl, FTS5's tokens per document
 * @returns undefined when a posting list's bytes do not hold its documents (the caller ranks in FTS5)
 */
export function scorePhrases(
  phrases: readonly PhraseDocuments[],
  documents: number,
  averageLength: number,
): ScoredDocuments | undefined {
  let largest = -1;
  let staleCount = 0;
  let postingCount = 0;
  for (const phrase of phrases) {
    if ("ids" in phrase) {
      postingCount += phrase.ids.length;
      for (const id of phrase.ids) if (id > largest) largest = id;
    } else
      for (const segment of phrase.segments) {
        staleCount += segment.stale?.length ?? 0;
        postingCount += segment.count;
        if (segment.last > largest) largest = segment.last;
      }
  }
  const { exports } = instance();
  const accumulatorsAt = 0;
  // The scratch space: the lists' bytes, stale ids and ranked ids as laid out here, then the found ids (at most one per
  // id), their scores and phrase counts.
  const distinct = Math.min(postingCount, largest + 1);
  const layout = phrases.map(() => 0);
  let staleAt = 0;
  let foundAt = 0;
  let scoresAt = 0;
  let phrasesAt = 0;
  let reserved: { start: number; buffer: ArrayBuffer };
  try {
    reserved = reserveScratch(largest, (start) => {
      let end = start;
      for (const [i, phrase] of phrases.entries()) {
        if ("ids" in phrase) {
          layout[i] = align8(end);
          end = align8(layout[i]! + phrase.ids.length * 4) + phrase.ids.length * 8;
        } else {
          layout[i] = end;
          end += phrase.segments.reduce((sum, segment) => sum + segment.postings.length, 0);
        }
      }
      staleAt = align8(end);
      foundAt = align8(staleAt + (staleCount + 1) * 4);
      scoresAt = align8(foundAt + distinct * 4);
      phrasesAt = scoresAt + distinct * 8;
      return phrasesAt + distinct;
    });
  } catch (error) {
    if (error instanceof RangeError) return undefined; // a damaged `last` far beyond any id: more memory than there is
    throw error;
  }
  const { start, buffer } = reserved;
  const counts = instance().capacity * 8;
  const bytes = new Uint8Array(buffer);
  let found = 0;
  let staleIdsAt = staleAt;
  for (const [i, phrase] of phrases.entries()) {
    if (found < 0) break;
    if ("ids" in phrase) {
      const idsAt = layout[i]!;
      const ranksAt = align8(idsAt + phrase.ids.length * 4);
      new Int32Array(buffer, idsAt, phrase.ids.length).set(phrase.ids);
      new Float64Array(buffer, ranksAt, phrase.ids.length).set(phrase.ranks);
      found = exports.add(idsAt, ranksAt, phrase.ids.length, -1, accumulatorsAt, counts, foundAt, found);
      continue;
    }
    // Each segment's bytes and stale ids in place, and the phrase's live documents (bm25's n) for its idf.
    const placed: Array<{ segment: SegmentPostings; at: number; staleAt: number }> = [];
    let at = layout[i]!;
    let matches = 0;
    for (const segment of phrase.segments) {
      bytes.set(segment.postings, at);
      const stale = segment.stale ?? new Int32Array(0);
      new Int32Array(buffer, staleIdsAt, stale.length).set(stale);
      placed.push({ segment, at, staleAt: staleIdsAt });
      const live =
        stale.length === 0
          ? segment.count
          : exports.live(
              at,
              at + segment.postings.length,
              segment.count,
              staleIdsAt,
              staleIdsAt + stale.length * 4,
              segment.last,
            );
      if (live < 0) {
        found = -1;
        break;
      }
      matches += live;
      at += segment.postings.length;
      staleIdsAt += stale.length * 4;
    }
    if (found < 0) break;
    const idf = inverseDocumentFrequency(documents, matches);
    for (const { segment, at: listAt, staleAt: listStaleAt } of placed) {
      found = exports.score(
        listAt,
        listAt + segment.postings.length,
        segment.count,
        listStaleAt,
        listStaleAt + (segment.stale?.length ?? 0) * 4,
        segment.last,
        idf,
        k1 + 1.0,
        k1,
        1 - b,
        b,
        averageLength,
        accumulatorsAt,
        counts,
        foundAt,
        found,
      );
      if (found < 0) break;
    }
  }
  if (found < 0) {
    // Damaged bytes: clear every accumulator and count, whatever was found before the damage.
    new Uint8Array(buffer, 0, start).fill(0);
    return undefined;
  }
  exports.gather(foundAt, found, accumulatorsAt, counts, scoresAt, phrasesAt);
  return {
    ids: new Int32Array(buffer, foundAt, found).slice(),
    scores: new Float64Array(buffer, scoresAt, found).slice(),
    phrases: new Uint8Array(buffer, phrasesAt, found).slice(),
  };
}

/**
 * Where the best `window` scores are among the entries matching at least `wanted` terms (`matched[i] >= wanted`), with
 * every entry tied with the window's last score (the caller breaks ties), in input order: a selection of the k-th
 * score, not a sort. Local search ranks its documents with it, and the team archive its positions.
 * @param scores parallel to `matched`
 * @param window -1 for every entry that matches enough terms
 * @returns indexes into `scores`, ascending
 */
export function bestIndexes(scores: Float64Array, matched: Uint8Array, wanted: number, window: number): Int32Array {
  if (window === 0) return new Int32Array(0);
  const { exports } = instance();
  const n = scores.length;
  const { start: scoresAt, buffer } = reserveScratch(-1, (start) => start + n * 21);
  const scratchAt = scoresAt + n * 8;
  const outAt = scratchAt + n * 8;
  const matchedAt = outAt + n * 4;
  new Float64Array(buffer, scoresAt, n).set(scores);
  new Uint8Array(buffer, matchedAt, n).set(matched);
  const written = exports.best(scoresAt, matchedAt, n, wanted, window, scratchAt, outAt);
  return new Int32Array(buffer, outAt, written).slice();
}
