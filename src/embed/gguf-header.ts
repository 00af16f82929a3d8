/**
 * A small GGUF (v2/v3) metadata reader: reads the key/value header of a `.gguf` file without touching
 * tensor data, so `recall model list` can show dims and pooling of a 600 MB model in milliseconds.
 * Format: github.com/ggml-org/ggml docs/gguf.md (magic "GGUF", u32 version, u64 tensor count, u64 kv count,
 * then typed key/value pairs, all little-endian). Loading weights is node-llama-cpp's job, not this file's.
 */
import { closeSync, openSync, readSync } from "node:fs";
import { EmbedError } from "../errors.ts";

/** GGUF value type ids (gguf.md "gguf_metadata_value_type"). */
export const GgufValueType = {
  UINT8: 0,
  INT8: 1,
  UINT16: 2,
  INT16: 3,
  UINT32: 4,
  INT32: 5,
  FLOAT32: 6,
  BOOL: 7,
  STRING: 8,
  ARRAY: 9,
  UINT64: 10,
  INT64: 11,
  FLOAT64: 12,
} as const;

/** One metadata value: numbers (u64/i64 become `number`; exact up to 2^53), strings, booleans or arrays. */
export type GgufValue = number | bigint | string | boolean | GgufValue[];

/** The parsed header: version, tensor count and metadata keys in file order. */
export interface GgufHeader {
  version: number;
  tensorCount: number;
  metadata: Map<string, GgufValue>;
}

const chunkBytes = 1 << 16;

/** Buffered sequential reader over a file descriptor (reads 64 KiB at a time). */
class FileCursor {
  private buffer = Buffer.alloc(0);
  private bufferStart = 0;
  position = 0;
  constructor(
    private readonly fd: number,
    private readonly path: string,
  ) {}

  private ensure(lengthBytes: number): Buffer {
    const offset = this.position - this.bufferStart;
    if (offset + lengthBytes <= this.buffer.length) return this.buffer;
    const size = Math.max(chunkBytes, lengthBytes);
    const next = Buffer.alloc(size);
    const read = readSync(this.fd, next, 0, size, this.position);
    if (read < lengthBytes) throw new EmbedError("MODEL_MISSING", `truncated gguf file: ${this.path}`);
    this.buffer = next.subarray(0, read);
    this.bufferStart = this.position;
    return this.buffer;
  }

  private take(lengthBytes: number): number {
    this.ensure(lengthBytes);
    const at = this.position - this.bufferStart;
    this.position += lengthBytes;
    return at;
  }

  u8(): number {
    const at = this.take(1);
    return this.buffer.readUInt8(at);
  }
  i8(): number {
    const at = this.take(1);
    return this.buffer.readInt8(at);
  }
  u16(): number {
    const at = this.take(2);
    return this.buffer.readUInt16LE(at);
  }
  i16(): number {
    const at = this.take(2);
    return this.buffer.readInt16LE(at);
  }
  u32(): number {
    const at = this.take(4);
    return this.buffer.readUInt32LE(at);
  }
  i32(): number {
    const at = this.take(4);
    return this.buffer.readInt32LE(at);
  }
  f32(): number {
    const at = this.take(4);
    return this.buffer.readFloatLE(at);
  }
  f64(): number {
    const at = this.take(8);
    return this.buffer.readDoubleLE(at);
  }
  u64(): number {
    const at = this.take(8);
    return Number(this.buffer.readBigUInt64LE(at));
  }
  i64(): number {
    const at = this.take(8);
    return Number(this.buffer.readBigInt64LE(at));
  }
  string(): string {
    const lengthBytes = this.u64();
    if (lengthBytes > 1 << 30) throw new EmbedError("MODEL_MISSING", `corrupt gguf string length in ${this.path}`);
    const at = this.take(lengthBytes);
    return this.buffer.toString("utf8", at, at + lengthBytes);
  }
}

