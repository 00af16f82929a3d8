/**
 * bm25 over a keyword search's phrase lists, and the selection of the best scores, in WebAssembly (bm25-kernel.wat):
 * the posting lists' bytes are decoded and scored term at a time with the same doubles as FTS5's bm25()
 * (postings-ranking.ts says how). Why WebAssembly: a one-shot search runs these loops once, before JavaScriptCore's JIT
 * has warmed up, where JavaScript cost ~100 ns a posting; the module (1.2 KB) is compiled when it is instantiated.
 *
 * One instance per process (per thread), used by one synchronous call at a time. Its memory holds the accumulators
 * (8 bytes a document id) and phrase counts (1 byte) from offset 0, then scratch space for a call (the lists' bytes,
 * stale and ranked ids; the selection's heap and its answer); it grows to the largest search and is reused. The scores
 * stay there, read in place by the selection, until the next scoring: a one-shot search touches each page of memory
 * once, and a first touch is what a cold search pays most for here (~5 µs a 4 KiB page on this 2-core VM: copying the
 * scores out for the selection, as first built, cost ~1,000 page faults, ~5 ms, for a 150k-posting query).
 */
import { bm25KernelBase64 } from "./bm25-kernel-wasm.ts";

/** bm25's k1 and b, as FTS5 fixes them (sqlite ext/fts5/fts5_aux.c); the team archive scores with them too. */
export const k1 = 1.2;
export const b = 0.75;

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

/**
 * What {@link scorePhrases} scored, for {@link bestScored}: the scores live in the kernel's memory until the next
 * scoring (`generation` tells), and are scored again from `phrases` when asked for after that.
 */
export interface ScoredDocuments {
  readonly generation: number;
  /** Ids 0…size − 1 were scored (the largest id + 1). */
  readonly size: number;
  readonly phrases: readonly PhraseDocuments[];
  readonly documents: number;
  readonly averageLength: number;
  /** How many live documents each phrase matches, in phrase order: FTS5's count of a MATCH of that phrase alone. */
  readonly matches: readonly number[];
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
  ): number;
  add(ids: number, ranks: number, n: number, factor: number, accumulators: number, counts: number): void;
  mask(counts: number, mask: number, n: number): void;
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

/**
 * The instance; how many document ids its accumulators and counts hold (the counts start at `capacity` · 8); how many
 * of them the last scoring may have set (`dirty`, cleared by the next); how far scratch space has ever reached
 * (`written`: memory beyond it is still zero, as WebAssembly memory starts); and the scorings so far.
 */
interface Kernel {
  exports: KernelExports;
  capacity: number;
  dirty: number;
  written: number;
  generation: number;
}

let kernel: Kernel | undefined;

const kernelBinary = Buffer.from(bm25KernelBase64, "base64");
let compiledModule: WebAssembly.Module | undefined;
/**
 * The module compiled off the calling thread, from the moment this file is loaded: a one-shot search loads it before
 * its freshness check, which runs meanwhile, and its instance then took 0.2–0.4 ms at 20k sessions instead of 1.6 ms
 * with the compilation (and the compiler's fresh memory) on its path (timestamps in the binary). A failed compilation
 * leaves the synchronous one to say why.
 */
const compiling: Promise<void> = WebAssembly.compile(kernelBinary).then(
  (module) => {
    compiledModule = module;
  },
  () => {},
);

/**
 * Resolves once the kernel's module is compiled (or its compilation failed): await it before the first scoring where
 * waiting is possible; a scoring that comes first compiles it synchronously. Never rejects.
 */
export function kernelCompiled(): Promise<void> {
  return compiling;
}

function instance(): Kernel {
  kernel ??= {
    exports: new WebAssembly.Instance(compiledModule ?? new WebAssembly.Module(kernelBinary), {})
      .exports as unknown as KernelExports,
    capacity: 0,
    dirty: 0,
    written: 0,
    generation: 0,
  };
  return kernel;
}

/**
 * The kernel's memory grown to at least `bytes` bytes (a grow detaches the views made before it).
 * @throws RangeError beyond WebAssembly's 4 GiB, or when the memory cannot be had
 */
