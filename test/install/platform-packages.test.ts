import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  gpuPackagesForHost,
  installLockedPackage,
  matchesIntegrity,
  packagesForHost,
} from "../../scripts/setup/platform-packages.mjs";

/**
 * Issue 8: the root postinstall puts the host's Bun runtime and node-llama-cpp prebuilt in place from the lock
 * file, through the configured registry only. Driven here against a real local registry in its own process
 * (test/helpers/local-registry.ts) serving one package, so the test needs no network and sees every request.
 */
const work = mkdtempSync(join(tmpdir(), "recall-platform-packages-"));
const requestLog = join(work, "requests.log");
const name = "@recall-test/platform-runtime";
let registry: ReturnType<typeof Bun.spawn>;
let tarball: Buffer;

beforeAll(async () => {
  const source = join(work, "source", "package");
  mkdirSync(join(source, "bin"), { recursive: true });
  writeFileSync(join(source, "package.json"), JSON.stringify({ name, version: "1.2.3" }));
  writeFileSync(join(source, "bin", "tool"), "#!/bin/sh\necho ok\n");
  const tgz = join(work, "source", "platform-runtime-1.2.3.tgz");
  Bun.spawnSync(["tar", "-czf", tgz, "-C", join(work, "source"), "package"]);
  tarball = readFileSync(tgz);
  writeFileSync(requestLog, "");
  registry = Bun.spawn(
    [
      process.execPath,
      join(import.meta.dir, "../helpers/local-registry.ts"),
      name,
      "1.2.3",
      tgz,
      integrityOf(tarball),
      requestLog,
    ],
    { stdout: "pipe" },
  );
  const reader = (registry.stdout as ReadableStream<Uint8Array>).getReader();
  const port = new TextDecoder().decode((await reader.read()).value).trim();
  process.env.npm_config_registry = `http://127.0.0.1:${port}/`;
  process.env.npm_config_cache = join(work, "npm-cache");
});

afterAll(() => {
  registry.kill();
  delete process.env.npm_config_registry;
  delete process.env.npm_config_cache;
  rmSync(work, { recursive: true, force: true });
});

function requests(): string[] {
  return readFileSync(requestLog, "utf8").split("\n").filter(Boolean);
}

function integrityOf(bytes: Buffer): string {
  return `sha512-${createHash("sha512").update(bytes).digest("base64")}`;
}

function lockWith(integrity: string) {
  return { packages: { [`node_modules/${name}`]: { version: "1.2.3", integrity } } };
}