function readValue(cursor: FileCursor, type: number, path: string): GgufValue {
  switch (type) {
    case GgufValueType.UINT8:
      return cursor.u8();
    case GgufValueType.INT8:
      return cursor.i8();
    case GgufValueType.UINT16:
      return cursor.u16();
    case GgufValueType.INT16:
      return cursor.i16();
    case GgufValueType.UINT32:
      return cursor.u32();
    case GgufValueType.INT32:
      return cursor.i32();
    case GgufValueType.FLOAT32:
      return cursor.f32();
    case GgufValueType.BOOL:
      return cursor.u8() !== 0;
    case GgufValueType.STRING:
      return cursor.string();
    case GgufValueType.UINT64:
      return cursor.u64();
    case GgufValueType.INT64:
      return cursor.i64();
    case GgufValueType.FLOAT64:
      return cursor.f64();
    case GgufValueType.ARRAY: {
      const itemType = cursor.u32();
      const count = cursor.u64();
      const items: GgufValue[] = new Array(count);
      for (let i = 0; i < count; i++) items[i] = readValue(cursor, itemType, path);
      return items;
    }
    default:
      throw new EmbedError("MODEL_MISSING", `unknown gguf value type ${type} in ${path}`);
  }
}

/**
 * Reads the metadata header of a GGUF file.
 * @param path path to a `.gguf` file
 * @param options.skipArrays when true (default), array values (token lists: ~150k strings for Qwen3) are
 *   walked but stored as `[]` to keep memory and time small; pass false to get them (vocab extraction)
 * @returns version, tensor count, metadata in file order
 * @throws EmbedError(MODEL_MISSING) when the file is missing, not GGUF, truncated or corrupt
 */
export function readGgufHeader(path: string, options: { skipArrays?: boolean } = {}): GgufHeader {
  const skipArrays = options.skipArrays ?? true;
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (cause) {
    throw new EmbedError("MODEL_MISSING", `cannot open model file: ${path}`, { cause });
  }
  try {
    const cursor = new FileCursor(fd, path);
    if (cursor.u32() !== 0x46554747) throw new EmbedError("MODEL_MISSING", `not a gguf file: ${path}`);
    const version = cursor.u32();
    const tensorCount = cursor.u64();
    const kvCount = cursor.u64();
    const metadata = new Map<string, GgufValue>();
    for (let i = 0; i < kvCount; i++) {
      const key = cursor.string();
      const type = cursor.u32();
      const value = readValue(cursor, type, path);
      metadata.set(key, skipArrays && Array.isArray(value) ? [] : value);
    }
    return { version, tensorCount, metadata };
  } finally {
    closeSync(fd);
  }
}

/** What recall needs to know about an embedding model file, read from its GGUF header. */
export interface GgufModelInfo {
  /** `general.architecture`, e.g. "bert", "qwen3", "nomic-bert", "gemma-embedding" */
  architecture: string;
  /** `general.name` when present */
  name: string | undefined;
  /** `<arch>.embedding_length`: the vector size in dims */
  dims: number;
  /** `<arch>.context_length`: training context in tokens */
  contextTokens: number;
  /** `<arch>.pooling_type` mapped to a name (llama.cpp enum: 0 none, 1 mean, 2 cls, 3 last, 4 rank) */
  pooling: "none" | "mean" | "cls" | "last" | "rank" | "unknown";
}

const poolingNames = ["none", "mean", "cls", "last", "rank"] as const;

/**
 * Reads architecture, dims, context and pooling from a GGUF header (arrays skipped: ~10 ms even for large vocabs).
 * @throws EmbedError(MODEL_MISSING) when unreadable or when `embedding_length` is absent
 */
export function readGgufModelInfo(path: string): GgufModelInfo {
  const { metadata } = readGgufHeader(path);
  const architecture = String(metadata.get("general.architecture") ?? "unknown");
  const dims = metadata.get(`${architecture}.embedding_length`);
  if (typeof dims !== "number")
    throw new EmbedError("MODEL_MISSING", `gguf file has no ${architecture}.embedding_length: ${path}`);
  const contextTokens = metadata.get(`${architecture}.context_length`);
  const poolingId = metadata.get(`${architecture}.pooling_type`);
  const name = metadata.get("general.name");
  return {
    architecture,
    name: typeof name === "string" ? name : undefined,
    dims,
    contextTokens: typeof contextTokens === "number" ? contextTokens : 512,
    pooling: typeof poolingId === "number" ? (poolingNames[poolingId] ?? "unknown") : "unknown",
  };
}