function reserve(exports: KernelExports, bytes: number): ArrayBuffer {
  const { memory } = exports;
  const page = 65536;
  if (memory.buffer.byteLength < bytes) memory.grow(Math.ceil((bytes - memory.buffer.byteLength) / page));
  return memory.buffer;
}

const align8 = (offset: number) => Math.ceil(offset / 8) * 8;

/**
 * Places of the selection's heap that a scoring reserves memory for, with the selection's answer (4 bytes a document):
 * a search's first window (800 documents: lexical.ts, 8 per candidate, 100 candidates) fits, so its selection does not
 * grow the memory again (see {@link reserveScratch}: every grow counts the whole memory toward the next garbage
 * collection); a larger window grows it.
 */
const selectionHeapPlaces = 1024;

/**
 * The selection's scratch space (bm25-kernel.wat `best`) for a heap of `heapPlaces` scores over `entries` entries: the
 * heap, 8 bytes a place, then the answer, 4 bytes an entry (every entry, at most).
 */
function selectionLayout(heapPlaces: number, entries: number): { heapBytes: number; bytes: number } {
  const heapBytes = heapPlaces * 8;
  return { heapBytes, bytes: heapBytes + entries * 4 };
}

/**
 * Where the scratch space starts once the accumulators and counts hold ids 0…`largest` (-1: as they are), with the
 * scratch space up to `end(start)` reserved, in one grow of the memory: a grow may copy the memory into a new one,
 * whose pages are first touched then. Growing the accumulators and counts zeroes the earlier scratch space they now
 * cover. The memory takes no more than asked for, in as few grows as can be: each time the buffer of a grown memory is
 * taken, JavaScriptCore counts the memory's whole size toward the bytes a process allocates before its next garbage
 * collection (~8.8 MB at first; `BUN_JSC_logGC=1`). When a scoring reserved 12 bytes a document for the selection and
 * 25% more accumulators than the first search needed, four of five test queries at 20k sessions made a one-shot search
 * collect once (wall p50 59.0 → 54.8 ms without); a selection that grew the memory a second time, two of nine.
 * @throws RangeError when the memory cannot grow that far (the capacity stays as it was)
 */
function reserveScratch(kernel: Kernel, largest: number, end: (start: number) => number): ArrayBuffer {
  const grows = largest >= kernel.capacity;
  // room to grow into after the first scoring (a long-lived reader's index grows); the first takes what it needs
  const capacity = grows ? (kernel.capacity === 0 ? largest + 1 : Math.ceil((largest + 1) * 1.25)) : kernel.capacity;
  const start = align8(capacity * 9);
  const until = end(start);
  const buffer = reserve(kernel.exports, until);
  if (grows) {
    // The old counts and scratch space lie where the new accumulators and counts go; what was never written is zero.
    new Uint8Array(buffer, 0, Math.min(kernel.written, start)).fill(0);
    kernel.capacity = capacity;
    kernel.dirty = 0;
  }
  kernel.written = Math.max(kernel.written, until);
  return buffer;
}

/**
 * FTS5's idf for a phrase matching `matches` of `documents` documents (fts5_aux.c: 1e-6 when not above 0), for local
 * search and the team archive; 1e-6 also when it is not a finite number, as the archive's scoring always guarded (with
 * the local index's totals in step, matches never exceed documents).
 */
export function inverseDocumentFrequency(documents: number, matches: number): number {
  const idf = Math.log((documents - matches + 0.5) / (matches + 0.5));
  return idf <= 0 || !Number.isFinite(idf) ? 1e-6 : idf;
}

