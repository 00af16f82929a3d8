/**
 * A dependency-free GGUF v3 writer: typed metadata plus tensors in F32, F16 or Q8_0, streamed to disk
 * tensor by tensor so a 300 MB benchmark model never sits in memory. Layout per ggml docs/gguf.md:
 * header, key/values, tensor infos (name, dims innermost-first, ggml type, offset), padding to
 * `general.alignment` (32), tensor data each aligned to 32. Used only by the test-model generator.
 */
import { closeSync, openSync, renameSync, writeSync } from "node:fs";
import { GgufValueType } from "../../src/embed/gguf-header.ts";

/** ggml tensor type ids (ggml.h `enum ggml_type`). */
export const GgmlType = { F32: 0, F16: 1, Q8_0: 8 } as const;
export type TensorType = "f32" | "f16" | "q8_0";

/** A metadata value with its explicit GGUF type (numbers are ambiguous otherwise). */
export type MetaValue =
  | { type: "u32" | "i32" | "f32" | "u64"; value: number }
  | { type: "bool"; value: boolean }
  | { type: "string"; value: string }
  | { type: "string[]"; value: string[] }
  | { type: "i32[]" | "f32[]"; value: number[] };

/** One tensor: `dims` innermost first (ggml `ne`), and a filler that writes `count` values into `out`. */
export interface TensorSpec {
  name: string;
  dims: number[];
  type: TensorType;
  /** Fills `out` with the next `out.length` float values of the tensor (row-major, innermost first). */
  fill: (out: Float32Array) => void;
}

const alignmentBytes = 32;
const q8BlockValues = 32;
const q8BlockBytes = 34;

/** Bytes a tensor of `count` values takes in `type` (Q8_0: 34 bytes per 32 values). */
export function tensorSizeBytes(type: TensorType, count: number): number {
  if (type === "f32") return count * 4;
  if (type === "f16") return count * 2;
  return (count / q8BlockValues) * q8BlockBytes;
}

class ByteSink {
  private parts: Buffer[] = [];
  length = 0;
  push(buffer: Buffer): void {
    this.parts.push(buffer);
    this.length += buffer.length;
  }
  u32(value: number): void {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(value);
    this.push(b);
  }
  i32(value: number): void {
    const b = Buffer.alloc(4);
    b.writeInt32LE(value);
    this.push(b);
  }
  f32(value: number): void {
    const b = Buffer.alloc(4);
    b.writeFloatLE(value);
    this.push(b);
  }
  u64(value: number): void {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(value));
    this.push(b);
  }
  string(value: string): void {
    const bytes = Buffer.from(value, "utf8");
    this.u64(bytes.length);
    this.push(bytes);
  }
  concat(): Buffer {
    return Buffer.concat(this.parts);
  }
}

function writeMeta(sink: ByteSink, key: string, meta: MetaValue): void {
  sink.string(key);
  switch (meta.type) {
    case "u32":
      sink.u32(GgufValueType.UINT32);
      sink.u32(meta.value);
      break;
    case "i32":
      sink.u32(GgufValueType.INT32);
      sink.i32(meta.value);
      break;
    case "f32":
      sink.u32(GgufValueType.FLOAT32);
      sink.f32(meta.value);
      break;
    case "u64":
      sink.u32(GgufValueType.UINT64);
      sink.u64(meta.value);
      break;
    case "bool":
      sink.u32(GgufValueType.BOOL);
      sink.push(Buffer.from([meta.value ? 1 : 0]));
      break;
    case "string":
      sink.u32(GgufValueType.STRING);
      sink.string(meta.value);
      break;
    case "string[]":
      sink.u32(GgufValueType.ARRAY);
      sink.u32(GgufValueType.STRING);
      sink.u64(meta.value.length);
      for (const item of meta.value) sink.string(item);
      break;
    case "i32[]":
      sink.u32(GgufValueType.ARRAY);
      sink.u32(GgufValueType.INT32);
      sink.u64(meta.value.length);
      for (const item of meta.value) sink.i32(item);
      break;
    case "f32[]":
      sink.u32(GgufValueType.ARRAY);
      sink.u32(GgufValueType.FLOAT32);
      sink.u64(meta.value.length);
      for (const item of meta.value) sink.f32(item);
      break;
  }
}

