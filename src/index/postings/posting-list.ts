/**
 * The binary form of one posting list: the documents that hold one term, each with its column-weighted frequency and
 * its length in tokens (document-terms.ts), by ascending key (the local index: document ids, keyword-postings.ts; the
 * team archive: positions in a batch, team-archive/posting-lists.ts). Per document, in ascending key order, three
 * unsigned LEB128 varints (7 bits a byte, low bits first, the high bit set on every byte but the last; as in DWARF and
 * Protocol Buffers):
 *   the key's gap from the previous document's (the first document's: its key)
 *   its frequency, bm25's f(q, D): Σ of the column weights of the term's instances (an integer, as the weights are)
 *   its length, |D|: the document's tokens in all columns
 * A posting takes ~4 bytes (12 as three 4-byte arrays).
 */

/** One decoded posting list: parallel arrays of equal length, keys (`positions`) ascending. */
export interface PostingList {
  positions: Int32Array;
  frequencies: Float64Array;
  lengths: Int32Array;
}

/** Largest number a varint here holds: 2^31 − 1 (keys, frequencies and lengths fit a 32-bit signed integer). */
export const largestPostingNumber = 0x7fffffff;

/**
 * Write `value` (an integer in 0…2^31 − 1, unchecked) as a varint at `offset` of `bytes` (room for 5 bytes).
 * @returns the offset after it
 */
export function writeVarint(bytes: Uint8Array, offset: number, value: number): number {
  let at = offset;
  let rest = value;
  while (rest >= 0x80) {
    bytes[at++] = (rest & 0x7f) | 0x80;
    rest >>>= 7;
  }
  bytes[at++] = rest;
  return at;
}

/**
 * The varint at `offset` of `bytes`, each byte's bounds checked.
 * @returns its value and the offset after it; undefined when the bytes end inside it or it is over 31 bits
 */
export function readVarint(bytes: Uint8Array, offset: number): { value: number; next: number } | undefined {
  let value = 0;
  let at = offset;
  for (let shift = 0; shift <= 28; shift += 7) {
    if (at >= bytes.length) return undefined;
    const byte = bytes[at++]!;
    if (shift === 28 && byte > 7) return undefined;
    value |= (byte & 0x7f) << shift;
    if (byte < 0x80) return { value, next: at };
  }
  return undefined;
}

/**
 * The bytes of a posting list (the format in the file comment).
 * @param positions ascending keys; `frequencies` and `lengths` are parallel to it
 * @throws Error when a key is not above the previous one, or a number is not an integer in 0…2^31 − 1 (a bug of the
 *         caller: the column weights are integers)
 */
export function encodePostingList(
  positions: ArrayLike<number>,
  frequencies: ArrayLike<number>,
  lengths: ArrayLike<number>,
): Buffer {
  const bytes = Buffer.allocUnsafe(positions.length * 3 * 5); // 5 bytes hold a varint of 31 bits
  let offset = 0;
  const put = (value: number) => {
    if (!Number.isInteger(value) || value < 0 || value > largestPostingNumber)
      throw new Error(`a posting list holds integers in 0…${largestPostingNumber}, not ${value}`);
    offset = writeVarint(bytes, offset, value);
  };
  let previous = -1;
  for (let i = 0; i < positions.length; i++) {
    const position = positions[i]!;
    if (position <= previous) throw new Error(`posting list positions must ascend: ${position} after ${previous}`);
    put(position - Math.max(previous, 0));
    put(frequencies[i]!);
    put(lengths[i]!);
    previous = position;
  }
  return bytes.subarray(0, offset);
}

/**
 * Read a posting list's bytes.
 * @param count the documents it holds
 * @returns undefined when the bytes do not hold `count` documents (the caller names the store that is damaged)
 */
export function decodePostingList(bytes: Uint8Array, count: number): PostingList | undefined {
  const list: PostingList = {
    positions: new Int32Array(count),
    frequencies: new Float64Array(count),
    lengths: new Int32Array(count),
  };
  const { positions, frequencies, lengths } = list;
  const end = bytes.length;
  let offset = 0;
  let position = 0;
  let i = 0;
  // Three varints of at most 5 bytes a document, read inline with local variables only and bounds checked once per
  // document: 9–12 ns a posting, against 27–38 with a function per varint (2-core EPYC, a 170k-posting word).
  for (; i < count && offset + 15 <= end; i++) {
    let byte = bytes[offset++]!;
    let gap = byte & 0x7f;
    if (byte > 0x7f) {
      byte = bytes[offset++]!;
      gap |= (byte & 0x7f) << 7;
      if (byte > 0x7f) {
        byte = bytes[offset++]!;
        gap |= (byte & 0x7f) << 14;
        if (byte > 0x7f) {
          byte = bytes[offset++]!;
          gap |= (byte & 0x7f) << 21;
          if (byte > 0x7f) {
            byte = bytes[offset++]!;
            if (byte > 7) return undefined;
            gap |= byte << 28;
          }
        }
      }
    }
    byte = bytes[offset++]!;
    let frequency = byte & 0x7f;
    if (byte > 0x7f) {
      byte = bytes[offset++]!;
      frequency |= (byte & 0x7f) << 7;
      if (byte > 0x7f) {
        byte = bytes[offset++]!;
        frequency |= (byte & 0x7f) << 14;
        if (byte > 0x7f) {
          byte = bytes[offset++]!;
          frequency |= (byte & 0x7f) << 21;
          if (byte > 0x7f) {
            byte = bytes[offset++]!;
            if (byte > 7) return undefined;
            frequency |= byte << 28;
          }
        }
      }
    }
    byte = bytes[offset++]!;
    let length = byte & 0x7f;
    if (byte > 0x7f) {
      byte = bytes[offset++]!;
      length |= (byte & 0x7f) << 7;
      if (byte > 0x7f) {
        byte = bytes[offset++]!;
        length |= (byte & 0x7f) << 14;
        if (byte > 0x7f) {
          byte = bytes[offset++]!;
          length |= (byte & 0x7f) << 21;
          if (byte > 0x7f) {
            byte = bytes[offset++]!;
            if (byte > 7) return undefined;
            length |= byte << 28;
          }
        }
      }
    }
    if (i > 0 && gap === 0) return undefined;
    position += gap;
    positions[i] = position;
    frequencies[i] = frequency;
    lengths[i] = length;
  }
  return decodeTail(bytes, offset, i, position, list);
}

/** The documents of `list` from `from` on, read from `offset` with every byte's bounds checked (a list's last bytes). */
function decodeTail(
  bytes: Uint8Array,
  offset: number,
  from: number,
  start: number,
  list: PostingList,
): PostingList | undefined {
  let reading = offset;
  let position = start;
  for (let i = from; i < list.positions.length; i++) {
    const gap = readVarint(bytes, reading);
    const frequency = gap && readVarint(bytes, gap.next);
    const length = frequency && readVarint(bytes, frequency.next);
    if (!length || (i > 0 && gap!.value === 0)) return undefined;
    reading = length.next;
    position += gap!.value;
    list.positions[i] = position;
    list.frequencies[i] = frequency!.value;
    list.lengths[i] = length.value;
  }
  return reading === bytes.length ? list : undefined;
}