/**
 * Every document matching a phrase, scored by bm25 over `phrases` in phrase order: a one-word phrase adds idf · norm
 * (its idf from its live documents among `documents`), a ranked phrase its negated rank. The scores stay in the kernel
 * (see {@link ScoredDocuments}); an earlier scoring's are gone.
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
  for (const phrase of phrases) {
    if ("ids" in phrase) for (const id of phrase.ids) largest = Math.max(largest, id);
    else for (const segment of phrase.segments) largest = Math.max(largest, segment.last);
  }
  const state = instance();
  const { exports } = state;
  // The scratch space: each phrase's bytes and stale ids, or its ranked ids and ranks, one after the other.
  const layout: number[] = [];
  let buffer: ArrayBuffer;
  try {
    buffer = reserveScratch(state, largest, (start) => {
      let end = start;
      for (const phrase of phrases) {
        end = align8(end);
        layout.push(end);
        if ("ids" in phrase) end = align8(end + phrase.ids.length * 4) + phrase.ids.length * 8;
        else
          for (const segment of phrase.segments)
            end += align8(segment.postings.length) + (segment.stale?.length ?? 0) * 4;
      }
      // and the selection's room after it (bestScored places it at `start`, over the scored lists): one grow
      return Math.max(end, start + selectionLayout(selectionHeapPlaces, largest + 1).bytes);
    });
  } catch (error) {
    if (error instanceof RangeError) return undefined; // a damaged `last` far beyond any id: more memory than there is
    throw error;
  }
  const counts = state.capacity * 8;
  new Uint8Array(buffer, 0, state.dirty * 8).fill(0);
  new Uint8Array(buffer, counts, state.dirty).fill(0);
  state.dirty = largest + 1;
  state.generation++;
  const bytes = new Uint8Array(buffer);
  const phraseMatches: number[] = [];
  for (const [i, phrase] of phrases.entries()) {
    if ("ids" in phrase) {
      phraseMatches.push(phrase.ids.length);
      const idsAt = layout[i]!;
      const ranksAt = align8(idsAt + phrase.ids.length * 4);
      new Int32Array(buffer, idsAt, phrase.ids.length).set(phrase.ids);
      new Float64Array(buffer, ranksAt, phrase.ids.length).set(phrase.ranks);
      exports.add(idsAt, ranksAt, phrase.ids.length, -1, 0, counts);
      continue;
    }
    // Each segment's bytes and stale ids in place, and the phrase's live documents (bm25's n) for its idf.
    const placed: Array<{ segment: SegmentPostings; at: number; staleAt: number; staleEnd: number }> = [];
    let at = layout[i]!;
    let matches = 0;
    for (const segment of phrase.segments) {
      bytes.set(segment.postings, at);
      const staleAt = at + align8(segment.postings.length);
      const stale = segment.stale ?? new Int32Array(0);
      new Int32Array(buffer, staleAt, stale.length).set(stale);
      const staleEnd = staleAt + stale.length * 4;
      const live =
        stale.length === 0
          ? segment.count
          : exports.live(at, at + segment.postings.length, segment.count, staleAt, staleEnd, segment.last);
      if (live < 0) return undefined;
      placed.push({ segment, at, staleAt, staleEnd });
      matches += live;
      at = staleEnd;
    }
    phraseMatches.push(matches);
    const idf = inverseDocumentFrequency(documents, matches);
    for (const { segment, at: listAt, staleAt, staleEnd } of placed) {
      const end = listAt + segment.postings.length;
      const scored = exports.score(
        listAt,
        end,
        segment.count,
        staleAt,
        staleEnd,
        segment.last,
        idf,
        k1 + 1.0,
        k1,
        1 - b,
        b,
        averageLength,
        0,
        counts,
      );
      if (scored < 0) return undefined;
    }
  }
  return { generation: state.generation, size: largest + 1, phrases, documents, averageLength, matches: phraseMatches };
}

/**
 * The documents among `scored` that match at least `wanted` phrases and have one of the best `window` scores, with
 * every document tied with the window's last score (the caller breaks ties), by ascending id: their ids and scores as
 * parallel arrays (no object per document: a one-shot search runs this before the JIT has warmed up, where
 * `Array.from` made 800 `{ id, score }` objects in ~2.5 ms at 20k sessions).
 * @param window -1 for every document that matches enough phrases
 * @param allowed when given, only the documents it marks take part: a byte per document id, 255 = allowed, 0 = not
 *        (ids beyond its length are not allowed); see search/ranking/document-mask.ts
 * @returns undefined when the documents had to be scored again (another scoring came in between) and their lists turned
 *          out damaged
 */