/** Encodes float values as the given type; Q8_0 = per 32 values an f16 scale (max|x|/127) and 32 int8. */
export function encodeValues(type: TensorType, values: Float32Array): Buffer {
  if (type === "f32") return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  if (type === "f16") {
    const out = Buffer.alloc(values.length * 2);
    const halves = new Float16Array(values);
    Buffer.from(halves.buffer).copy(out);
    return out;
  }
  const blocks = values.length / q8BlockValues;
  const out = Buffer.alloc(blocks * q8BlockBytes);
  const quants = new Int8Array(out.buffer, out.byteOffset, out.length);
  const scale = new Float16Array(1);
  const scaleBits = new Uint16Array(scale.buffer);
  for (let b = 0; b < blocks; b++) {
    const first = b * q8BlockValues;
    let maxAbs = 0;
    for (let i = 0; i < q8BlockValues; i++) maxAbs = Math.max(maxAbs, Math.abs(values[first + i]!));
    scale[0] = maxAbs / 127;
    const inverse = scale[0]! === 0 ? 0 : 1 / scale[0]!;
    const at = b * q8BlockBytes;
    out.writeUInt16LE(scaleBits[0]!, at);
    for (let i = 0; i < q8BlockValues; i++) {
      const q = Math.round(values[first + i]! * inverse);
      quants[at + 2 + i] = q > 127 ? 127 : Math.max(q, -127);
    }
  }
  return out;
}

const typeIds: Record<TensorType, number> = { f32: GgmlType.F32, f16: GgmlType.F16, q8_0: GgmlType.Q8_0 };

function padTo(length: number): number {
  return Math.ceil(length / alignmentBytes) * alignmentBytes;
}

/**
 * Writes a GGUF v3 file (to `<path>.tmp`, then renamed, so a crash never leaves a half model).
 * @param metadata keys in write order; `general.alignment` is implied (32)
 * @param tensors Q8_0 tensors need dims[0] % 32 == 0
 * @returns the file size in bytes
 * @throws Error when a Q8_0 tensor's row length is not a multiple of 32
 */
export function writeGguf(path: string, metadata: [string, MetaValue][], tensors: TensorSpec[]): number {
  const header = new ByteSink();
  header.u32(0x46554747);
  header.u32(3);
  header.u64(tensors.length);
  header.u64(metadata.length);
  for (const [key, meta] of metadata) writeMeta(header, key, meta);
  let offsetBytes = 0;
  for (const tensor of tensors) {
    if (tensor.type === "q8_0" && tensor.dims[0]! % q8BlockValues !== 0) {
      throw new Error(`tensor ${tensor.name}: q8_0 needs rows of a multiple of 32 values, got ${tensor.dims[0]}`);
    }
    header.string(tensor.name);
    header.u32(tensor.dims.length);
    for (const dim of tensor.dims) header.u64(dim);
    header.u32(typeIds[tensor.type]);
    header.u64(offsetBytes);
    offsetBytes = padTo(offsetBytes + tensorSizeBytes(tensor.type, countValues(tensor)));
  }
  const tmpPath = `${path}.tmp-${process.pid}`;
  const fd = openSync(tmpPath, "w");
  try {
    const head = header.concat();
    let written = writeSync(fd, head);
    written += writeSync(fd, Buffer.alloc(padTo(head.length) - head.length));
    for (const tensor of tensors) written += writeTensor(fd, tensor, written);
    closeSync(fd);
    renameSync(tmpPath, path);
    return written;
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}

function countValues(tensor: TensorSpec): number {
  return tensor.dims.reduce((a, b) => a * b, 1);
}

/** Streams one tensor in row-aligned pieces of at most ~1M values; returns bytes written incl. padding. */
function writeTensor(fd: number, tensor: TensorSpec, positionBytes: number): number {
  const total = countValues(tensor);
  const row = tensor.dims[0]!;
  const piece = Math.max(row, Math.floor((1 << 20) / row) * row);
  let written = 0;
  const scratch = new Float32Array(Math.min(piece, total));
  for (let done = 0; done < total; done += piece) {
    const values = scratch.subarray(0, Math.min(piece, total - done));
    tensor.fill(values);
    written += writeSync(fd, encodeValues(tensor.type, values));
  }
  const padding = padTo(positionBytes + written) - (positionBytes + written);
  if (padding > 0) written += writeSync(fd, Buffer.alloc(padding));
  return written;
}
