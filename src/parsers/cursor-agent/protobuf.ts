/**
 * The few protocol-buffer wire rules needed to read a cursor-agent root blob (docs/formats/cursor-agent.md): keys and
 * lengths are base-128 varints, a key is `field << 3 | wire type`, and only length-delimited fields (wire type 2) are
 * kept (protobuf.dev/programming-guides/encoding). No schema: the caller picks fields by number.
 */

/** One length-delimited field of a message: its number and its bytes. */
export interface BytesField {
  field: number;
  value: Uint8Array;
}

/**
 * The length-delimited fields of one message, in order; varint and fixed-width fields are stepped over.
 * @returns null when the bytes are not a well-formed message (a truncated varint or length, a group wire type)
 */
export function bytesFields(data: Uint8Array): BytesField[] | null {
  const fields: BytesField[] = [];
  let at = 0;
  const varint = (): number | null => {
    let value = 0;
    for (let shift = 0; at < data.length && shift <= 49; shift += 7) {
      const byte = data[at++] as number;
      value += (byte & 0x7f) * 2 ** shift;
      if ((byte & 0x80) === 0) return value;
    }
    return null;
  };
  while (at < data.length) {
    const key = varint();
    if (key === null) return null;
    const wireType = key % 8;
    if (wireType === 0) {
      if (varint() === null) return null;
    } else if (wireType === 1) at += 8;
    else if (wireType === 5) at += 4;
    else if (wireType === 2) {
      const length = varint();
      if (length === null || at + length > data.length) return null;
      fields.push({ field: Math.floor(key / 8), value: data.subarray(at, at + length) });
      at += length;
    } else return null;
    if (at > data.length) return null;
  }
  return fields;
}
