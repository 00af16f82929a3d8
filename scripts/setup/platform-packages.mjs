#!/usr/bin/env node
/**
 * Root `postinstall` (runs under Node, before Bun exists): installs the platform packages this machine
 * needs — Bun's runtime (`@oven/bun-<os>-<arch>`), node-llama-cpp's prebuilt binaries
 * (`@node-llama-cpp/<platform>`) and, for the development checks, the Biome formatter and linter's binary
 * (`@biomejs/cli-<os>-<arch>`) — exactly at the version and sha512 that package-lock.json records.
 *
 * Why: set-up installs with `--omit=optional` so that node-llama-cpp's CUDA/Vulkan builds (≈ 610 MB on
 * Linux) stay out, but that also omits these three (each is an optional dependency of its package). Bun's own postinstall would then fetch its runtime by a
 * second, unlocked route (a nested `npm install`, then a hard-coded download host), so package.json denies it
 * in `allowScripts` and this script does its job from the lock instead: `npm pack` through the configured
 * registry and cache (a company mirror is enough), sha512 checked against the lock, extracted atomically,
 * and the runtime linked to `node_modules/bun/bin/bun.exe` where Bun's npm shim expects it.
 *
 * On a Mac the node-llama-cpp package is the Metal build (Apple silicon), so a source install embeds on the GPU
 * like the release binary. On Linux x64 the GPU builds are opt-in: `RECALL_GPU=cuda npm ci --omit=optional` adds
 * `@node-llama-cpp/linux-x64-cuda` + `-cuda-ext` (≈ 540 MB), `RECALL_GPU=vulkan` adds `linux-x64-vulkan`, from the
 * same lock; node-llama-cpp picks them when it finds the GPU (src/embed/hardware.ts).
 *
 * Exit 1 with one line naming the package when it cannot be fetched or does not match the lock, or naming the
 * accepted values when RECALL_GPU is not one of them.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  linkSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  renameSync,
  rmSync,
} from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * Platform packages per host, keyed `<process.platform>-<process.arch>`. Names follow each project's own
 * table: Bun's `install.js` (`bun-linux-aarch64`, `bun-darwin-aarch64`), node-llama-cpp's optionalDependencies
 * (Metal for Apple silicon and Intel Macs alike is `mac-arm64-metal` / `mac-x64`), Biome's `bin/biome`
 * (`cli-<process.platform>-<process.arch>`).
 */
export const hostPackages = {
  "linux-x64": { bun: "@oven/bun-linux-x64", llama: "@node-llama-cpp/linux-x64", biome: "@biomejs/cli-linux-x64" },
  "linux-arm64": {
    bun: "@oven/bun-linux-aarch64",
    llama: "@node-llama-cpp/linux-arm64",
    biome: "@biomejs/cli-linux-arm64",
  },
  "darwin-arm64": {
    bun: "@oven/bun-darwin-aarch64",
    llama: "@node-llama-cpp/mac-arm64-metal",
    biome: "@biomejs/cli-darwin-arm64",
  },
  "darwin-x64": { bun: "@oven/bun-darwin-x64", llama: "@node-llama-cpp/mac-x64", biome: "@biomejs/cli-darwin-x64" },
};

/**
 * Returns the platform packages for a host, or undefined when recall has no build for it (musl Linux,
 * Windows, FreeBSD).
 * @param platform `process.platform`; @param arch `process.arch`; @param isMusl true on musl libc (Alpine)
 */
export function packagesForHost(platform, arch, isMusl) {
  if (isMusl) return undefined;
  return hostPackages[`${platform}-${arch}`];
}

/** node-llama-cpp's GPU builds per host and RECALL_GPU value (its compileLLamaCpp.js module table, 3.21.1). */
export const gpuPackages = {
  "linux-x64": {
    cuda: ["@node-llama-cpp/linux-x64-cuda", "@node-llama-cpp/linux-x64-cuda-ext"],
    vulkan: ["@node-llama-cpp/linux-x64-vulkan"],
  },
};

/**
 * The GPU packages RECALL_GPU asks for on a host: [] when unset, empty or "none" (the default: CPU build only; a Mac
 * already gets Metal from {@link packagesForHost}).
 * @param platform `process.platform`; @param arch `process.arch`; @param gpu the value of RECALL_GPU
 * @throws Error naming the accepted values when `gpu` is not one of them on this host
 */
export function gpuPackagesForHost(platform, arch, gpu) {
  const wanted = (gpu ?? "").trim().toLowerCase();
  if (wanted === "" || wanted === "none") return [];
  const choices = gpuPackages[`${platform}-${arch}`] ?? {};
  const packages = choices[wanted];
  if (!packages) {
    const accepted = ["none", ...Object.keys(choices)].join(", ");
    throw new Error(
      `RECALL_GPU=${gpu} is not available on ${platform}-${arch}; accepted: ${accepted}${platform === "darwin" ? " (Metal is installed on Apple silicon without asking)" : ""}`,
    );
  }
  return packages;
}

/**
 * Reads `{version, integrity}` of `node_modules/<name>` from a package-lock.json (lockfileVersion 2 or 3).
 * @throws Error when the lock has no such entry or the entry has no integrity
 */
