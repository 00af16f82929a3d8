/**
 * Reads and checks the ad-hoc code signature of a thin 64-bit Mach-O executable (what `bun build --compile`
 * writes for darwin-arm64 and darwin-x64), and signs it ad hoc afresh when the signature does not match the file.
 *
 * Format (Apple's xnu `osfmk/kern/cs_blobs.h` and `EXTERNAL_HEADERS/mach-o/loader.h`):
 * - header `mach_header_64` (little-endian): magic 0xfeedfacf, cputype, cpusubtype, filetype, ncmds @16,
 *   sizeofcmds @20, flags @24, reserved; load commands from byte 32, each `{cmd, cmdsize}`.
 * - `LC_CODE_SIGNATURE` (0x1d) is a `linkedit_data_command {cmd, cmdsize, dataoff, datasize}`: the signature's
 *   offset and size in the file; it sits at the end of `__LINKEDIT`.
 * - the signature is a SuperBlob (big-endian, magic 0xfade0cc0, length, count, then count × {type, offset});
 *   slot 0 is the CodeDirectory (magic 0xfade0c02): version @8, flags @12, hashOffset @16, identOffset @20,
 *   nSpecialSlots @24, nCodeSlots @28, codeLimit @32, hashSize u8 @36, hashType u8 @37, platform u8 @38,
 *   pageSize u8 @39 (log2), and from version 0x20400 execSegBase/Limit/Flags @64/@72/@80.
 * - code slot i holds hash(file[i·pageSize, min((i+1)·pageSize, codeLimit))); special slot −n (stored before
 *   hashOffset) holds the hash of the blob of type n (2 requirements, 5 entitlements, 7 DER entitlements).
 * - flags: 0x2 adhoc, 0x10000 runtime (hardened runtime), 0x20000 linker-signed.
 * An ad-hoc signature has no CMS blob: the kernel checks each page against its code slot and the special slots
 * against their blobs, so a CodeDirectory with correct hashes is a complete signature.
 */
import { readFileSync, writeFileSync } from "node:fs";

const LC_CODE_SIGNATURE = 0x1d;
const LC_SEGMENT_64 = 0x19;
const MH_MAGIC_64 = 0xfeedfacf;
const CSMAGIC_EMBEDDED_SIGNATURE = 0xfade0cc0;
const CSMAGIC_CODEDIRECTORY = 0xfade0c02;
const CSSLOT_CODEDIRECTORY = 0;
/** hashType → hash algorithm (cs_blobs.h CS_HASHTYPE_*): 1 SHA-1, 2 SHA-256. */
const hashAlgorithms: Record<number, "sha1" | "sha256"> = { 1: "sha1", 2: "sha256" };

/** What a signature check found. */
export interface SignatureReport {
  /** file offset and size of the signature (LC_CODE_SIGNATURE dataoff, datasize) */
  signatureOffset: number;
  signatureSize: number;
  /** CodeDirectory fields */
  codeLimit: number;
  pageSize: number;
  hashType: number;
  flags: number;
  /** flags decoded */
  adhoc: boolean;
  hardenedRuntime: boolean;
  /** number of code slots, and the indexes of those whose hash does not match the page */
  codeSlots: number;
  mismatchedPages: number[];
  /** special slots (by number) whose hash does not match their blob */
  mismatchedSpecialSlots: number[];
  /** true when codeLimit equals the signature offset (the signature covers everything before it) */
  coversFile: boolean;
  /** true when every page and special slot matches and the signature covers the file */
  valid: boolean;
}

/** Location of the CodeDirectory and its fields inside `file`. */
interface CodeDirectory {
  start: number;
  hashOffset: number;
  nSpecialSlots: number;
  nCodeSlots: number;
  codeLimit: number;
  hashSize: number;
  hashType: number;
  pageSize: number;
  flags: number;
}