export function bestScored(
  scored: ScoredDocuments,
  wanted: number,
  window: number,
  allowed?: Uint8Array,
): { ids: Int32Array; scores: Float64Array } | undefined {
  const state = instance();
  if (scored.generation !== state.generation) {
    const again = scorePhrases(scored.phrases, scored.documents, scored.averageLength);
    return again && bestScored(again, wanted, window, allowed);
  }
  if (window === 0) return { ids: new Int32Array(0), scores: new Float64Array(0) };
  const countsAt = state.capacity * 8;
  const ids = (
    allowed
      ? select(state, scored.size, align8(scored.size), wanted, window, (buffer, start) => {
          maskCounts(state.exports, buffer, countsAt, start, scored.size, allowed);
          return { scoresAt: 0, matchedAt: start };
        })
      : select(state, scored.size, 0, wanted, window, () => ({ scoresAt: 0, matchedAt: countsAt }))
  ).slice();
  const all = new Float64Array(state.exports.memory.buffer, 0, scored.size);
  const scores = new Float64Array(ids.length);
  for (let i = 0; i < ids.length; i++) scores[i] = all[ids[i]!]!;
  return { ids, scores };
}

/**
 * Write to `to` the `n` phrase counts at `from` with those of the documents `allowed` does not mark zeroed: the mask is
 * copied there (zero beyond its length) and the kernel's `mask` ANDs the counts into it, in WebAssembly because a
 * one-shot process runs this cold (126k documents at 20k sessions; as a JavaScript loop it was compiled by the JIT in
 * the middle of a dated level-2 search).
 */
function maskCounts(
  exports: KernelExports,
  buffer: ArrayBuffer,
  from: number,
  to: number,
  n: number,
  allowed: Uint8Array,
): void {
  const target = new Uint8Array(buffer, to, n);
  const kept = Math.min(n, allowed.length);
  target.set(allowed.subarray(0, kept));
  target.fill(0, kept);
  exports.mask(from, to, n);
}

/**
 * How many of `scored`'s phrases each of `ids` matches, from the counts its scoring left in the kernel (0 for an id
 * beyond the scored ones), parallel to `ids`; undefined when another scoring came in between and the counts are gone.
 */
export function phrasesMatched(scored: ScoredDocuments, ids: readonly number[]): number[] | undefined {
  const state = kernel;
  if (!state || scored.generation !== state.generation) return undefined;
  const counts = new Uint8Array(state.exports.memory.buffer, state.capacity * 8, scored.size);
  return ids.map((id) => (id >= 0 && id < scored.size ? counts[id]! : 0));
}

/**
 * Where the best `window` scores are among the entries matching at least `wanted` terms (`matched[i] >= wanted`), with
 * every entry tied with the window's last score (the caller breaks ties), in input order: the k-th score from a heap of
 * the window's best, not a sort. The team archive ranks its positions with it (local search selects in place:
 * {@link bestScored}). It leaves the scores of the last {@link scorePhrases} as they are.
 * @param scores parallel to `matched`
 * @param window -1 for every entry that matches enough terms
 * @returns indexes into `scores`, ascending
 */
export function bestIndexes(scores: Float64Array, matched: Uint8Array, wanted: number, window: number): Int32Array {
  if (window === 0) return new Int32Array(0);
  const n = scores.length;
  return select(instance(), n, align8(n * 9), wanted, window, (buffer, start) => {
    new Float64Array(buffer, start, n).set(scores);
    new Uint8Array(buffer, start + n * 8, n).set(matched);
    return { scoresAt: start, matchedAt: start + n * 8 };
  }).slice();
}

/**
 * The kernel's `best` over `n` scores and phrase counts that `place` puts in the scratch space (`inputBytes` from its
 * start) or finds where they are, with its heap of the window's best scores (8 bytes a place) and its answer after
 * them.
 * @returns the answer's indexes: a view of the kernel's memory, valid until its next call
 */
function select(
  state: Kernel,
  n: number,
  inputBytes: number,
  wanted: number,
  window: number,
  place: (buffer: ArrayBuffer, start: number) => { scoresAt: number; matchedAt: number },
): Int32Array {
  let start = 0;
  const { heapBytes, bytes } = selectionLayout(Math.max(0, Math.min(window, n)), n);
  const buffer = reserveScratch(state, -1, (at) => {
    start = at;
    return at + inputBytes + bytes;
  });
  const { scoresAt, matchedAt } = place(buffer, start);
  const scratchAt = start + inputBytes;
  const outAt = scratchAt + heapBytes;
  return new Int32Array(buffer, outAt, state.exports.best(scoresAt, matchedAt, n, wanted, window, scratchAt, outAt));
}