export function lockedPackage(lock, name) {
  const entry = lock.packages?.[`node_modules/${name}`];
  if (!entry?.version || !entry.integrity)
    throw new Error(`package-lock.json has no locked version of ${name}; run \`npm install --package-lock-only\``);
  return { version: entry.version, integrity: entry.integrity };
}

/**
 * Checks bytes against an SRI string such as "sha512-<base64>" (the lock's `integrity`; several
 * space-separated hashes are allowed, one must match). Returns true on a match.
 */
export function matchesIntegrity(bytes, integrity) {
  return integrity.split(/\s+/).some((entry) => {
    const dash = entry.indexOf("-");
    const algorithm = entry.slice(0, dash);
    if (!["sha512", "sha384", "sha256", "sha1"].includes(algorithm)) return false;
    return createHash(algorithm).update(bytes).digest("base64") === entry.slice(dash + 1);
  });
}

function installedVersion(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version;
  } catch {
    return undefined;
  }
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], ...options });
  if (result.status !== 0) {
    const detail = (result.stderr || result.stdout || String(result.error ?? ""))
      .trim()
      .split("\n")
      .filter((line) => !line.includes("Unknown user config"))
      .slice(-3)
      .join(" | ");
    throw new Error(`${command} ${args.join(" ")} failed (exit ${result.status}): ${detail}`);
  }
  return result.stdout;
}

/**
 * Installs `name` at its locked version into `<repo>/node_modules/<name>` unless that version is already
 * there: `npm pack` (configured registry and cache), integrity check, extraction into a temp folder beside the
 * target, rename. Returns the package folder.
 * @throws Error when npm cannot fetch it or the tarball does not match the lock
 */
export function installLockedPackage(repo, lock, name) {
  const { version, integrity } = lockedPackage(lock, name);
  const target = join(repo, "node_modules", name);
  if (installedVersion(target) === version) return target;
  mkdirSync(dirname(target), { recursive: true });
  const work = mkdtempSync(join(dirname(target), ".recall-setup-"));
  try {
    const packed = JSON.parse(
      run("npm", ["pack", `${name}@${version}`, "--json", "--pack-destination", work], { cwd: work }),
    );
    const tarball = join(work, packed[0].filename);
    if (!matchesIntegrity(readFileSync(tarball), integrity))
      throw new Error(`${name}@${version} from the registry does not match the integrity in package-lock.json`);
    const extracted = join(work, "package");
    mkdirSync(extracted);
    run("tar", ["-xzf", tarball, "-C", extracted, "--strip-components=1"]);
    rmSync(target, { recursive: true, force: true });
    renameSync(extracted, target);
    return target;
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/**
 * Puts the platform runtime where Bun's npm shim looks for it (`node_modules/bun/bin/bun.exe`, and `bunx.exe`),
 * as Bun's own postinstall does: a hard link, or a copy across devices. Returns the linked path.
 */
export function linkBunRuntime(repo, runtimePackageDir) {
  const binary = join(runtimePackageDir, "bin", "bun");
  const shimDir = join(repo, "node_modules", "bun", "bin");
  if (!existsSync(shimDir)) throw new Error("node_modules/bun is missing; run `npm ci` first");
  for (const name of ["bun.exe", "bunx.exe"]) {
    const dest = join(shimDir, name);
    rmSync(dest, { force: true });
    try {
      linkSync(binary, dest);
    } catch {
      copyFileSync(binary, dest);
    }
    chmodSync(dest, 0o755);
  }
  return join(shimDir, "bun.exe");
}

function isMuslLinux() {
  if (process.platform !== "linux") return false;
  const header = process.report?.getReport?.()?.header;
  return header ? !header.glibcVersionRuntime : existsSync("/etc/alpine-release");
}

function main() {
  const repo = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
  if (!existsSync(join(repo, "node_modules", "bun"))) return; // installed as someone else's dependency: nothing to do
  const packages = packagesForHost(process.platform, process.arch, isMuslLinux());
  if (!packages) {
    console.error(
      `recall set-up: no Bun/llama.cpp build for ${process.platform}-${process.arch}${isMuslLinux() ? " (musl)" : ""}; supported: ${Object.keys(hostPackages).join(", ")} (glibc)`,
    );
    process.exit(1);
  }
  const gpu = gpuPackagesForHost(process.platform, process.arch, process.env.RECALL_GPU); // a bad value fails before any download
  const lock = JSON.parse(readFileSync(join(repo, "package-lock.json"), "utf8"));
  const runtime = installLockedPackage(repo, lock, packages.bun);
  const bun = linkBunRuntime(repo, runtime);
  run(bun, ["--version"]);
  installLockedPackage(repo, lock, packages.llama);
  for (const name of gpu) installLockedPackage(repo, lock, name);
  // The formatter and linter (`npm run check`); a production install (`--omit=dev`) has no @biomejs/biome.
  if (existsSync(join(repo, "node_modules", "@biomejs", "biome"))) installLockedPackage(repo, lock, packages.biome);
  // npm leaves no trace of packages it did not install; drop temp folders of an interrupted earlier run.
  for (const scope of ["@oven", "@node-llama-cpp", "@biomejs"]) {
    const dir = join(repo, "node_modules", scope);
    if (existsSync(dir))
      for (const entry of readdirSync(dir))
        if (entry.startsWith(".recall-setup-")) rmSync(join(dir, entry), { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    main();
  } catch (error) {
    console.error(`recall set-up: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  }
}