describe("platform packages from the lock file (issue 8)", () => {
  test("each supported host maps to one Bun runtime, one llama.cpp prebuilt and one Biome binary; musl Linux and Windows have none", () => {
    expect(packagesForHost("linux", "x64", false)).toEqual({
      bun: "@oven/bun-linux-x64",
      llama: "@node-llama-cpp/linux-x64",
      biome: "@biomejs/cli-linux-x64",
    });
    expect(packagesForHost("darwin", "arm64", false)).toEqual({
      bun: "@oven/bun-darwin-aarch64",
      llama: "@node-llama-cpp/mac-arm64-metal",
      biome: "@biomejs/cli-darwin-arm64",
    });
    expect(packagesForHost("linux", "x64", true)).toBeUndefined();
    expect(packagesForHost("win32", "x64", false)).toBeUndefined();
  });

  test("a Mac gets node-llama-cpp's Metal build; Linux GPU builds only when RECALL_GPU asks, each locked and known to node-llama-cpp (issue 15)", () => {
    expect(gpuPackagesForHost("linux", "x64", undefined)).toEqual([]);
    expect(gpuPackagesForHost("linux", "x64", "none")).toEqual([]);
    expect(gpuPackagesForHost("linux", "x64", "CUDA")).toEqual([
      "@node-llama-cpp/linux-x64-cuda",
      "@node-llama-cpp/linux-x64-cuda-ext",
    ]);
    expect(gpuPackagesForHost("linux", "x64", "vulkan")).toEqual(["@node-llama-cpp/linux-x64-vulkan"]);
    expect(() => gpuPackagesForHost("linux", "x64", "rocm")).toThrow(
      "RECALL_GPU=rocm is not available on linux-x64; accepted: none, cuda, vulkan",
    );
    expect(() => gpuPackagesForHost("darwin", "arm64", "cuda")).toThrow(
      "Metal is installed on Apple silicon without asking",
    );
    const lock = JSON.parse(readFileSync(join(import.meta.dir, "../../package-lock.json"), "utf8"));
    // node-llama-cpp loads its prebuilt binaries by these module names (bindings/utils/compileLLamaCpp.js).
    const loader = readFileSync(
      join(import.meta.dir, "../../node_modules/node-llama-cpp/dist/bindings/utils/compileLLamaCpp.js"),
      "utf8",
    );
    for (const pkg of [
      ...gpuPackagesForHost("linux", "x64", "cuda"),
      ...gpuPackagesForHost("linux", "x64", "vulkan"),
      packagesForHost("darwin", "arm64", false)?.llama,
      packagesForHost("darwin", "x64", false)?.llama,
    ]) {
      expect(lock.packages[`node_modules/${pkg}`]?.integrity).toMatch(/^sha512-/);
      expect(loader).toContain(`import("${pkg}")`);
    }
  });

  test("every package the host table names is locked with an integrity", () => {
    const lock = JSON.parse(readFileSync(join(import.meta.dir, "../../package-lock.json"), "utf8"));
    for (const host of ["linux-x64", "linux-arm64", "darwin-arm64", "darwin-x64"]) {
      const [platform = "", arch = ""] = host.split("-");
      const packages = packagesForHost(platform, arch, false);
      expect(packages).toBeDefined();
      for (const pkg of Object.values(packages ?? {})) {
        expect(lock.packages[`node_modules/${pkg}`]?.integrity).toMatch(/^sha512-/);
      }
    }
  });

  test("integrity accepts the right sha512 and refuses one changed byte", () => {
    const bytes = Buffer.from("runtime bytes");
    expect(matchesIntegrity(bytes, integrityOf(bytes))).toBe(true);
    expect(matchesIntegrity(Buffer.from("runtime bytez"), integrityOf(bytes))).toBe(false);
  });

  test("installs the locked version through the configured registry only and extracts it in place", () => {
    const repo = join(work, "repo-ok");
    mkdirSync(join(repo, "node_modules"), { recursive: true });
    writeFileSync(requestLog, "");
    const dir = installLockedPackage(repo, lockWith(integrityOf(tarball)), name);
    expect(dir).toBe(join(repo, "node_modules", name));
    expect(readFileSync(join(dir, "bin", "tool"), "utf8")).toContain("echo ok");
    expect(requests().some((path) => path.endsWith(".tgz"))).toBe(true);
    expect(readdirSync(join(repo, "node_modules", "@recall-test"))).toEqual(["platform-runtime"]);
    writeFileSync(requestLog, "");
    installLockedPackage(repo, lockWith(integrityOf(tarball)), name); // already there: no request at all
    expect(requests()).toEqual([]);
  });

  test("a tarball that does not match the lock is refused and nothing is left behind", () => {
    const repo = join(work, "repo-mismatch");
    mkdirSync(join(repo, "node_modules"), { recursive: true });
    const wrong = integrityOf(Buffer.from("another tarball"));
    expect(() => installLockedPackage(repo, lockWith(wrong), name)).toThrow(
      /does not match the integrity in package-lock.json/,
    );
    expect(existsSync(join(repo, "node_modules", name))).toBe(false);
    expect(readdirSync(join(repo, "node_modules", "@recall-test"))).toEqual([]);
  });

  test("a package missing from the lock says how to fix it", () => {
    expect(() => installLockedPackage(join(work, "repo-none"), { packages: {} }, name)).toThrow(
      /npm install --package-lock-only/,
    );
  });
});
