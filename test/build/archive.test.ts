/**
 * Release files of the host build (build/test-dist/): the archive holds exactly one executable `recall`, its
 * .sha256 matches, the embedded runtime layout has node-llama-cpp's JS, data files and this platform's native
 * libraries with correct checksums, and the Homebrew formula carries the real checksum.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { EmbeddedManifest } from "../../src/binary/embedded-files.ts";
import { fillFormula, hashFile } from "../../scripts/build/release.ts";
import { buildBinaryOnce, canBuildBinary, hostTarget, type BuiltBinary } from "./build-once.ts";

const work = mkdtempSync(join(tmpdir(), "recall-archive-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe.skipIf(!canBuildBinary)("the release archive and embedded layout (builds the binary)", () => {
  let built: BuiltBinary;
  beforeAll(async () => {
    built = await buildBinaryOnce();
  }, 180_000);

  test("the archive holds exactly one executable named recall, and its .sha256 is in sha256sum format", () => {
    expect(basename(built.archive)).toBe(`recall-${hostTarget}.tar.gz`);
    const listing = Bun.spawnSync(["tar", "-tvzf", built.archive]).stdout.toString().trim().split("\n");
    expect(listing).toHaveLength(1);
    expect(listing[0]).toMatch(/^-rwx.* recall$/);
    const checksum = readFileSync(built.checksumFile, "utf8");
    expect(checksum).toBe(`${hashFile(built.archive)}  ${basename(built.archive)}\n`);
    const check = Bun.spawnSync(["sha256sum", "-c", basename(built.checksumFile)], { cwd: join(built.archive, "..") });
    expect(check.exitCode).toBe(0);
  }, 60_000);

  test("the unpacked binary is an ELF executable for this machine, identical to the built one", () => {
    expect(Bun.spawnSync(["tar", "-xzf", built.archive, "-C", work]).exitCode).toBe(0);
    const unpacked = join(work, "recall");
    expect(hashFile(unpacked)).toBe(hashFile(built.binary));
    const header = readFileSync(unpacked).subarray(0, 20);
    expect([...header.subarray(0, 4)]).toEqual([0x7f, 0x45, 0x4c, 0x46]);
    expect(header.readUInt16LE(18)).toBe(hostTarget.endsWith("x64") ? 62 : 183); // e_machine: x86-64 / aarch64
    expect(statSync(unpacked).mode & 0o111).not.toBe(0);
  }, 60_000);

  test("the embedded manifest lists node-llama-cpp's bundle, data files and native libs, each matching its sha256", () => {
    const manifest = JSON.parse(readFileSync(join(built.embedDir, "recall-embedded.json"), "utf8")) as EmbeddedManifest;
    expect(manifest.target).toBe(hostTarget);
    const runtime = manifest.groups["node-llama-cpp"].files.map((file) => file.path);
    expect(runtime).toContain("dist/index.js");
    expect(runtime).toContain("llama/binariesGithubRelease.json");
    expect(runtime).toContain("package.json");
    expect(runtime.some((path) => path.startsWith(`bins/${hostTarget}/`) && path.endsWith(".node"))).toBe(true);
    expect(runtime.filter((path) => path.endsWith(".so")).length).toBeGreaterThan(0);
    expect(manifest.groups.skill.files.map((file) => file.path)).toContain("SKILL.md");
    expect(manifest.groups.examples.files.length).toBeGreaterThan(10);
    for (const [group, { files }] of Object.entries(manifest.groups)) {
      for (const file of files) expect(`${group}/${file.path} ${hashFile(join(built.embedDir, group, file.path))}`).toBe(`${group}/${file.path} ${file.sha256}`);
    }
    const bundle = readFileSync(join(built.embedDir, "node-llama-cpp", "dist", "index.js"), "utf8");
    expect(bundle).toContain("if (false) console.warn(");
  }, 60_000);

  test("the Homebrew formula in the output folder has the version and the archive's real checksum", () => {
    const formula = readFileSync(built.formula, "utf8");
    const version = (JSON.parse(readFileSync(join(import.meta.dir, "..", "..", "package.json"), "utf8")) as { version: string }).version;
    expect(formula).toContain(`version "${version}"`);
    expect(formula).toContain(`sha256 "${hashFile(built.archive)}"`);
    expect(formula).toContain(`/recall-${hostTarget}.tar.gz"`);
    expect(formula).not.toContain(`@@SHA256_${hostTarget.toUpperCase().replace("-", "_")}@@`);
  });
});

describe("filling the Homebrew formula template", () => {
  test("fills version, base URL and the checksums it has, and names the targets still missing", () => {
    const template = 'version "@@VERSION@@"\nurl "@@BASE_URL@@/recall-linux-x64.tar.gz"\nsha256 "@@SHA256_LINUX_X64@@"\nsha256 "@@SHA256_DARWIN_ARM64@@"\n';
    const { text, missing } = fillFormula(template, "1.2.3", "https://example.test/v1.2.3", { "linux-x64": "ab".repeat(32) });
    expect(text).toBe(`version "1.2.3"\nurl "https://example.test/v1.2.3/recall-linux-x64.tar.gz"\nsha256 "${"ab".repeat(32)}"\nsha256 "@@SHA256_DARWIN_ARM64@@"\n`);
    expect(missing).toEqual(["darwin-arm64", "darwin-x64", "linux-arm64"]);
  });
});