/** The file offset of the first load command for which `matches(offset)` holds, or undefined. */
function findLoadCommand(file: Buffer, matches: (at: number) => boolean): number | undefined {
  if (file.length < 32 || file.readUInt32LE(0) !== MH_MAGIC_64)
    throw new Error("not a thin 64-bit Mach-O file (magic 0xfeedfacf)");
  let at = 32;
  for (let i = 0; i < file.readUInt32LE(16); i++, at += file.readUInt32LE(at + 4)) if (matches(at)) return at;
  return undefined;
}

/** The LC_CODE_SIGNATURE command: its offset in the header, and the signature's offset and size in the file. */
function findSignature(file: Buffer): { command: number; dataoff: number; datasize: number } {
  const command = findLoadCommand(file, (at) => file.readUInt32LE(at) === LC_CODE_SIGNATURE);
  if (command === undefined) throw new Error("the Mach-O file has no LC_CODE_SIGNATURE (it is not signed)");
  return { command, dataoff: file.readUInt32LE(command + 8), datasize: file.readUInt32LE(command + 12) };
}

/** The blobs of the SuperBlob at `dataoff`, by slot type → absolute file offset. */
function readSuperBlob(file: Buffer, dataoff: number): Map<number, number> {
  if (file.readUInt32BE(dataoff) !== CSMAGIC_EMBEDDED_SIGNATURE)
    throw new Error("the code signature is not an embedded-signature SuperBlob (magic 0xfade0cc0)");
  const count = file.readUInt32BE(dataoff + 8);
  const blobs = new Map<number, number>();
  for (let i = 0; i < count; i++)
    blobs.set(file.readUInt32BE(dataoff + 12 + i * 8), dataoff + file.readUInt32BE(dataoff + 16 + i * 8));
  return blobs;
}

function readCodeDirectory(file: Buffer, start: number): CodeDirectory {
  if (file.readUInt32BE(start) !== CSMAGIC_CODEDIRECTORY)
    throw new Error("slot 0 of the signature is not a CodeDirectory (magic 0xfade0c02)");
  return {
    start,
    flags: file.readUInt32BE(start + 12),
    hashOffset: file.readUInt32BE(start + 16),
    nSpecialSlots: file.readUInt32BE(start + 24),
    nCodeSlots: file.readUInt32BE(start + 28),
    codeLimit: file.readUInt32BE(start + 32),
    hashSize: file.readUInt8(start + 36),
    hashType: file.readUInt8(start + 37),
    pageSize: 2 ** file.readUInt8(start + 39),
  };
}

function hashOf(algorithm: "sha1" | "sha256", bytes: Uint8Array): Buffer {
  return Buffer.from(new Bun.CryptoHasher(algorithm).update(bytes).digest());
}

/** The hash of code page `index` as the CodeDirectory defines it. */
function pageHash(file: Buffer, directory: CodeDirectory, index: number): Buffer {
  const from = index * directory.pageSize;
  return hashOf(
    hashAlgorithms[directory.hashType]!,
    file.subarray(from, Math.min(from + directory.pageSize, directory.codeLimit)),
  );
}

/** The hash of blob `slot` (its whole length field's worth of bytes), or undefined when the signature has none. */
function blobHash(
  file: Buffer,
  blobs: Map<number, number>,
  slot: number,
  directory: CodeDirectory,
): Buffer | undefined {
  const at = blobs.get(slot);
  if (at === undefined) return undefined;
  return hashOf(hashAlgorithms[directory.hashType]!, file.subarray(at, at + file.readUInt32BE(at + 4)));
}

/** Where special slot `n`'s hash is stored. */
const specialSlotOffset = (directory: CodeDirectory, n: number) =>
  directory.start + directory.hashOffset - n * directory.hashSize;

/**
 * Checks the code signature of the Mach-O file in `bytes`.
 * @throws Error when the file is not a thin 64-bit Mach-O, is unsigned, or its CodeDirectory uses an unknown hash type
 */
