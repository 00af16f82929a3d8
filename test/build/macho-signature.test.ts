/**
 * The darwin binaries carry a code signature that matches them (issue 15: the darwin-x64 binary kept Oven's
 * signature of the bare runtime, covering 97 of 138 MB with 75 of 23,797 page hashes wrong and the hardened
 * runtime set, so macOS would kill it at launch). Both darwin targets are cross-compiled here and every page hash
 * is checked (scripts/build/macho-signature.ts). The signer is checked against Bun's own: re-signing Bun's
 * darwin-arm64 output must give the same bytes. Whether macOS accepts a binary can only be checked on a Mac
 * (`codesign --verify --strict`); these checks are what the kernel verifies page by page.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { checkSignature, signAdhoc } from "../../scripts/build/macho-signature.ts";
import { buildDarwinOnce } from "./build-once.ts";

const work = mkdtempSync(join(tmpdir(), "recall-macho-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let built: Awaited<ReturnType<typeof buildDarwinOnce>>;
beforeAll(async () => {
  built = await buildDarwinOnce();
  if ("skipped" in built) console.warn(`skipping the darwin signature checks: ${built.skipped}`);
}, 300_000);

const binaries = () => built as Record<"darwin-arm64" | "darwin-x64", string>;

describe("the code signature of the darwin binaries (cross-compiled here)", () => {
  test("darwin-x64 and darwin-arm64: ad hoc, covering the whole file, every page hash right, no hardened runtime", () => {
    if ("skipped" in built) return;
    for (const [target, path] of Object.entries(binaries())) {
      const file = readFileSync(path);
      const report = checkSignature(file);
      expect({
        target,
        valid: report.valid,
        coversFile: report.coversFile,
        mismatched: report.mismatchedPages.length,
        adhoc: report.adhoc,
        hardenedRuntime: report.hardenedRuntime,
      }).toEqual({ target, valid: true, coversFile: true, mismatched: 0, adhoc: true, hardenedRuntime: false });
      expect(report.signatureOffset + report.signatureSize).toBe(file.length);
      expect(report.codeSlots).toBe(Math.ceil(report.signatureOffset / 4096));
    }
  });

  test("the checker finds a changed page, and signing again repairs it", () => {
    if ("skipped" in built) return;
    const copy = join(work, "x64-tampered");
    copyFileSync(binaries()["darwin-x64"], copy);
    const bytes = readFileSync(copy);
    bytes.writeUInt8(bytes.readUInt8(5 * 4096 + 17) ^ 0xff, 5 * 4096 + 17);
    writeFileSync(copy, bytes);
    const report = checkSignature(bytes);
    expect(report.valid).toBe(false);
    expect(report.mismatchedPages).toEqual([5]);
    expect(signAdhoc(copy).valid).toBe(true);
    expect(checkSignature(readFileSync(copy)).mismatchedPages).toEqual([]);
  });

  test("signing Bun's own darwin-arm64 output again with its identifier gives the same bytes: the signer matches Bun's", () => {
    if ("skipped" in built) return;
    const copy = join(work, "arm64-resigned");
    copyFileSync(binaries()["darwin-arm64"], copy);
    signAdhoc(copy, "a.out");
    expect(new Bun.CryptoHasher("sha256").update(readFileSync(copy)).digest("hex")).toBe(
      new Bun.CryptoHasher("sha256").update(readFileSync(binaries()["darwin-arm64"])).digest("hex"),
    );
  });

  test("a file that is not a Mach-O, or not signed, is refused with a reason", () => {
    expect(() => checkSignature(new Uint8Array(64))).toThrow("not a thin 64-bit Mach-O file");
    const header = Buffer.alloc(64);
    header.writeUInt32LE(0xfeedfacf, 0);
    expect(() => checkSignature(header)).toThrow("has no LC_CODE_SIGNATURE");
  });
});
