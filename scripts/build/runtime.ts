/**
 * Lays out the node-llama-cpp runtime that the compiled binary embeds and extracts on first use
 * (runtime-notes §2, "Recipe that works"): node-llama-cpp's JS pre-bundled into one ESM file with the
 * platform packages left as dynamic imports, its llama/*.json data files, and the target's native libraries
 * copied to `bins/<platform>/`, where node-llama-cpp looks before trying the @node-llama-cpp/* packages.
 * Packages for other platforms are fetched with `npm pack` into build/cache/npm (only for --target builds).
 */
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { BuildTarget } from "./targets.ts";

/** The console.warn that a bundled node-llama-cpp prints 3 lines through on every getLlama (runtime-notes §2). */
const independenceWarning = "if (!detectedFileName.startsWith(expectedFileName)) {\n    console.warn(";

/** Runs a command; returns its stdout. @throws Error with the command's stderr when it exits non-zero */
export function run(command: string[], options: { cwd?: string } = {}): string {
  const result = Bun.spawnSync(command, { cwd: options.cwd, stdout: "pipe", stderr: "pipe", env: process.env });
  if (result.exitCode !== 0)
    throw new Error(`${command.join(" ")} failed (exit ${result.exitCode}):\n${result.stderr.toString()}`);
  return result.stdout.toString();
}

/** Reads `version` from a package.json. */
export function readPackageVersion(packageDir: string): string {
  return (JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version: string }).version;
}

/**
 * Returns a folder holding npm package `name@version`: the installed copy in node_modules when its version
 * matches, else a copy fetched with `npm pack` into `cacheDir` (reused by later builds).
 * @throws Error when npm cannot fetch it
 */
export function fetchPackage(repo: string, name: string, version: string, cacheDir: string): string {
  const installed = join(repo, "node_modules", name);
  if (existsSync(join(installed, "package.json")) && readPackageVersion(installed) === version) return installed;
  const dir = join(cacheDir, `${name.replace("/", "__")}-${version}`);
  if (existsSync(join(dir, "package", "package.json"))) return join(dir, "package");
  mkdirSync(dir, { recursive: true });
  const tarball = run(["npm", "pack", `${name}@${version}`, "--silent", "--pack-destination", dir])
    .trim()
    .split("\n")
    .pop()!;
  run(["tar", "-xzf", join(dir, tarball), "-C", dir]);
  return join(dir, "package");
}

/**
 * Pre-bundles node-llama-cpp to `<runtimeDir>/dist/index.js` and removes the 3-line "testBindingBinary.js is
 * not independent" warning (bundled, it cannot fork its compatibility test; the warning is only noise).
 * @throws Error when the bundle fails or the warning's code is not where it was in 3.21.1
 */
export function bundleNodeLlamaCpp(repo: string, runtimeDir: string): void {
  const entry = join(repo, "node_modules", "node-llama-cpp", "dist", "index.js");
  const outDir = join(runtimeDir, "dist");
  run(["bun", "build", entry, "--target=bun", "--format=esm", "--external", "@node-llama-cpp/*", "--outdir", outDir]);
  const bundlePath = join(outDir, "index.js");
  const source = readFileSync(bundlePath, "utf8");
  if (!source.includes(independenceWarning))
    throw new Error("node-llama-cpp changed: the testBindingBinary warning to silence was not found");
  writeFileSync(
    bundlePath,
    source.replace(
      independenceWarning,
      `${independenceWarning.slice(0, -"console.warn(".length)}if (false) console.warn(`,
    ),
  );
}

/**
 * Writes the complete runtime layout for `target` into `runtimeDir` (which mirrors the node-llama-cpp package
 * folder): dist/index.js, package.json, llama/{binariesGithubRelease,llama.cpp.info}.json, bins/<platform>/*.
 * @returns the platform folder names copied under bins/ (e.g. ["linux-x64"])
 */
export function layOutRuntime(repo: string, target: BuildTarget, runtimeDir: string, cacheDir: string): string[] {
  const nlcDir = join(repo, "node_modules", "node-llama-cpp");
  const version = readPackageVersion(nlcDir);
  bundleNodeLlamaCpp(repo, runtimeDir);
  cpSync(join(nlcDir, "package.json"), join(runtimeDir, "package.json"));
  mkdirSync(join(runtimeDir, "llama"), { recursive: true });
  for (const name of ["binariesGithubRelease.json", "llama.cpp.info.json"])
    cpSync(join(nlcDir, "llama", name), join(runtimeDir, "llama", name));
  const platformPackage = fetchPackage(repo, target.llamaPackage, version, cacheDir);
  const platforms = readdirSync(join(platformPackage, "bins"));
  if (platforms.length === 0) throw new Error(`${target.llamaPackage} has no bins/ folder`);
  for (const name of platforms)
    cpSync(join(platformPackage, "bins", name), join(runtimeDir, "bins", name), { recursive: true });
  return platforms;
}