export function checkSignature(bytes: Uint8Array): SignatureReport {
  const file = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { dataoff, datasize } = findSignature(file);
  const blobs = readSuperBlob(file, dataoff);
  const directory = readCodeDirectory(file, blobs.get(CSSLOT_CODEDIRECTORY) ?? -1);
  if (!hashAlgorithms[directory.hashType]) throw new Error(`unknown CodeDirectory hash type ${directory.hashType}`);
  const mismatchedPages: number[] = [];
  for (let i = 0; i < directory.nCodeSlots; i++) {
    const stored = file.subarray(
      directory.start + directory.hashOffset + i * directory.hashSize,
      directory.start + directory.hashOffset + (i + 1) * directory.hashSize,
    );
    if (!stored.equals(pageHash(file, directory, i))) mismatchedPages.push(i);
  }
  const mismatchedSpecialSlots: number[] = [];
  for (let n = 1; n <= directory.nSpecialSlots; n++) {
    const stored = file.subarray(specialSlotOffset(directory, n), specialSlotOffset(directory, n) + directory.hashSize);
    const actual = blobHash(file, blobs, n, directory);
    const empty = stored.every((byte) => byte === 0);
    if (actual ? !stored.equals(actual) : !empty) mismatchedSpecialSlots.push(n);
  }
  const coversFile =
    directory.codeLimit === dataoff && directory.nCodeSlots === Math.ceil(dataoff / directory.pageSize);
  return {
    signatureOffset: dataoff,
    signatureSize: datasize,
    codeLimit: directory.codeLimit,
    pageSize: directory.pageSize,
    hashType: directory.hashType,
    flags: directory.flags,
    adhoc: (directory.flags & 0x2) !== 0,
    hardenedRuntime: (directory.flags & 0x10000) !== 0,
    codeSlots: directory.nCodeSlots,
    mismatchedPages,
    mismatchedSpecialSlots,
    coversFile,
    valid: coversFile && mismatchedPages.length === 0 && mismatchedSpecialSlots.length === 0,
  };
}

/** The offset in the file of the LC_SEGMENT_64 command of segment `name` (e.g. "__TEXT"). */
function findSegment(file: Buffer, name: string): number {
  const command = findLoadCommand(
    file,
    (at) =>
      file.readUInt32LE(at) === LC_SEGMENT_64 &&
      file
        .subarray(at + 8, at + 24)
        .toString("latin1")
        .replace(/\0+$/, "") === name,
  );
  if (command === undefined) throw new Error(`the Mach-O file has no ${name} segment`);
  return command;
}

/** CodeDirectory flags of the signature written here: CS_ADHOC | CS_LINKER_SIGNED, as Bun's darwin-arm64 output has. */
const adhocFlags = 0x2 | 0x20000;
/** CS_EXECSEG_MAIN_BINARY: the executable segment belongs to a main executable. */
const execSegMainBinary = 1n;

/**
 * Replaces the code signature of a Mach-O executable with a fresh ad-hoc one covering the whole file up to it, in
 * the form Bun's own darwin-arm64 output has (a SuperBlob holding one CodeDirectory, version 0x20400, flags adhoc +
 * linker-signed, SHA-256 pages of 4096 bytes, no special slots, exec segment = __TEXT), so no hardened runtime is
 * asked for. The signature stays last in the file; LC_CODE_SIGNATURE's datasize and __LINKEDIT's filesize and
 * vmsize (rounded up to 4 KiB, as Bun's signer does) follow its size, and the header page is hashed after those
 * edits. Checked against Bun's signer: re-signing Bun's darwin-arm64 output with identifier "a.out" gives the
 * same bytes (test/build/macho-signature.test.ts).
 * Why: `bun build --compile --target=bun-darwin-x64` inserts its __BUN segment into Oven's signed runtime without
 * re-signing it; the old Developer ID signature then covers 97 of 138 MB and 75 of its page hashes mismatch, and
 * macOS kills the process at launch (Bun re-signs ad hoc only for arm64).
 * @param identifier the CodeDirectory identifier (what `codesign -d` shows)
 * @returns the report of the new signature (valid)
 * @throws Error when the file is not a signed thin 64-bit Mach-O, or the signature is not its last bytes
 */
