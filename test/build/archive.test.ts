/**
 * Release files of the host build (build/test-dist/): the archive holds exactly one executable `recall`, its
 * .sha256 matches, the embedded runtime layout has node-llama-cpp's JS, data files and this platform's native
 * libraries with correct checksums, the archive is reproducible, and a host-only build writes no formula.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { EmbeddedManifest } from "../../src/binary/embedded-files.ts";
import { fillFormula, formulaTargets, hashFile, releaseTime, writeArchive } from "../../scripts/build/release.ts";
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
      for (const file of files)
        expect(`${group}/${file.path} ${hashFile(join(built.embedDir, group, file.path))}`).toBe(
          `${group}/${file.path} ${file.sha256}`,
        );
    }
    const bundle = readFileSync(join(built.embedDir, "node-llama-cpp", "dist", "index.js"), "utf8");
    expect(bundle).toContain("if (false) console.warn(");
  }, 60_000);

  test("the archive is reproducible: packing the same binary again gives the same sha256 (issue 15)", async () => {
    const again = join(work, "again");
    mkdirSync(again, { recursive: true });
    const { sha256 } = await writeArchive(
      join(built.binary, ".."),
      again,
      hostTarget,
      releaseTime(join(import.meta.dir, "..", "..")),
    );
    expect(sha256).toBe(hashFile(built.archive));
  }, 60_000);

  test("install.sh, pointed at the build folder through RECALL_RELEASE_URL, installs this archive and the binary runs", async () => {
    const dist = join(built.archive, "..");
    const server = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => {
        const name = new URL(request.url).pathname.slice(1);
        return /^[\w.-]+$/.test(name) && existsSync(join(dist, name))
          ? new Response(Bun.file(join(dist, name)))
          : new Response("no", { status: 404 });
      },
    });
    try {
      const installDir = join(work, "installed");
      const child = Bun.spawn(["sh", join(dist, "install.sh")], {
        env: {
          PATH: "/usr/bin:/bin",
          HOME: work,
          RECALL_INSTALL_DIR: installDir,
          RECALL_RELEASE_URL: `http://127.0.0.1:${server.port}`,
        },
        stdout: "pipe",
        stderr: "pipe",
      });
      expect(await child.exited).toBe(0);
      const version = (
        JSON.parse(readFileSync(join(import.meta.dir, "..", "..", "package.json"), "utf8")) as { version: string }
      ).version;
      expect(
        Bun.spawnSync([join(installDir, "recall"), "--version"])
          .stdout.toString()
          .trim(),
      ).toBe(version);
      expect(hashFile(join(installDir, "recall"))).toBe(hashFile(built.binary));
    } finally {
      server.stop(true);
    }
  }, 60_000);

  test("a host-only build writes no Homebrew formula (it would lack the other platforms' checksums)", () => {
    expect(existsSync(join(built.archive, "..", "homebrew-recall"))).toBe(false);
  });
});

describe("filling the Homebrew formula template", () => {
  const template =
    'version "@@VERSION@@"\nurl "@@BASE_URL@@/recall-linux-x64.tar.gz"\nsha256 "@@SHA256_LINUX_X64@@"\nsha256 "@@SHA256_DARWIN_ARM64@@"\n@@SHA256_DARWIN_X64@@ @@SHA256_LINUX_ARM64@@\n';
  const all = Object.fromEntries(formulaTargets.map((id, i) => [id, String(i).repeat(64)]));

  test("fills version, base URL and every platform's checksum", () => {
    const text = fillFormula(template, "1.2.3", "https://example.test/v1.2.3", all);
    expect(text).toBe(
      `version "1.2.3"\nurl "https://example.test/v1.2.3/recall-linux-x64.tar.gz"\nsha256 "${"3".repeat(64)}"\nsha256 "${"0".repeat(64)}"\n${"1".repeat(64)} ${"2".repeat(64)}\n`,
    );
  });

  test("refuses to write a formula with a checksum missing or a placeholder it does not know", () => {
    const { "darwin-x64": _, ...withoutOne } = all;
    expect(() => fillFormula(template, "1.2.3", "https://example.test", withoutOne)).toThrow(
      "no archive checksum for darwin-x64",
    );
    expect(() => fillFormula(`${template}@@LICENSE@@\n`, "1.2.3", "https://example.test", all)).toThrow(
      "placeholder the build does not fill: @@LICENSE@@",
    );
  });

  test("the template in packaging/homebrew/Formula is filled completely: a tap layout without any placeholder left", () => {
    const text = fillFormula(
      readFileSync(join(import.meta.dir, "..", "..", "packaging", "homebrew", "Formula", "recall.rb"), "utf8"),
      "1.2.3",
      "https://example.test/v1.2.3",
      all,
    );
    expect(text).not.toContain("@@");
    expect(text).toContain('url "https://example.test/v1.2.3/recall-darwin-arm64.tar.gz"');
  });
});
