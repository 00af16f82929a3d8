/// <reference lib="esnext.float16" />
/**
 * One immutable vector segment file: its byte layout, how it is written (temp name, fsync, rename) and how it
 * is memory-mapped and viewed without copying. Owns nothing about which segments form a store (vector-store.ts)
 * or how rows are scored (vector-scan.ts). Facts it relies on (runtime-notes §4, measured 2026-11): Bun.mmap of an
 * empty file fails with EINVAL, truncating a mapped file kills Bun with SIGBUS, typed-array views need
 * byteOffset % BYTES_PER_ELEMENT == 0, and a renamed-over file keeps serving old mappings their old bytes. The
 * scanned blocks (f32, i8) are mapped on their own so their arrays start at byteOffset 0, which usearch needs
 * (usearch.ts); Bun.mmap accepts an offset that is not page-aligned and returns a buffer starting exactly there
 * (checked with Bun 1.4.5, 2026-11-23).
 */
import { closeSync, fchmodSync, fsyncSync, openSync, renameSync, statSync, unlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { IndexError } from "../errors.ts";

/** Element type of the scanned block: f32 only, or a quantized block (f16 / int8) plus the f32 rows for re-scoring. */
export type ElementType = "f32" | "f16" | "i8";

/** Bytes of the fixed header; every block starts on a 64-byte boundary (cache line, any typed-array alignment). */
export const HEADER_BYTES = 64;
/** "RCLV" in ASCII, little-endian u32 at offset 0. */
export const SEGMENT_MAGIC = 0x564c4352;
/** Format version at offset 4 (u16); bump on any layout change. */
export const SEGMENT_VERSION = 1;
const ELEMENT_CODES: Record<ElementType, number> = { f32: 0, f16: 1, i8: 2 };
const FINGERPRINT_LABEL_BYTES = 32;

/**
 * Header fields (little-endian): 0 magic u32 · 4 version u16 · 6 element type u8 (0 f32, 1 f16, 2 i8) · 7 reserved ·
 * 8 dims u32 · 12 rowCount u32 · 16–31 first 16 bytes of sha256(fingerprint) · 32–63 fingerprint prefix (UTF-8,
 * zero-padded, informational only).
 */
export interface SegmentHeader {
  readonly elementType: ElementType;
  readonly dims: number;
  readonly rowCount: number;
  /** Hex of the 16-byte fingerprint hash; equality of this string is "same model". */
  readonly fingerprintHash: string;
  /** The first ≤ 32 bytes of the fingerprint text, for error messages. */
  readonly fingerprintLabel: string;
}

/** Byte offsets of each block in a segment; every offset is a multiple of 64. `scales`/`quant` are -1 when absent. */
export interface SegmentLayout {
  readonly idsOffset: number;
  readonly scalesOffset: number;
  readonly quantOffset: number;
  readonly f32Offset: number;
  readonly totalBytes: number;
}

/**
 * A mapped segment: zero-copy views over Bun.mmap's of the file. Row i is `f32.subarray(i*dims, (i+1)*dims)`.
 * `f32` and `i8` each have a mapping of their own and byteOffset 0 (when the block is not empty).
 */
export interface MappedSegment {
  readonly path: string;
  /** Sequence number from the file name; a higher number is newer. */
  readonly seq: number;
  readonly header: SegmentHeader;
  /** Document id of each row (SQLite rowid), rowCount entries. */
  readonly ids: Int32Array;
  /** L2-normalized f32 rows, rowCount × dims. */
  readonly f32: Float32Array;
  /** int8 rows (i8 segments only), rowCount × dims; row value ≈ i8 × scales[row]. */
  readonly i8: Int8Array | undefined;
  /** Per-row int8 scale (i8 segments only): max |x| / 127. */
  readonly scales: Float32Array | undefined;
  /** f16 rows (f16 segments only), rowCount × dims. */
  readonly f16: Float16Array | undefined;
}

const pad64 = (n: number): number => Math.ceil(n / 64) * 64;

/** Returns the block offsets of a segment with `rowCount` rows of `dims` elements of `elementType`. */
export function computeLayout(elementType: ElementType, dims: number, rowCount: number): SegmentLayout {
  const idsOffset = HEADER_BYTES;
  let next = pad64(idsOffset + 4 * rowCount);
  let scalesOffset = -1;
  let quantOffset = -1;
  if (elementType === "i8") {
    scalesOffset = next;
    next = pad64(next + 4 * rowCount);
  }
  if (elementType !== "f32") {
    quantOffset = next;
    next = pad64(next + (elementType === "i8" ? 1 : 2) * rowCount * dims);
  }
  return { idsOffset, scalesOffset, quantOffset, f32Offset: next, totalBytes: next + 4 * rowCount * dims };
}

/** Returns the hex of the first 16 bytes of sha256(fingerprint): the "which model wrote this" key. */
export function hashFingerprint(fingerprint: string): string {
  return new Bun.CryptoHasher("sha256").update(fingerprint).digest("hex").slice(0, 32);
}

function encodeHeader(header: SegmentHeader, fingerprint: string): Uint8Array {
  const bytes = new Uint8Array(HEADER_BYTES);
  const view = new DataView(bytes.buffer);
  view.setUint32(0, SEGMENT_MAGIC, true);
  view.setUint16(4, SEGMENT_VERSION, true);
  view.setUint8(6, ELEMENT_CODES[header.elementType]);
  view.setUint32(8, header.dims, true);
  view.setUint32(12, header.rowCount, true);
  bytes.set(Buffer.from(header.fingerprintHash, "hex"), 16);
  const label = new TextEncoder().encode(fingerprint).subarray(0, FINGERPRINT_LABEL_BYTES);
  bytes.set(label, 32);
  return bytes;
}

/**
 * Parses the 64-byte header at the start of `bytes`.
 * Throws IndexError INDEX_CORRUPT when the magic, version or element type is unknown.
 */
export function decodeHeader(bytes: Uint8Array, path: string): SegmentHeader {
  const corrupt = (why: string) =>
    new IndexError("INDEX_CORRUPT", `vector segment ${path} is unreadable: ${why}`, {
      hint: "run `recall index` to rebuild the missing vectors",
    });
  if (bytes.byteLength < HEADER_BYTES) throw corrupt(`${bytes.byteLength} bytes, shorter than the header`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
  if (view.getUint32(0, true) !== SEGMENT_MAGIC) throw corrupt("bad magic");
  const version = view.getUint16(4, true);
  if (version !== SEGMENT_VERSION) throw corrupt(`format version ${version}, expected ${SEGMENT_VERSION}`);
  const code = view.getUint8(6);
  const elementType = (Object.keys(ELEMENT_CODES) as ElementType[]).find((t) => ELEMENT_CODES[t] === code);
  if (elementType === undefined) throw corrupt(`element type code ${code}`);
  const labelBytes = bytes.subarray(32, 64);
  const end = labelBytes.indexOf(0);
  return {
    elementType,
    dims: view.getUint32(8, true),
    rowCount: view.getUint32(12, true),
    fingerprintHash: Buffer.from(bytes.subarray(16, 32)).toString("hex"),
    fingerprintLabel: new TextDecoder().decode(end < 0 ? labelBytes : labelBytes.subarray(0, end)),
  };
}

/**
 * Maps the segment at `path` (read-only use of a private mapping) and returns zero-copy views.
 * Throws IndexError INDEX_CORRUPT on a bad header or when the file size differs from the layout's totalBytes.
 */
export function mapSegment(path: string, seq: number): MappedSegment {
  const sizeBytes = statSync(path).size;
  if (sizeBytes < HEADER_BYTES)
    throw new IndexError("INDEX_CORRUPT", `vector segment ${path} is ${sizeBytes} bytes, shorter than the header`);
  const bytes = Bun.mmap(path, { shared: false });
  const header = decodeHeader(bytes, path);
  const { elementType, dims, rowCount } = header;
  const layout = computeLayout(elementType, dims, rowCount);
  if (layout.totalBytes !== bytes.byteLength) {
    throw new IndexError(
      "INDEX_CORRUPT",
      `vector segment ${path} is ${bytes.byteLength} bytes, its header says ${layout.totalBytes}`,
    );
  }
  const buf = bytes.buffer;
  const base = bytes.byteOffset;
  const n = rowCount * dims;
  return {
    path,
    seq,
    header,
    ids: new Int32Array(buf, base + layout.idsOffset, rowCount),
    f32: asF32(mapBlock(path, layout.f32Offset, 4 * n)),
    i8: elementType === "i8" ? asI8(mapBlock(path, layout.quantOffset, n)) : undefined,
    scales: elementType === "i8" ? new Float32Array(buf, base + layout.scalesOffset, rowCount) : undefined,
    f16: elementType === "f16" ? new Float16Array(buf, base + layout.quantOffset, n) : undefined,
  };
}

const asF32 = (b: Uint8Array<ArrayBuffer>) => new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
const asI8 = (b: Uint8Array<ArrayBuffer>) => new Int8Array(b.buffer, b.byteOffset, b.byteLength);

/**
 * Returns bytes [offset, offset + sizeBytes) of the file at `path` as a mapping of their own (byteOffset 0 with
 * Bun 1.4.5), or an empty array for an empty block (Bun.mmap of 0 bytes fails with EINVAL). Were Bun ever to return
 * a non-zero byteOffset, reads stay right and vector-scan.ts only skips the batch kernel for this block.
 * Throws IndexError INDEX_CORRUPT when the file is shorter than that (it changed since its header was read).
 */
function mapBlock(path: string, offset: number, sizeBytes: number): Uint8Array<ArrayBuffer> {
  if (sizeBytes === 0) return new Uint8Array(0);
  const block = Bun.mmap(path, { shared: false, offset, size: sizeBytes });
  if (block.byteLength !== sizeBytes)
    throw new IndexError("INDEX_CORRUPT", `vector segment ${path} changed while it was being mapped`);
  return block;
}

/** What to write: `rowCount` rows, `getRow(i)` returning an L2-normalized row of `dims` floats (not retained). */
export interface SegmentSource {
  readonly elementType: ElementType;
  readonly dims: number;
  readonly fingerprint: string;
  readonly ids: Int32Array;
  readonly getRow: (row: number) => Float32Array;
}

/** Quantizes a normalized row to int8 into `out`; returns the scale (max |x| / 127; 1 for an all-zero row). */
export function quantizeRowI8(row: Float32Array, out: Int8Array): number {
  let maxAbs = 0;
  for (let j = 0; j < row.length; j++) maxAbs = Math.max(maxAbs, Math.abs(row[j]!));
  const scale = maxAbs > 0 ? maxAbs / 127 : 1;
  for (let j = 0; j < row.length; j++) out[j] = Math.round(row[j]! / scale);
  return scale;
}

const CHUNK_ROWS = 1024;

/** Writes one block of rowCount rows at the fd's current position, CHUNK_ROWS rows per write call. */
function writeRowBlock(fd: number, src: SegmentSource, kind: ElementType): void {
  const { dims, ids } = src;
  for (let start = 0; start < ids.length; start += CHUNK_ROWS) {
    const end = Math.min(ids.length, start + CHUNK_ROWS);
    const chunk =
      kind === "f32"
        ? new Float32Array((end - start) * dims)
        : kind === "f16"
          ? new Float16Array((end - start) * dims)
          : new Int8Array((end - start) * dims);
    for (let i = start; i < end; i++) {
      const row = src.getRow(i);
      if (kind === "i8") quantizeRowI8(row, (chunk as Int8Array).subarray((i - start) * dims, (i - start + 1) * dims));
      else chunk.set(row, (i - start) * dims);
    }
    writeAll(fd, new Uint8Array(chunk.buffer));
  }
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let done = 0;
  while (done < bytes.byteLength) done += writeSync(fd, bytes, done, bytes.byteLength - done);
}

function writePadding(fd: number, fromOffset: number, toOffset: number): void {
  if (toOffset > fromOffset) writeAll(fd, new Uint8Array(toOffset - fromOffset));
}

/**
 * Writes `src` as a complete segment to `dir/tempName`, fsyncs it, renames it to `dir/finalName`, and fsyncs the
 * directory; so a crash leaves either no `finalName` or a complete one (a stray temp file at worst). The file is
 * created 0600 whatever the umask. Returns the bytes written. Throws node:fs errors (ENOSPC, EACCES…) after removing the temp file.
 */
export function writeSegmentFile(dir: string, tempName: string, finalName: string, src: SegmentSource): number {
  const { elementType, dims, ids } = src;
  const rowCount = ids.length;
  const layout = computeLayout(elementType, dims, rowCount);
  const header: SegmentHeader = {
    elementType,
    dims,
    rowCount,
    fingerprintHash: hashFingerprint(src.fingerprint),
    fingerprintLabel: "",
  };
  const tempPath = join(dir, tempName);
  const fd = openSync(tempPath, "wx", 0o600);
  try {
    fchmodSync(fd, 0o600); // 0600 whatever the umask (issue 9: segments were 0644, 0666 under umask 000)
    writeAll(fd, encodeHeader(header, src.fingerprint));
    writeAll(fd, new Uint8Array(ids.buffer, ids.byteOffset, ids.byteLength));
    let offset = layout.idsOffset + ids.byteLength;
    if (elementType === "i8") {
      writePadding(fd, offset, layout.scalesOffset);
      const scales = new Float32Array(rowCount);
      const scratch = new Int8Array(dims);
      for (let i = 0; i < rowCount; i++) scales[i] = quantizeRowI8(src.getRow(i), scratch);
      writeAll(fd, new Uint8Array(scales.buffer));
      offset = layout.scalesOffset + scales.byteLength;
    }
    if (elementType !== "f32") {
      writePadding(fd, offset, layout.quantOffset);
      writeRowBlock(fd, src, elementType);
      offset = layout.quantOffset + rowCount * dims * (elementType === "i8" ? 1 : 2);
    }
    writePadding(fd, offset, layout.f32Offset);
    writeRowBlock(fd, src, "f32");
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    unlinkSync(tempPath);
    throw error;
  }
  closeSync(fd);
  renameSync(tempPath, join(dir, finalName));
  fsyncDirectory(dir);
  return layout.totalBytes;
}

/** fsyncs a directory so a rename in it survives power loss (Linux; a no-op where directories cannot be opened). */
export function fsyncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // Some platforms/filesystems refuse fsync on a directory; the rename itself is still atomic.
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