export function signAdhoc(path: string, identifier = "recall"): SignatureReport {
  const original = readFileSync(path);
  const { command: signatureCommand, dataoff, datasize } = findSignature(original);
  if (dataoff + datasize !== original.length)
    throw new Error(`${path}: the code signature is not at the end of the file`);
  const text = findSegment(original, "__TEXT");
  const linkedit = findSegment(original, "__LINKEDIT");
  const pageSize = 4096;
  const slots = Math.ceil(dataoff / pageSize);
  const ident = Buffer.from(`${identifier}\0`, "utf8");
  const headerSize = 88; // CodeDirectory through execSegFlags (version 0x20400)
  const hashOffset = headerSize + ident.length;
  const directoryLength = hashOffset + slots * 32;
  const signatureLength = 12 + 8 + directoryLength;

  const file = Buffer.alloc(dataoff + signatureLength);
  original.copy(file, 0, 0, dataoff);
  // Header edits first: page 0 is hashed with them.
  file.writeUInt32LE(signatureLength, signatureCommand + 12);
  const linkeditFileoff = Number(file.readBigUInt64LE(linkedit + 40));
  const linkeditFilesize = dataoff + signatureLength - linkeditFileoff;
  file.writeBigUInt64LE(BigInt(linkeditFilesize), linkedit + 48);
  file.writeBigUInt64LE(BigInt(Math.ceil(linkeditFilesize / 4096) * 4096), linkedit + 32);

  const blob = dataoff;
  file.writeUInt32BE(CSMAGIC_EMBEDDED_SIGNATURE, blob);
  file.writeUInt32BE(signatureLength, blob + 4);
  file.writeUInt32BE(1, blob + 8);
  file.writeUInt32BE(CSSLOT_CODEDIRECTORY, blob + 12);
  file.writeUInt32BE(20, blob + 16);
  const cd = blob + 20;
  file.writeUInt32BE(CSMAGIC_CODEDIRECTORY, cd);
  file.writeUInt32BE(directoryLength, cd + 4);
  file.writeUInt32BE(0x20400, cd + 8);
  file.writeUInt32BE(adhocFlags, cd + 12);
  file.writeUInt32BE(hashOffset, cd + 16);
  file.writeUInt32BE(headerSize, cd + 20); // identOffset
  file.writeUInt32BE(0, cd + 24); // nSpecialSlots
  file.writeUInt32BE(slots, cd + 28);
  file.writeUInt32BE(dataoff, cd + 32); // codeLimit
  file.writeUInt8(32, cd + 36); // hashSize
  file.writeUInt8(2, cd + 37); // hashType: SHA-256
  file.writeUInt8(0, cd + 38); // platform
  file.writeUInt8(12, cd + 39); // log2(pageSize)
  // spare2, scatterOffset, teamOffset, spare3, codeLimit64, execSegBase stay 0
  file.writeBigUInt64BE(file.readBigUInt64LE(text + 48), cd + 72); // execSegLimit: __TEXT's filesize
  file.writeBigUInt64BE(execSegMainBinary, cd + 80);
  ident.copy(file, cd + headerSize);
  for (let i = 0; i < slots; i++)
    file.set(
      hashOf("sha256", file.subarray(i * pageSize, Math.min((i + 1) * pageSize, dataoff))),
      cd + hashOffset + i * 32,
    );
  const report = checkSignature(file);
  if (!report.valid)
    throw new Error(
      `${path}: the new signature does not check (pages ${report.mismatchedPages.slice(0, 5).join(", ")})`,
    );
  writeFileSync(path, file);
  return report;
}
